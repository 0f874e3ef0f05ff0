/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a block-sparse 2D grid of float cells: the domain is cut into square
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
 * topology. Operations on one grid run one after the other (one stream). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    int32_t active;  /* blocks in the active list */
    int32_t dropped; /* active blocks left out: more than max_blocks */
  } AccelSparseGridCounts;

  typedef struct
  {
    int nx, ny;     /* cells of the dense domain, row-major, nx per row */
    int b;          /* cells per block side, 1 to 32 */
    int bx, by;     /* blocks per row and per column, rounded up */
    int max_blocks; /* storage capacity in blocks */
    AccelSparseGridCounts *counts;
    uint8_t *mask;  /* bx * by: nonzero where switched on */
    int32_t *table; /* bx * by: storage slot of a listed block, or -1 */
    int32_t *list;  /* max_blocks: block index of each slot, ascending */
    int32_t *scan;  /* scratch of the rebuild */
  } AccelSparseGrid;

  /* bytes of the topology of an nx x ny grid of b x b blocks */
  size_t accel_sparse_grid_size (int nx, int ny, int b, int max_blocks);
  /* points @g into @block of accel_sparse_grid_size () bytes; -1 for a
   * size out of range: b outside 1 to 32, max_blocks outside 1 to bx * by */
  int accel_sparse_grid_init (
      AccelSparseGrid *g, void *block, int nx, int ny, int b, int max_blocks);
  /* floats of one storage array */
  size_t accel_sparse_grid_storage_floats (const AccelSparseGrid *g);

  /* launchers return a cudaError_t, host references 0 */

  /* every block off, the list empty */
  int accel_sparse_grid_clear (void *stream, const AccelSparseGrid *g);
  int accel_sparse_grid_clear_host (const AccelSparseGrid *g);

  /* switches the blocks at @n (x, y) block coordinates, @coords[2 * i] and
   * @coords[2 * i + 1], on (@on nonzero) or off; coordinates outside the
   * grid are ignored. Takes effect at the next rebuild */
  int accel_sparse_grid_set_blocks (void *stream, const AccelSparseGrid *g,
      const int32_t *coords, size_t n, int on);
  int accel_sparse_grid_set_blocks_host (
      const AccelSparseGrid *g, const int32_t *coords, size_t n, int on);

  /* the list, the table and the counts from the mask: the switched-on
   * blocks in ascending block index, the first max_blocks of them kept */
  int accel_sparse_grid_rebuild (void *stream, const AccelSparseGrid *g);
  int accel_sparse_grid_rebuild_host (const AccelSparseGrid *g);

  /* the listed blocks' cells of the dense field (nx * ny floats) into
   * @storage; slots past the list are left as they are */
  int accel_sparse_grid_gather (void *stream, const AccelSparseGrid *g,
      const float *dense, float *storage);
  int accel_sparse_grid_gather_host (
      const AccelSparseGrid *g, const float *dense, float *storage);

  /* the listed blocks' storage into their cells of the dense field; cells
   * of other blocks are set to 0 when @zero_inactive, else left as they
   * are */
  int accel_sparse_grid_scatter (void *stream, const AccelSparseGrid *g,
      const float *storage, float *dense, int zero_inactive);
  int accel_sparse_grid_scatter_host (const AccelSparseGrid *g,
      const float *storage, float *dense, int zero_inactive);

  /* one explicit diffusion step within the listed blocks, 5-point stencil:
   * dst = c + k * (w + e + s + n - 4 c), neighbours in other blocks or
   * outside the domain read as 0; @src and @dst are distinct storage
   * arrays. The result is exact: host and GPU round every step alike */
  int accel_sparse_grid_diffuse (void *stream, const AccelSparseGrid *g,
      const float *src, float *dst, float k);
  int accel_sparse_grid_diffuse_host (
      const AccelSparseGrid *g, const float *src, float *dst, float k);

#ifdef __cplusplus
}
#endif
