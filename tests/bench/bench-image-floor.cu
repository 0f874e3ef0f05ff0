/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the floor under an image kernel's time (bench-image-floor.h): every
 * 16-byte word of the input read once, evict-first as the conversions read
 * theirs, and every one of the output written once, each warp access 512
 * contiguous bytes, in two shapes; the floor is the faster of them */
#include <cuda_runtime.h>

#include "bench-image-floor.h"

namespace
{

constexpr int FLOOR_THREADS = 256;

__device__ __forceinline__ uint4
fold (uint4 a, uint4 b)
{
  return make_uint4 (a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}

/* n threads, as many as the smaller side has words: thread i reads words
 * i, i + n, i + 2 n... of the input and writes those of the output, its
 * reads folded into what it writes so that none is dropped */
__global__ void
__launch_bounds__ (FLOOR_THREADS)
    floor_folded (const uint4 *__restrict__ in, size_t in_words, int reads,
        uint4 *__restrict__ out, size_t out_words, int writes, size_t n)
{
  const size_t i = blockIdx.x * (size_t)FLOOR_THREADS + threadIdx.x;
  uint4 v = make_uint4 (0, 0, 0, 0);

  if (i >= n)
    return;
  for (int j = 0; j < reads; j++)
    if (i + j * n < in_words)
      v = fold (v, __ldcs (in + i + j * n));
  for (int j = 0; j < writes; j++)
    if (i + j * n < out_words)
      out[i + j * n] = make_uint4 (v.x, v.y, v.z, v.w ^ j);
}

/* as many threads as the larger side has words, each reading and writing
 * at most one: a thread with no word to write keeps its read by a store
 * that a frame of random bytes never makes */
__global__ void
__launch_bounds__ (FLOOR_THREADS) floor_spread (const uint4 *__restrict__ in,
    size_t in_words, uint4 *__restrict__ out, size_t out_words)
{
  const size_t i = blockIdx.x * (size_t)FLOOR_THREADS + threadIdx.x;
  const uint4 v = i < in_words ? __ldcs (in + i) : make_uint4 (0, 0, 0, 0);

  if (i < out_words)
    out[i] = v;
  else if (i < in_words && v.x == 0x8badf00du && v.y == v.x && v.z == v.x
           && v.w == v.x)
    out[0] = v;
}

} // namespace

extern "C" int
bench_image_floor (void *stream, int shape, const void *in, size_t in_bytes,
    void *out, size_t out_bytes)
{
  /* whole 16-byte words: the frames' tails below one are left out */
  const size_t in_words = in_bytes / 16, out_words = out_bytes / 16;
  const size_t fewer = in_words < out_words ? in_words : out_words;
  const size_t more = in_words < out_words ? out_words : in_words;
  cudaStream_t s = (cudaStream_t)stream;

  if (fewer == 0)
    return cudaErrorInvalidValue;
  if (shape == BENCH_IMAGE_FLOOR_FOLDED)
    floor_folded<<<(unsigned)((fewer + FLOOR_THREADS - 1) / FLOOR_THREADS),
        FLOOR_THREADS, 0, s>>> ((const uint4 *)in, in_words,
        (int)((in_words + fewer - 1) / fewer), (uint4 *)out, out_words,
        (int)((out_words + fewer - 1) / fewer), fewer);
  else
    floor_spread<<<(unsigned)((more + FLOOR_THREADS - 1) / FLOOR_THREADS),
        FLOOR_THREADS, 0, s>>> (
        (const uint4 *)in, in_words, (uint4 *)out, out_words);
  return cudaGetLastError ();
}
