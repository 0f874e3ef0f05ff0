/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fft.forward and fft.inverse on a GPU (cuFFT): against the DFT from its
 * definition and against the host backend (FFTW) on the same fresh inputs,
 * with the same relative error bounds. Skips without a GPU. */
#include "accel-test.h"
#include "fft-check.h"
#include "tensor-io.h"

static void
test_case (gconstpointer data)
{
  const FftCase *c = data;
  g_autoptr (FftData) d = fft_data_new (c, 3);
  g_autoptr (GPtrArray) gpu = fft_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = fft_case_run (c, d, TRUE);
  double err = fft_case_check (c, d, gpu);
  double diff = fft_compare_runs (c, gpu, host);

  g_test_message (
      "%s: relative error %.3g, GPU against host %.3g", c->path, err, diff);
  g_assert_cmpfloat (diff, <=, 2 * fft_tolerance (c->dtype));
}

/* sizes beyond the naive DFT: GPU against host only */
static const FftCase large[] = {
  { "/fft-gpu/large/c2c/f32/1d", "fft.forward", "auto", ACCEL_DTYPE_C64, 1,
      { 1 << 20 } },
  { "/fft-gpu/large/c2c/f64/2d-batched", "fft.inverse", "auto",
      ACCEL_DTYPE_C128, 3, { 4, 512, 384 }, 2 },
  { "/fft-gpu/large/r2c/f64/1d-batched", "fft.forward", "auto", ACCEL_DTYPE_F64,
      2, { 256, 1000 }, 1 },
  { "/fft-gpu/large/c2r/f32/3d-normalized", "fft.inverse", "c2r",
      ACCEL_DTYPE_C64, 3, { 64, 64, 33 }, 0, 0, TRUE },
};

static void
test_large (gconstpointer data)
{
  const FftCase *c = data;
  g_autoptr (FftData) d = fft_data_inputs_new (c, 2);
  g_autoptr (GPtrArray) gpu = fft_case_run (c, d, FALSE);
  g_autoptr (GPtrArray) host = fft_case_run (c, d, TRUE);
  double diff = fft_compare_runs (c, gpu, host);

  g_test_message ("%s: GPU against host %.3g", c->path, diff);
  g_assert_cmpfloat (diff, <=, fft_tolerance (c->dtype));
}

int
main (int argc, char **argv)
{
  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < fft_n_cases; i++)
    {
      g_autofree gchar *path
          = g_strconcat ("/fft-gpu", fft_cases[i].path + 4, NULL);
      g_test_add_data_func (path, &fft_cases[i], test_case);
    }
  for (guint i = 0; i < G_N_ELEMENTS (large); i++)
    g_test_add_data_func (large[i].path, &large[i], test_large);
  return g_test_run ();
}
