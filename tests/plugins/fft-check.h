/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the FFT cases of the host and GPU tests: fresh inputs, the stage's output
 * and the naive DFT's, compared with a relative error bound per dtype */
#pragma once

#include <accel/accel.h>

typedef struct
{
  const char *path;
  const char *kind; /* fft.forward or fft.inverse */
  const char *type; /* the stage's type property */
  AccelDType dtype; /* of the input */
  gint n_dims;
  gint64 dims[4]; /* of the input */
  gint rank;      /* the stage's rank property */
  gint64 real_length;
  gboolean normalize;
} FftCase;

extern const FftCase fft_cases[];
extern const guint fft_n_cases;

/* f32/c64: 1e-5; f64/c128: 1e-12 */
double fft_tolerance (AccelDType dtype);

typedef struct
{
  GPtrArray *inputs;   /* GBytes of the input dtype, one per frame */
  GPtrArray *expected; /* double arrays, one per frame */
  gsize n_expected;    /* values in each */
} FftData;

FftData *fft_data_new (const FftCase *c, guint n_frames);
/* inputs only, for sizes beyond the naive DFT; a c2r case's input is the
 * host's r2c transform of a real signal */
FftData *fft_data_inputs_new (const FftCase *c, guint n_frames);
void fft_data_free (FftData *data);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FftData, fft_data_free)

/* the stage's outputs for @data, on the host or the default device */
GPtrArray *fft_case_run (const FftCase *c, const FftData *data, gboolean host);
/* asserts every output is within fft_tolerance() of the expected values;
 * returns the largest relative error */
double fft_case_check (const FftCase *c, const FftData *data, GPtrArray *out);
/* the largest relative error between two runs' outputs */
double fft_compare_runs (const FftCase *c, GPtrArray *a, GPtrArray *b);
