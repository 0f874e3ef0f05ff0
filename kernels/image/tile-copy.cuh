/* SPDX-License-Identifier: LGPL-2.1-or-later */
// tiles of a frame copied into shared memory by the tensor memory
// accelerator (Hopper's cp.async.bulk.tensor): one instruction a tile
// instead of a load a thread and row, no register held while the rows
// come, and their arrival counted in bytes on an mbarrier.
// (included by .cu files only)
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace accel_image
{

typedef CUresult (*TileCopyEncode) (CUtensorMap *, CUtensorMapDataType,
    cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,
    const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// the driver's encoder of tensor maps, looked up once: the kernels link
// the runtime only, so it comes through the runtime's entry point query
static inline TileCopyEncode
tile_copy_encoder ()
{
  static const TileCopyEncode fn = [] {
    void *f = nullptr;
    cudaDriverEntryPointQueryResult found;

    if (cudaGetDriverEntryPointByVersion (
            "cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found)
            != cudaSuccess
        || found != cudaDriverEntryPointSuccess)
      return (TileCopyEncode) nullptr;
    return (TileCopyEncode)f;
  }();
  return fn;
}

// @map over a frame of 32-bit pixels (@width x @height, rows @pitch bytes
// apart, on 16 bytes), copied in boxes of @box_w x @box_h pixels; rows
// past the frame's last arrive as zeros. False where the driver cannot
static inline bool
tile_copy_map (CUtensorMap *map, const void *data, size_t pitch, int width,
    int height, int box_w, int box_h)
{
  const TileCopyEncode encode = tile_copy_encoder ();
  const cuuint64_t dims[2] = { (cuuint64_t)width, (cuuint64_t)height };
  const cuuint64_t strides[1] = { (cuuint64_t)pitch };
  const cuuint32_t box[2] = { (cuuint32_t)box_w, (cuuint32_t)box_h };
  const cuuint32_t steps[2] = { 1, 1 };

  return encode
         && encode (map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, (void *)data, dims,
                strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
                == CUDA_SUCCESS;
}

__device__ __forceinline__ uint32_t
shared_address (const void *p)
{
  return (uint32_t)__cvta_generic_to_shared (p);
}

// readies @n one-use barriers at @bar; by one thread, before the block's
// barrier that precedes any wait on them
__device__ __forceinline__ void
tile_copy_init (uint64_t *bar, int n)
{
  for (int i = 0; i < n; i++)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(
        shared_address (bar + i)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// starts copying the box at pixel (@x, @y) of @map to @to (on 128 bytes),
// @bytes of it, whose arrival completes @bar; by one thread
__device__ __forceinline__ void
tile_copy_start (
    void *to, const CUtensorMap *map, int x, int y, uint64_t *bar, int bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   shared_address (bar)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                   shared_address (to)),
               "l"(map), "r"(x), "r"(y), "r"(shared_address (bar))
               : "memory");
}

// waits until the copy on @bar has arrived
__device__ __forceinline__ void
tile_copy_wait (uint64_t *bar)
{
  asm volatile("{\n\t.reg .pred done;\n"
               "WAIT%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t"
               "@!done bra WAIT%=;\n}" ::"r"(shared_address (bar))
               : "memory");
}

} // namespace accel_image
