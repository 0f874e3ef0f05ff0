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

typedef struct
{
  int n, pressure_iters;
} Size;

static void
compare_sizes (gconstpointer data)
{
  const Size *z = data;
  int n = z->n;
  AccelFluidParams p = { n, 1.0f, 0.05f, 0.3f, z->pressure_iters, 10, 0.995f,
    n / 2.0f, n * 0.8f, n / 16.0f, 0.3f, -0.5f, 0.1f };
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
  check (cudaMemset (dev, 0, size));
  /* poison: an unwritten pixel shows */
  check (cudaMemset (dev_rgba, 0xcd, frame));
  accel_fluid_fields_init (&hf, host, n);
  accel_fluid_fields_init (&df, dev, n);
  accel_fluid_fields_init (&bf, back, n);

  for (int k = 0; k < 25; k++)
    {
      check (accel_fluid_step (stream, &p, &df));
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

/* the same pressure field fused in shared memory as launched once an
 * iteration: both sides of the tiles, odd counts rounded up */
static void
test_pressure_fused (gconstpointer data)
{
  const Size *z = data;
  int n = z->n;
  AccelFluidParams p = { n, 1.0f, 0.0f, 0.0f, z->pressure_iters, 0 };
  size_t size = accel_fluid_state_size (n), field = (size_t)n * n * 4;
  g_autofree float *host = g_malloc (size), *fused = g_malloc (field);
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
  for (int fuse = 0; fuse < 2; fuse++)
    {
      check (cudaMemcpy (dev, host, size, cudaMemcpyHostToDevice));
      check (accel_fluid_pressure_solve (NULL, &p, &df, fuse));
      check (cudaMemcpy (
          fuse ? fused : plain, df.p, field, cudaMemcpyDeviceToHost));
    }
  g_assert_cmpmem (fused, field, plain, field);
  /* the iterations ran: the field moved */
  g_assert_cmpint (memcmp (plain, hf.p, field), !=, 0);
  cudaFree (dev);
}

int
main (int argc, char **argv)
{
  static const Size sizes[]
      = { { 8, 40 }, { 127, 40 }, { 512, 40 }, { 100, 13 }, { 33, 2 } };
  static const Size solves[]
      = { { 1, 6 }, { 31, 40 }, { 97, 13 }, { 2048, 40 } };

  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree gchar *path = g_strdup_printf (
          "/gpu/fluid/n=%d/iters=%d", sizes[i].n, sizes[i].pressure_iters);
      g_test_add_data_func (path, &sizes[i], compare_sizes);
    }
  for (guint i = 0; i < G_N_ELEMENTS (solves); i++)
    {
      g_autofree gchar *path
          = g_strdup_printf ("/gpu/fluid/pressure-fused/n=%d/iters=%d",
              solves[i].n, solves[i].pressure_iters);
      g_test_add_data_func (path, &solves[i], test_pressure_fused);
    }
  return g_test_run ();
}
