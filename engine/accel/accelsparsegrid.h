/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the block-sparse grid (libaccel-kernels-1.0); plain C, no GLib, so
 * the kernels include it as it is */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /**
   * SECTION:accelsparsegrid
   * @title: Sparse grid
   * @short_description: a block-sparse 2D grid of float cells
   *
   * A block-sparse 2D grid of float cells: the domain is cut into square
   * blocks of b x b cells, and only the active blocks have storage
   *
   * The activity of a block lives in a dense table of one entry per block:
   * in 2D that table is 1 / b^2 of the dense field (1.6% at b = 8), and a
   * neighbour's storage is one load away, with no probing. Blocks are
   * switched on and off by block coordinate; a rebuild then numbers the
   * active blocks in ascending block index (y * bx + x), so the storage slot
   * of each block, and thereby every result, is the same on the GPU and on
   * the host. A rebuild renumbers the slots: storage written before it is
   * stale until the next gather.
   *
   * Storage is max_blocks * b * b floats, slot after slot, each block row
   * after row. Cells of an edge block that lie outside the domain hold 0. The
   * grid's topology lives in one block of memory (device or host); the
   * storage arrays are the caller's, so several fields can share one
   * topology. Operations on one grid run one after the other (one stream).
   *
   * Link with libaccel-kernels-1.0 (in accel-1.0.pc). Each operation comes
   * twice: a launcher that takes a CUDA stream (a cudaStream_t as `void *`,
   * such as accel_stream_get_handle() returns) and device memory and
   * returns a cudaError_t, and a host reference (`_host`) that takes host
   * memory and returns 0.
   */

  /**
   * AccelSparseGridCounts:
   * @active: blocks in the active list
   * @dropped: active blocks left out: more than max_blocks
   *
   * What the last rebuild found, in the grid's block.
   */
  typedef struct
  {
    int32_t active;
    int32_t dropped;
  } AccelSparseGridCounts;

  /**
   * AccelSparseGrid:
   * @nx: cells of the dense domain per row (row-major)
   * @ny: rows of the dense domain
   * @b: cells per block side, 1 to 32
   * @bx: blocks per row, rounded up
   * @by: blocks per column, rounded up
   * @max_blocks: storage capacity in blocks
   * @counts: what the last rebuild found
   * @mask: bx * by bytes: nonzero where switched on
   * @table: bx * by words: storage slot of a listed block, or -1
   * @list: max_blocks words: block index of each slot, ascending
   * @scan: scratch of the rebuild
   *
   * A grid's topology in one block of device or host memory, laid out by
   * accel_sparse_grid_init().
   */
  typedef struct
  {
    int nx, ny;
    int b;
    int bx, by;
    int max_blocks;
    AccelSparseGridCounts *counts;
    uint8_t *mask;
    int32_t *table;
    int32_t *list;
    int32_t *scan;
  } AccelSparseGrid;

  /**
   * accel_sparse_grid_size:
   * @nx: cells per row
   * @ny: rows
   * @b: cells per block side
   * @max_blocks: storage capacity in blocks
   *
   * Returns: the bytes of the topology of an @nx x @ny grid of @b x @b
   * blocks. MT safe.
   */
  size_t accel_sparse_grid_size (int nx, int ny, int b, int max_blocks);

  /**
   * accel_sparse_grid_init:
   * @g: (out caller-allocates): the grid to point into @block
   * @block: accel_sparse_grid_size() bytes of device or host memory
   * @nx: cells per row
   * @ny: rows
   * @b: cells per block side, 1 to 32
   * @max_blocks: storage capacity in blocks, 1 to bx * by
   *
   * Points @g into @block; touches no memory (clear the grid before use).
   * MT safe.
   *
   * Returns: 0, or -1 for a size out of range.
   */
  int accel_sparse_grid_init (
      AccelSparseGrid *g, void *block, int nx, int ny, int b, int max_blocks);

  /**
   * accel_sparse_grid_storage_floats:
   * @g: a grid
   *
   * Returns: the floats of one storage array: max_blocks * b * b. MT safe.
   */
  size_t accel_sparse_grid_storage_floats (const AccelSparseGrid *g);

  /**
   * accel_sparse_grid_clear:
   * @stream: a cudaStream_t
   * @g: a grid in device memory
   *
   * Switches every block off and empties the list.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_sparse_grid_clear (void *stream, const AccelSparseGrid *g);
  /**
   * accel_sparse_grid_clear_host:
   * @g: a grid in host memory
   *
   * The host reference of accel_sparse_grid_clear().
   *
   * Returns: 0.
   */
  int accel_sparse_grid_clear_host (const AccelSparseGrid *g);

  /**
   * accel_sparse_grid_set_blocks:
   * @stream: a cudaStream_t
   * @g: a grid in device memory
   * @coords: 2 * @n words, device memory: (x, y) block coordinates
   * @n: how many blocks
   * @on: nonzero to switch on, 0 to switch off
   *
   * Switches the blocks at @coords[2 * i], @coords[2 * i + 1] on or off;
   * coordinates outside the grid are ignored. Takes effect at the next
   * rebuild.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_sparse_grid_set_blocks (void *stream, const AccelSparseGrid *g,
      const int32_t *coords, size_t n, int on);
  /**
   * accel_sparse_grid_set_blocks_host:
   * @g: a grid in host memory
   * @coords: 2 * @n words: (x, y) block coordinates
   * @n: how many blocks
   * @on: nonzero to switch on, 0 to switch off
   *
   * The host reference of accel_sparse_grid_set_blocks().
   *
   * Returns: 0.
   */
  int accel_sparse_grid_set_blocks_host (
      const AccelSparseGrid *g, const int32_t *coords, size_t n, int on);

  /**
   * accel_sparse_grid_rebuild:
   * @stream: a cudaStream_t
   * @g: a grid in device memory
   *
   * The list, the table and the counts from the mask: the switched-on
   * blocks in ascending block index, the first max_blocks of them kept.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_sparse_grid_rebuild (void *stream, const AccelSparseGrid *g);
  /**
   * accel_sparse_grid_rebuild_host:
   * @g: a grid in host memory
   *
   * The host reference of accel_sparse_grid_rebuild().
   *
   * Returns: 0.
   */
  int accel_sparse_grid_rebuild_host (const AccelSparseGrid *g);

  /**
   * accel_sparse_grid_gather:
   * @stream: a cudaStream_t
   * @g: a grid in device memory
   * @dense: nx * ny floats, device memory
   * @storage: accel_sparse_grid_storage_floats() floats, device memory
   *
   * Copies the listed blocks' cells of the dense field into @storage;
   * slots past the list are left as they are.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_sparse_grid_gather (void *stream, const AccelSparseGrid *g,
      const float *dense, float *storage);
  /**
   * accel_sparse_grid_gather_host:
   * @g: a grid in host memory
   * @dense: nx * ny floats
   * @storage: accel_sparse_grid_storage_floats() floats
   *
   * The host reference of accel_sparse_grid_gather().
   *
   * Returns: 0.
   */
  int accel_sparse_grid_gather_host (
      const AccelSparseGrid *g, const float *dense, float *storage);

  /**
   * accel_sparse_grid_scatter:
   * @stream: a cudaStream_t
   * @g: a grid in device memory
   * @storage: accel_sparse_grid_storage_floats() floats, device memory
   * @dense: nx * ny floats, device memory
   * @zero_inactive: nonzero to set the cells of other blocks to 0
   *
   * Copies the listed blocks' storage into their cells of the dense field;
   * cells of other blocks are set to 0 when @zero_inactive, else left as
   * they are.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_sparse_grid_scatter (void *stream, const AccelSparseGrid *g,
      const float *storage, float *dense, int zero_inactive);
  /**
   * accel_sparse_grid_scatter_host:
   * @g: a grid in host memory
   * @storage: accel_sparse_grid_storage_floats() floats
   * @dense: nx * ny floats
   * @zero_inactive: nonzero to set the cells of other blocks to 0
   *
   * The host reference of accel_sparse_grid_scatter().
   *
   * Returns: 0.
   */
  int accel_sparse_grid_scatter_host (const AccelSparseGrid *g,
      const float *storage, float *dense, int zero_inactive);

  /**
   * accel_sparse_grid_diffuse:
   * @stream: a cudaStream_t
   * @g: a grid in device memory
   * @src: a storage array, device memory
   * @dst: another storage array, device memory
   * @k: the diffusion rate
   *
   * One explicit diffusion step within the listed blocks, 5-point stencil:
   * dst = c + k * (w + e + s + n - 4 c); neighbours in other blocks or
   * outside the domain read as 0. The result is exact: host and GPU round
   * every step alike.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_sparse_grid_diffuse (void *stream, const AccelSparseGrid *g,
      const float *src, float *dst, float k);
  /**
   * accel_sparse_grid_diffuse_host:
   * @g: a grid in host memory
   * @src: a storage array
   * @dst: another storage array
   * @k: the diffusion rate
   *
   * The host reference of accel_sparse_grid_diffuse().
   *
   * Returns: 0.
   */
  int accel_sparse_grid_diffuse_host (
      const AccelSparseGrid *g, const float *src, float *dst, float k);

#ifdef __cplusplus
}
#endif
