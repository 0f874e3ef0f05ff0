/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: the host implementation of the convolution: a direct
 * convolution in plain C, accumulated in double */
#define G_LOG_DOMAIN "accel-dnn"

#include <math.h>

#include "accelconvhost.h"

static inline double
activate (double x, AccelDnnActivation activation)
{
  switch (activation)
    {
    case ACCEL_DNN_ACTIVATION_RELU:
      return MAX (x, 0.0);
    case ACCEL_DNN_ACTIVATION_SIGMOID:
      return 1.0 / (1.0 + exp (-x));
    case ACCEL_DNN_ACTIVATION_TANH:
      return tanh (x);
    case ACCEL_DNN_ACTIVATION_ELU:
      return x > 0.0 ? x : expm1 (x);
    default:
      return x;
    }
}

/* the taps of one filter row or column that fall inside the input: the
 * first and one past the last, for the window starting at @start */
static inline void
tap_range (gint64 start, gint64 dilation, gint64 taps, gint64 size,
    gint64 *first, gint64 *end)
{
  gint64 lo = 0, hi = taps;

  if (start >= size)
    {
      *first = *end = 0;
      return;
    }
  if (start < 0)
    lo = (-start + dilation - 1) / dilation;
  if (start + (taps - 1) * dilation >= size)
    hi = (size - 1 - start) / dilation + 1;
  *first = MIN (lo, taps);
  *end = MAX (hi, *first);
}

/**
 * accel_conv2d_host_f32:
 * @shape: the negotiated convolution
 * @in: the input, [n, c, h, w]
 * @weights: the filters, [k, c / groups, r, s]
 * @bias: (nullable): one value per output channel, [k]
 * @alpha: factor of the convolution
 * @activation: applied to each output element
 * @out: (out caller-allocates): the output, [n, k, p, q]
 *
 * out = activation (alpha conv (in, weights) + bias), straight from the
 * definition: each output element sums its window in double. Taps outside
 * the input read the zero padding and are skipped. MT safe.
 */
void
accel_conv2d_host_f32 (const AccelConvShape *shape, const float *in,
    const float *weights, const float *bias, double alpha,
    AccelDnnActivation activation, float *out)
{
  const AccelConvShape *s = shape;
  gint64 cg = s->c / s->groups, kg = s->k / s->groups;

  for (gint64 n = 0; n < s->n; n++)
    for (gint64 k = 0; k < s->k; k++)
      {
        gint64 c0 = (k / kg) * cg;
        const float *wk = weights + k * cg * s->r * s->s;
        float *outk = out + (n * s->k + k) * s->p * s->q;

        for (gint64 p = 0; p < s->p; p++)
          {
            gint64 y0 = p * s->stride_h - s->pad_h, r0, r1;

            tap_range (y0, s->dilation_h, s->r, s->h, &r0, &r1);
            for (gint64 q = 0; q < s->q; q++)
              {
                gint64 x0 = q * s->stride_w - s->pad_w, s0, s1;
                double sum = 0.0;

                tap_range (x0, s->dilation_w, s->s, s->w, &s0, &s1);
                for (gint64 c = 0; c < cg; c++)
                  {
                    const float *inc = in + (n * s->c + c0 + c) * s->h * s->w;
                    const float *wc = wk + c * s->r * s->s;

                    for (gint64 r = r0; r < r1; r++)
                      {
                        const float *row
                            = inc + (y0 + r * s->dilation_h) * s->w + x0;
                        const float *wr = wc + r * s->s;

                        for (gint64 t = s0; t < s1; t++)
                          sum += (double)row[t * s->dilation_w] * wr[t];
                      }
                  }
                sum = alpha * sum + (bias ? bias[k] : 0.0);
                outk[p * s->q + q] = (float)activate (sum, activation);
              }
          }
      }
}
