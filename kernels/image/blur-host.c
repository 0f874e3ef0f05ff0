/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* separable blurs: the host references and the Gaussian taps both sides
 * use */
#include <math.h>
#include <stdlib.h>

#include "blur.h"
#include "image-host.h"

typedef enum
{
  SEPARABLE_GAUSSIAN,
  SEPARABLE_BOX,
  SEPARABLE_UNSHARP,
} SeparableOp;

int
accel_gaussian_radius (float sigma)
{
  float r;

  if (!(sigma > 0.0f))
    return 0;
  r = ceilf (3.0f * sigma);
  if (r > (float)ACCEL_IMAGE_MAX_RADIUS)
    return ACCEL_IMAGE_MAX_RADIUS;
  return r < 1.0f ? 1 : (int)r;
}

int
accel_gaussian_weights (
    float sigma, float weights[2 * ACCEL_IMAGE_MAX_RADIUS + 1])
{
  int radius = accel_gaussian_radius (sigma);
  double w[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
  double sum = 0.0;

  if (radius == 0)
    return 0;
  for (int k = -radius; k <= radius; k++)
    {
      w[k + radius] = exp (-(double)(k * k) / (2.0 * sigma * sigma));
      sum += w[k + radius];
    }
  for (int k = 0; k <= 2 * radius; k++)
    weights[k] = (float)(w[k] / sum);
  return radius;
}

/* horizontal pass into a float plane, vertical pass out of it: the order
 * the GPU kernel keeps */
static int
separable_host (SeparableOp op, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int radius,
    const float *weights, float amount)
{
  const uint8_t *in = src;
  uint8_t *out = dst;
  int nc = accel_image_host_channels (format);
  float area = (float)((2 * radius + 1) * (2 * radius + 1));
  float *tmp;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || radius < 1 || radius > ACCEL_IMAGE_MAX_RADIUS)
    return ACCEL_IMAGE_INVALID_VALUE;
  tmp = malloc ((size_t)width * (size_t)height * (size_t)nc * sizeof (float));
  if (!tmp)
    return ACCEL_IMAGE_NO_MEMORY;

  for (int y = 0; y < height; y++)
    {
      const uint8_t *row = in + (size_t)y * src_pitch;
      for (int x = 0; x < width; x++)
        for (int c = 0; c < nc; c++)
          {
            float acc = 0.0f;
            for (int k = -radius; k <= radius; k++)
              {
                int xi = accel_image_host_clamp (x + k, 0, width - 1);
                float v = accel_image_host_load (format, row, xi, c);
                acc = op == SEPARABLE_BOX ? acc + v
                                          : fmaf (weights[k + radius], v, acc);
              }
            tmp[((size_t)y * width + x) * nc + c] = acc;
          }
    }

  for (int y = 0; y < height; y++)
    {
      const uint8_t *row = in + (size_t)y * src_pitch;
      uint8_t *orow = out + (size_t)y * dst_pitch;
      for (int x = 0; x < width; x++)
        for (int c = 0; c < nc; c++)
          {
            float acc = 0.0f, v;
            for (int k = -radius; k <= radius; k++)
              {
                int yi = accel_image_host_clamp (y + k, 0, height - 1);
                float t = tmp[((size_t)yi * width + x) * nc + c];
                acc = op == SEPARABLE_BOX ? acc + t
                                          : fmaf (weights[k + radius], t, acc);
              }
            if (op == SEPARABLE_BOX)
              v = acc / area;
            else if (op == SEPARABLE_UNSHARP)
              {
                float centre = accel_image_host_load (format, row, x, c);
                v = c == 3 ? centre : accel_px_unsharp (centre, acc, amount);
              }
            else
              v = acc;
            accel_image_host_store (format, orow, x, c, v);
          }
    }
  free (tmp);
  return ACCEL_IMAGE_OK;
}

int
accel_gaussian_blur_host (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float sigma)
{
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
  int radius = accel_gaussian_weights (sigma, w);

  if (radius == 0)
    return ACCEL_IMAGE_INVALID_VALUE;
  return separable_host (SEPARABLE_GAUSSIAN, format, src, src_pitch, dst,
      dst_pitch, width, height, radius, w, 0.0f);
}

int
accel_box_blur_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int radius)
{
  return separable_host (SEPARABLE_BOX, format, src, src_pitch, dst, dst_pitch,
      width, height, radius, NULL, 0.0f);
}

int
accel_unsharp_mask_host (int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, float amount,
    float sigma)
{
  float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
  int radius = accel_gaussian_weights (sigma, w);

  if (radius == 0)
    return ACCEL_IMAGE_INVALID_VALUE;
  return separable_host (SEPARABLE_UNSHARP, format, src, src_pitch, dst,
      dst_pitch, width, height, radius, w, amount);
}
