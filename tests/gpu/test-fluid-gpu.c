/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the fluid solver on the GPU against the host reference, step for step */
#include <cuda_runtime_api.h>
#include <math.h>

#include "accel-test.h"
#include "fluid/fluid.h"

static void
check (int status)
{
  g_assert_cmpstr (
      cudaGetErrorString (status), ==, cudaGetErrorString (cudaSuccess));
}

static void
compare_sizes (gconstpointer data)
{
  int n = GPOINTER_TO_INT (data);
  AccelFluidParams p = { n, 1.0f, 0.05f, 0.3f, 40, 10, 0.995f, n / 2.0f,
    n * 0.8f, n / 16.0f, 0.3f, -0.5f, 0.1f };
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  g_test_add_data_func ("/gpu/fluid/n=8", GINT_TO_POINTER (8), compare_sizes);
  g_test_add_data_func (
      "/gpu/fluid/n=127", GINT_TO_POINTER (127), compare_sizes);
  g_test_add_data_func (
      "/gpu/fluid/n=512", GINT_TO_POINTER (512), compare_sizes);
  return g_test_run ();
}
