/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the fluid solver on the GPU against the host reference, step for step */
#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

#include "accel-test.h"
#include "fluid/fluid.h"

static void
check (int status)
{
  g_assert_cmpstr (
      cudaGetErrorString (status), ==, cudaGetErrorString (cudaSuccess));
}

/* a step as accel_fluid_step launches it, or by an AccelFluidPath */
#define AUTO -1

typedef struct
{
  int n, pressure_iters;
  int path;
  float viscosity;
} Size;

static const char *path_names[] = { "plain", "tiled", "fused" };

static void
compare_sizes (gconstpointer data)
{
  const Size *z = data;
  int n = z->n;
  AccelFluidParams p = { n, 1.0f, z->viscosity, 0.3f, z->pressure_iters, 10,
    0.995f, n / 2.0f, n * 0.8f, n / 16.0f, 0.3f, -0.5f, 0.1f };
  size_t size = accel_fluid_state_size (n);
  size_t frame = (size_t)n * n * 4;
  g_autofree guint8 *host = g_malloc0 (size), *back = g_malloc (size);
  g_autofree guint8 *host_rgba = g_malloc (frame), *gpu_rgba = g_malloc (frame);
  AccelFluidFields hf, df, bf;
  cudaStream_t stream;
  void *dev, *dev_rgba;

  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  check (cudaMalloc (&dev, size));
  check (cudaMalloc (&dev_rgba, frame));
  /* on the solver's stream: a non-blocking stream does not wait for the
   * legacy stream's cudaMemset () */
  check (cudaMemsetAsync (dev, 0, size, stream));
  /* poison: an unwritten pixel shows */
  check (cudaMemsetAsync (dev_rgba, 0xcd, frame, stream));
  accel_fluid_fields_init (&hf, host, n);
  accel_fluid_fields_init (&df, dev, n);
  accel_fluid_fields_init (&bf, back, n);

  for (int k = 0; k < 25; k++)
    {
      check (z->path == AUTO
                 ? accel_fluid_step (stream, &p, &df)
                 : accel_fluid_step_path (stream, &p, &df, z->path));
      accel_fluid_step_host (&p, &hf);
    }
  check (accel_fluid_render (stream, &p, &df, dev_rgba, (size_t)n * 4));
  accel_fluid_render_host (&p, &hf, host_rgba, (size_t)n * 4);
  check (cudaMemcpyAsync (back, dev, size, cudaMemcpyDeviceToHost, stream));
  check (cudaMemcpyAsync (
      gpu_rgba, dev_rgba, frame, cudaMemcpyDeviceToHost, stream));
  check (cudaStreamSynchronize (stream));

  /* the same arithmetic in the same order: equal, to the bit */
  for (int i = 0; i < n * n; i++)
    {
      g_assert_cmpfloat (bf.u[i], ==, hf.u[i]);
      g_assert_cmpfloat (bf.v[i], ==, hf.v[i]);
      g_assert_cmpfloat (bf.dye[i], ==, hf.dye[i]);
    }
  g_assert_cmpmem (gpu_rgba, frame, host_rgba, frame);

  cudaFree (dev);
  cudaFree (dev_rgba);
  cudaStreamDestroy (stream);
}

/* the same pressure field from the tiled kernels in shared memory as
 * launched once an iteration: both sides of the tiles, odd counts rounded
 * up */
static void
test_pressure_paths (gconstpointer data)
{
  const Size *z = data;
  int n = z->n;
  AccelFluidParams p = { n, 1.0f, 0.0f, 0.0f, z->pressure_iters, 0 };
  size_t size = accel_fluid_state_size (n), field = (size_t)n * n * 4;
  g_autofree float *host = g_malloc (size), *tiled = g_malloc (field);
  g_autofree float *plain = g_malloc (field);
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32)n);
  AccelFluidFields hf, df;
  void *dev;

  accel_fluid_fields_init (&hf, host, n);
  for (int i = 0; i < n * n; i++)
    {
      hf.p[i] = (float)g_rand_double_range (rand, -1.0, 1.0);
      hf.div[i] = (float)g_rand_double_range (rand, -0.5, 0.5);
    }
  check (cudaMalloc (&dev, size));
  accel_fluid_fields_init (&df, dev, n);
  for (int path = ACCEL_FLUID_PLAIN; path <= ACCEL_FLUID_FUSED; path++)
    {
      check (cudaMemcpy (dev, host, size, cudaMemcpyHostToDevice));
      check (accel_fluid_pressure_solve (NULL, &p, &df, path));
      check (cudaMemcpy (path == ACCEL_FLUID_PLAIN ? plain : tiled, df.p, field,
          cudaMemcpyDeviceToHost));
      if (path != ACCEL_FLUID_PLAIN)
        g_assert_cmpmem (tiled, field, plain, field);
    }
  /* the iterations ran: the field moved */
  g_assert_cmpint (memcmp (plain, hf.p, field), !=, 0);
  cudaFree (dev);
}

int
main (int argc, char **argv)
{
  /* the fused step on grids smaller than a tile (48), on both sides of its
   * edges and at odd sizes, up to the largest it takes (512); the plain
   * step just above; the other paths on a grid the fused one takes */
  static const Size sizes[] = { { 8, 40, AUTO, 0.05f },
    { 127, 40, AUTO, 0.05f }, { 512, 40, AUTO, 0.05f },
    { 100, 13, AUTO, 0.05f }, { 33, 2, AUTO, 0.05f }, { 61, 0, AUTO, 0.05f },
    { 47, 40, AUTO, 0.0f }, { 49, 40, AUTO, 0.0f }, { 97, 40, AUTO, 0.0f },
    { 511, 40, AUTO, 0.0f }, { 513, 40, AUTO, 0.05f },
    { 127, 40, ACCEL_FLUID_TILED, 0.05f }, { 127, 40, ACCEL_FLUID_PLAIN, 0.0f },
    { 600, 40, ACCEL_FLUID_FUSED, 0.0f } };
  static const Size solves[] = { { 1, 6 }, { 31, 40 }, { 47, 40 }, { 97, 13 },
    { 145, 40 }, { 2048, 40 } };

  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const Size *z = &sizes[i];
      g_autofree gchar *path = g_strdup_printf ("/gpu/fluid/%s/n=%d/iters=%d",
          z->path == AUTO ? "step" : path_names[z->path], z->n,
          z->pressure_iters);
      g_test_add_data_func (path, z, compare_sizes);
    }
  for (guint i = 0; i < G_N_ELEMENTS (solves); i++)
    {
      g_autofree gchar *path
          = g_strdup_printf ("/gpu/fluid/pressure/n=%d/iters=%d", solves[i].n,
              solves[i].pressure_iters);
      g_test_add_data_func (path, &solves[i], test_pressure_paths);
    }
  return g_test_run ();
}
