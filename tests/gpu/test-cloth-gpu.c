/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the cloth on the GPU against the host reference, step for step and frame
 * for frame, equal to the bit */
#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "cloth/cloth.h"

static void
check (int status)
{
  g_assert_cmpstr (
      cudaGetErrorString (status), ==, cudaGetErrorString (cudaSuccess));
}

typedef struct
{
  int w, h, frame_w, frame_h;
  int pin, iterations, solver;
  int path; /* an AccelClothPath */
} Size;

static void
compare (gconstpointer data)
{
  const Size *z = data;
  AccelClothParams p;
  AccelClothView v;
  size_t size = accel_cloth_state_size (z->w, z->h);
  size_t frame = (size_t)z->frame_w * z->frame_h * 4;
  size_t pitch = (size_t)z->frame_w * 4 + 64; /* wider than the frame */
  g_autofree guint8 *host = g_malloc0 (size), *back = g_malloc (size);
  g_autofree guint8 *host_rgba = g_malloc (pitch * z->frame_h);
  g_autofree guint8 *gpu_rgba = g_malloc (pitch * z->frame_h);
  g_autofree guint64 *host_depth = NULL;
  AccelClothState hs, ds;
  cudaStream_t stream;
  void *dev, *dev_rgba, *dev_depth;

  accel_cloth_params_init (&p, z->w, z->h);
  p.pin = z->pin;
  p.iterations = z->iterations;
  p.solver = z->solver;
  p.wind[0] = 1.5f;
  p.wind[2] = 6.0f;
  p.sphere[1] = -0.5f;
  p.sphere[2] = 0.2f;
  p.sphere[3] = 0.4f;
  accel_cloth_view_init (&v, &p, z->frame_w, z->frame_h);
  host_depth = g_new (guint64, accel_cloth_depth_size (&v));
  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  check (cudaMalloc (&dev, size));
  check (cudaMalloc (&dev_rgba, pitch * z->frame_h));
  check (cudaMalloc (&dev_depth, accel_cloth_depth_size (&v) * 8));
  /* poison: a value not written shows */
  check (cudaMemsetAsync (dev, 0xcd, size, stream));
  accel_cloth_state_init (&hs, host, z->w, z->h);
  accel_cloth_state_init (&ds, dev, z->w, z->h);
  check (accel_cloth_reset (stream, &p, &ds));
  g_assert_cmpint (accel_cloth_reset_host (&p, &hs), ==, 0);

  for (int k = 1; k <= 30; k++)
    {
      /* a grab in the middle steps: a vertex held off the plane */
      p.grab = k >= 10 && k < 20 ? (z->h / 2) * z->w + z->w / 2 : -1;
      p.grab_pos[2] = 0.3f;
      check (accel_cloth_step_path (stream, &p, &ds, z->path));
      g_assert_cmpint (accel_cloth_step_host (&p, &hs), ==, 0);
      if (k % 5 != 0)
        continue;
      check (cudaMemcpyAsync (back, dev, size, cudaMemcpyDeviceToHost, stream));
      check (cudaStreamSynchronize (stream));
      /* every array, Jacobi's scratch included (Gauss-Seidel never
       * touches it: poisoned here, zero on the host) */
      if (z->solver == ACCEL_CLOTH_SOLVER_JACOBI)
        g_assert_cmpmem (back, size, host, size);
      else
        g_assert_cmpmem (back, accel_cloth_persistent_size (z->w, z->h), host,
            accel_cloth_persistent_size (z->w, z->h));

      check (cudaMemsetAsync (dev_rgba, 0xcd, pitch * z->frame_h, stream));
      check (cudaMemsetAsync (
          dev_depth, 0x5a, accel_cloth_depth_size (&v) * 8, stream));
      memset (host_rgba, 0xcd, pitch * z->frame_h);
      memset (host_depth, 0x5a, accel_cloth_depth_size (&v) * 8);
      check (
          accel_cloth_render (stream, &p, &ds, &v, dev_depth, dev_rgba, pitch));
      g_assert_cmpint (
          accel_cloth_render_host (&p, &hs, &v, host_depth, host_rgba, pitch),
          ==, 0);
      check (cudaMemcpyAsync (gpu_rgba, dev_rgba, pitch * z->frame_h,
          cudaMemcpyDeviceToHost, stream));
      check (cudaStreamSynchronize (stream));
      /* the padding past each row is never written */
      g_assert_cmpmem (
          gpu_rgba, pitch * z->frame_h, host_rgba, pitch * z->frame_h);
      g_assert_cmpuint (gpu_rgba[frame / z->frame_h], ==, 0xcd);
    }
  check (cudaFree (dev));
  check (cudaFree (dev_rgba));
  check (cudaFree (dev_depth));
  check (cudaStreamDestroy (stream));
}

/* vertices far off the frame, and a NaN one, draw the same on both sides
 * (a float out of int's range converts differently on each, so the raster
 * clamps its box first) */
static void
test_render_off_frame (void)
{
  AccelClothParams p;
  AccelClothView v;
  size_t size, pitch = 64 * 4;
  g_autofree guint8 *host = NULL, *host_rgba = g_malloc (pitch * 48);
  g_autofree guint8 *gpu_rgba = g_malloc (pitch * 48);
  g_autofree guint64 *host_depth = NULL;
  AccelClothState hs, ds;
  cudaStream_t stream;
  void *dev, *dev_rgba, *dev_depth;

  accel_cloth_params_init (&p, 9, 7);
  accel_cloth_view_init (&v, &p, 64, 48);
  size = accel_cloth_state_size (p.w, p.h);
  host = g_malloc0 (size);
  host_depth = g_new (guint64, accel_cloth_depth_size (&v));
  accel_cloth_state_init (&hs, host, p.w, p.h);
  g_assert_cmpint (accel_cloth_reset_host (&p, &hs), ==, 0);
  /* past int's range in pixels, yet with no product overflowing: an
   * infinite one could make a NaN depth, whose bits differ between the two */
  hs.x[10] = 3e8f;
  hs.y[11] = -3e8f;
  hs.x[30] = NAN;
  hs.z[40] = 1e9f;
  hs.y[50] = 4e8f;

  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  check (cudaMalloc (&dev, size));
  check (cudaMalloc (&dev_rgba, pitch * 48));
  check (cudaMalloc (&dev_depth, accel_cloth_depth_size (&v) * 8));
  check (cudaMemcpyAsync (dev, host, size, cudaMemcpyHostToDevice, stream));
  accel_cloth_state_init (&ds, dev, p.w, p.h);
  check (accel_cloth_render (stream, &p, &ds, &v, dev_depth, dev_rgba, pitch));
  g_assert_cmpint (
      accel_cloth_render_host (&p, &hs, &v, host_depth, host_rgba, pitch), ==,
      0);
  check (cudaMemcpyAsync (
      gpu_rgba, dev_rgba, pitch * 48, cudaMemcpyDeviceToHost, stream));
  check (cudaStreamSynchronize (stream));
  g_assert_cmpmem (gpu_rgba, pitch * 48, host_rgba, pitch * 48);
  check (cudaFree (dev));
  check (cudaFree (dev_rgba));
  check (cudaFree (dev_depth));
  check (cudaStreamDestroy (stream));
}

static void
test_invalid (void)
{
  AccelClothParams p;
  AccelClothState s = { 0 };

  accel_cloth_params_init (&p, 1, 5);
  g_assert_cmpint (accel_cloth_step (NULL, &p, &s), ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_cloth_step_host (&p, &s), !=, 0);
  accel_cloth_params_init (&p, 4, 5);
  p.solver = 7;
  g_assert_cmpint (accel_cloth_step (NULL, &p, &s), ==, cudaErrorInvalidValue);
  g_assert_cmpint (accel_cloth_step_host (&p, &s), !=, 0);
  p.solver = ACCEL_CLOTH_SOLVER_JACOBI;
  g_assert_cmpint (
      accel_cloth_step_path (NULL, &p, &s, 3), ==, cudaErrorInvalidValue);
}

/* the fused step takes bands of at most 512 vertices: 64 x 128 (16 bands
 * of 8 rows, a case below) but not 64 x 129, nor one band of two rows
 * wider than 256; those take the launches */
static void
test_fused_threshold (void)
{
  AccelClothParams p;
  AccelClothState s = { 0 };

  accel_cloth_params_init (&p, 64, 129);
  g_assert_cmpint (accel_cloth_step_path (NULL, &p, &s, ACCEL_CLOTH_PATH_FUSED),
      ==, cudaErrorNotSupported);
  accel_cloth_params_init (&p, 257, 2);
  g_assert_cmpint (accel_cloth_step_path (NULL, &p, &s, ACCEL_CLOTH_PATH_FUSED),
      ==, cudaErrorNotSupported);
}

/* odd sizes, each pin mode, an odd number of sweeps (rounded up for
 * Jacobi), each solver; a case without a path takes accel_cloth_step's
 * choice (the fused step up to its threshold, the launches past it) */
static const Size sizes[] = {
  { 2, 2, 16, 16, ACCEL_CLOTH_PIN_CORNERS, 20, ACCEL_CLOTH_SOLVER_JACOBI },
  { 7, 3, 33, 17, ACCEL_CLOTH_PIN_TOP_ROW, 3, ACCEL_CLOTH_SOLVER_JACOBI },
  { 48, 48, 173, 97, ACCEL_CLOTH_PIN_NONE, 20, ACCEL_CLOTH_SOLVER_JACOBI },
  { 129, 65, 640, 480, ACCEL_CLOTH_PIN_CORNERS, 11, ACCEL_CLOTH_SOLVER_JACOBI },
  { 3, 2, 16, 16, ACCEL_CLOTH_PIN_CORNERS, 4, ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL },
  { 11, 6, 33, 17, ACCEL_CLOTH_PIN_TOP_ROW, 3,
      ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL },
  { 129, 65, 640, 480, ACCEL_CLOTH_PIN_CORNERS, 11,
      ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL },
  /* the fused step (one kernel, a cluster of blocks, needing Hopper) at its
   * edges: one band (2 x 2, and 256 x 2 at 512 vertices), a last band of
   * one row (3 x 5), odd sizes (63 x 65: 13 bands of 5 rows), 64^2 (16
   * bands of 4) and the threshold at 64 wide (64 x 128); the launches
   * forced at 64^2, and taken just past the threshold (64 x 129). Between
   * them they split a vertex's 12 constraints over each number of threads
   * a block takes: 12 (2 x 2, 3 x 5, Gauss-Seidel at 64^2), 6 (Gauss-Seidel
   * at 63 x 65 and 64 x 128), 4 (Jacobi at 64^2), 3 (Jacobi at 63 x 65)
   * and 2 (Jacobi at 64 x 128 and 256 x 2) */
  { 2, 2, 16, 16, ACCEL_CLOTH_PIN_CORNERS, 20, ACCEL_CLOTH_SOLVER_JACOBI,
      ACCEL_CLOTH_PATH_FUSED },
  { 256, 2, 96, 16, ACCEL_CLOTH_PIN_NONE, 20, ACCEL_CLOTH_SOLVER_JACOBI,
      ACCEL_CLOTH_PATH_FUSED },
  { 3, 5, 16, 16, ACCEL_CLOTH_PIN_TOP_ROW, 3, ACCEL_CLOTH_SOLVER_JACOBI,
      ACCEL_CLOTH_PATH_FUSED },
  { 3, 5, 16, 16, ACCEL_CLOTH_PIN_TOP_ROW, 3, ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL,
      ACCEL_CLOTH_PATH_FUSED },
  /* two vertices a row: each colour is missing from some band's edge rows,
   * so some passes write nothing into a neighbour's halo */
  { 2, 9, 16, 16, ACCEL_CLOTH_PIN_NONE, 5, ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL,
      ACCEL_CLOTH_PATH_FUSED },
  { 63, 65, 160, 120, ACCEL_CLOTH_PIN_CORNERS, 11, ACCEL_CLOTH_SOLVER_JACOBI,
      ACCEL_CLOTH_PATH_FUSED },
  { 63, 65, 160, 120, ACCEL_CLOTH_PIN_CORNERS, 11,
      ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL, ACCEL_CLOTH_PATH_FUSED },
  { 64, 64, 160, 120, ACCEL_CLOTH_PIN_TOP_ROW, 20, ACCEL_CLOTH_SOLVER_JACOBI,
      ACCEL_CLOTH_PATH_FUSED },
  { 64, 64, 160, 120, ACCEL_CLOTH_PIN_TOP_ROW, 20,
      ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL, ACCEL_CLOTH_PATH_FUSED },
  { 64, 64, 160, 120, ACCEL_CLOTH_PIN_TOP_ROW, 20, ACCEL_CLOTH_SOLVER_JACOBI,
      ACCEL_CLOTH_PATH_KERNELS },
  { 64, 64, 160, 120, ACCEL_CLOTH_PIN_TOP_ROW, 20,
      ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL, ACCEL_CLOTH_PATH_KERNELS },
  { 64, 128, 120, 160, ACCEL_CLOTH_PIN_CORNERS, 20, ACCEL_CLOTH_SOLVER_JACOBI,
      ACCEL_CLOTH_PATH_FUSED },
  { 64, 128, 120, 160, ACCEL_CLOTH_PIN_CORNERS, 20,
      ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL, ACCEL_CLOTH_PATH_FUSED },
  { 64, 129, 120, 160, ACCEL_CLOTH_PIN_CORNERS, 20, ACCEL_CLOTH_SOLVER_JACOBI },
  { 64, 129, 120, 160, ACCEL_CLOTH_PIN_CORNERS, 20,
      ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL },
};

int
main (int argc, char **argv)
{
  static const char *paths[] = { "", "/fused", "/kernels" };

  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/gpu/cloth/%s/%dx%d/%dx%d%s",
          sizes[i].solver ? "gauss-seidel" : "jacobi", sizes[i].w, sizes[i].h,
          sizes[i].frame_w, sizes[i].frame_h, paths[sizes[i].path]);

      g_test_add_data_func (path, &sizes[i], compare);
    }
  g_test_add_func ("/gpu/cloth/render-off-frame", test_render_off_frame);
  g_test_add_func ("/gpu/cloth/invalid", test_invalid);
  g_test_add_func ("/gpu/cloth/fused-threshold", test_fused_threshold);
  return g_test_run ();
}
