/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the convolution cases of the dnn tests, host and GPU: fresh random
 * inputs, the stage's outputs and a plain C double precision reference */
#pragma once

#include <accel/accel.h>

typedef struct
{
  const char *path;
  const char *kind; /* dnn.conv2d or dnn.conv2d-bias */
  AccelDType dtype;
  /* in [n, c, h, w], weights [k, c / groups, r, s] */
  gint64 n, c, h, w, k, r, s;
  gint pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w, groups;
  const char *activation; /* NULL for none */
  double alpha;
} DnnCase;

/* f32: 1e-5, f16: 1e-2 */
double dnn_tolerance (AccelDType dtype);

typedef struct
{
  guint n_inputs;
  const char *ports[3];
  AccelType types[3];
  GPtrArray *inputs[3]; /* GBytes, one per frame */
  GPtrArray *expected;  /* double arrays, one per frame; empty without a
                           reference */
  gint64 p, q;          /* output rows and columns */
  gsize n_expected;
} DnnData;

/* @n_frames of fresh inputs; the reference only when @reference */
DnnData *dnn_data_new (const DnnCase *c, guint n_frames, gboolean reference);
void dnn_data_free (DnnData *data);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DnnData, dnn_data_free)

/* a source per input -> @c's stage (named "stage") -> sink "sink", not
 * run; on the host device when @host */
AccelGraph *dnn_graph_new (
    const DnnCase *c, const DnnData *data, gboolean host);
GPtrArray *dnn_case_run (const DnnCase *c, const DnnData *data, gboolean host);
/* asserts every output is within dnn_tolerance() of the reference;
 * returns the largest relative error */
double dnn_case_check (const DnnCase *c, const DnnData *data, GPtrArray *out);
/* the largest relative error of run @a against run @b */
double dnn_compare_runs (const DnnCase *c, GPtrArray *a, GPtrArray *b);
