/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* reference computations of the plugin tests, in double precision */
#pragma once

#include <accel/accel.h>

/* values (a complex number is two) of @dtype as doubles and back */
gsize test_values_per_element (AccelDType dtype);
double *test_to_double (AccelDType dtype, GBytes *data, gsize *n_values);
GBytes *test_from_double (AccelDType dtype, const double *values, gsize n);

/* ||out - ref|| / ||ref|| over @n values */
double test_rel_error (const double *out, const double *ref, gsize n);
/* ||out - ref|| / max (||ref||, @floor): for results whose error scales
 * with something larger than themselves */
double test_rel_error_floor (
    const double *out, const double *ref, gsize n, double floor);

/* a tensor's values as doubles: test_to_double() or a converter of its own
 * for the dtypes it knows */
typedef double *(*TestToDouble) (AccelDType dtype, GBytes *data, gsize *n);

/* asserts that each frame of @out (GBytes) has @n_expected values within
 * @tolerance of the matching @expected (double arrays); returns the
 * largest relative error */
double test_check_frames (TestToDouble to_double, AccelDType dtype,
    GPtrArray *out, GPtrArray *expected, gsize n_expected, double tolerance);
/* the largest relative error of frames @a against frames @b */
double test_compare_frames (
    TestToDouble to_double, AccelDType dtype, GPtrArray *a, GPtrArray *b);
/* the same, each frame's error against max (its norm, @floors[frame]) */
double test_check_frames_floored (TestToDouble to_double, AccelDType dtype,
    GPtrArray *out, GPtrArray *expected, gsize n_expected, double tolerance,
    const double *floors);
double test_compare_frames_floored (TestToDouble to_double, AccelDType dtype,
    GPtrArray *a, GPtrArray *b, const double *floors);

/* @n values uniform in [-1, 1) from g_test_rand_*: a fresh input per run */
double *test_random_values (gsize n);

/* the unnormalised DFT, straight from its definition, of @batch complex
 * transforms of @rank dimensions @dims (outermost first), interleaved */
void test_dft (const double *in, double *out, gint rank, const gint64 *dims,
    gint64 batch, int sign);

/* sample moments: mean, variance and fourth central moment */
void test_moments (
    const double *x, gsize n, double *mean, double *variance, double *m4);

/* Kolmogorov-Smirnov statistic of @x (sorted in place) against @cdf */
typedef double (*TestCdf) (double x, const double *parameters);
double test_ks_statistic (
    double *x, gsize n, TestCdf cdf, const double *parameters);
double test_cdf_uniform (double x, const double *low_high);
double test_cdf_normal (double x, const double *mean_stddev);
double test_cdf_log_normal (double x, const double *mean_stddev);

/* a random m x n CSR matrix of exactly @nnz entries, values in [-1, 1) */
typedef struct
{
  gint64 m, n, nnz;
  gint32 *row_offsets;
  gint32 *col_indices;
  double *values;
} TestCsr;

TestCsr *test_csr_random (gint64 m, gint64 n, gint64 nnz);
void test_csr_free (TestCsr *csr);
/* Y = alpha A X, X [n, k] row-major, through the dense matrix */
void test_csr_dense_product (
    const TestCsr *csr, const double *x, gint64 k, double alpha, double *y);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestCsr, test_csr_free)
