/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bilinear resize: the host reference. Each output sample is
 * lerp (lerp (top taps), lerp (bottom taps)), so a source row's horizontal
 * lerps are made once, kept while the next output row needs them, and the
 * vertical lerp runs over whole rows.
 *
 * From uint8 samples no lerp leaves [0, 255]: the weights lie in [0, 1)
 * (accel_px_resize_tap ()), so fmaf (t, b - a, a) lies between a and b,
 * which are floats, and rounding never crosses them; the uint8 results are
 * rounded without accel_px_to_u8 ()'s clamp, which could not change them. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host/parallel.h"
#include "host/simd.h"
#include "image-host.h"
#include "resize.h"

typedef struct
{
  int format;
  const uint8_t *in;
  size_t src_pitch;
  int src_width;
  int src_height;
  uint8_t *out;
  size_t dst_pitch;
  int dst_width;
  int dst_height;
  float sy;
  /* per output column: the two source columns and the second's weight */
  const int *x0;
  const int *x1;
  const float *tx;
  /* x0[x] = x0[0] + 2 x and x1[x] = x0[x] + 1 (halving): each output
   * pixel's two source pixels are the next two in the row */
  int pairs;
  atomic_int no_memory;
} Resize;

/* source row @sy lerped to the output's columns, through @f, the row as
 * floats */
static inline void
resize_horizontal (
    const Resize *r, int sy, float *restrict f, float *restrict h)
{
  accel_image_host_load_row (
      r->format, r->in + (size_t)sy * r->src_pitch, r->src_width, f);
  if (r->format == ACCEL_IMAGE_GRAY8)
    for (int x = 0; x < r->dst_width; x++)
      h[x] = accel_px_lerp (f[r->x0[x]], f[r->x1[x]], r->tx[x]);
  else
    for (int x = 0; x < r->dst_width; x++)
      {
        const float *a = f + (size_t)r->x0[x] * 4;
        const float *b = f + (size_t)r->x1[x] * 4;
#pragma GCC unroll 4
        for (int c = 0; c < 4; c++)
          h[(size_t)x * 4 + c] = accel_px_lerp (a[c], b[c], r->tx[x]);
      }
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RESIZE_WORDS 1
#else
#define RESIZE_WORDS 0
#endif

/* RGBA8 and BGRA8 on little endian hosts: source pixels read as 32-bit
 * words, the lerps kept in one plane per channel (@h: four planes of the
 * output's width), so that each loop runs over whole vectors of pixels */
static inline void
resize_horizontal_words (const Resize *r, int sy, float *restrict h)
{
  const uint8_t *restrict row = r->in + (size_t)sy * r->src_pitch;
  const int *restrict x0 = r->x0, *restrict x1 = r->x1;
  const float *restrict tx = r->tx;
  size_t ow = (size_t)r->dst_width;

  /* the same lerps, read in order instead of gathered */
  if (r->pairs)
    {
      const uint8_t *restrict pair = row + (size_t)x0[0] * 4;
      for (size_t x = 0; x < ow; x++)
        {
          uint32_t a, b;
          memcpy (&a, pair + 8 * x, sizeof (a));
          memcpy (&b, pair + 8 * x + 4, sizeof (b));
#pragma GCC unroll 4
          for (int c = 0; c < 4; c++)
            h[c * ow + x] = accel_px_lerp ((float)((a >> (8 * c)) & 0xff),
                (float)((b >> (8 * c)) & 0xff), tx[x]);
        }
      return;
    }
  for (size_t x = 0; x < ow; x++)
    {
      uint32_t a, b;
      memcpy (&a, row + (size_t)x0[x] * 4, sizeof (a));
      memcpy (&b, row + (size_t)x1[x] * 4, sizeof (b));
#pragma GCC unroll 4
      for (int c = 0; c < 4; c++)
        h[c * ow + x] = accel_px_lerp ((float)((a >> (8 * c)) & 0xff),
            (float)((b >> (8 * c)) & 0xff), tx[x]);
    }
}

static inline void
resize_vertical_words (const Resize *r, const float *restrict top,
    const float *restrict bottom, float ty, uint8_t *restrict orow)
{
  size_t ow = (size_t)r->dst_width;

  for (size_t x = 0; x < ow; x++)
    {
      uint32_t word = 0;
#pragma GCC unroll 4
      for (int c = 0; c < 4; c++)
        word |= (uint32_t)accel_px_round_u8 (
                    accel_px_lerp (top[c * ow + x], bottom[c * ow + x], ty))
                << (8 * c);
      memcpy (orow + 4 * x, &word, sizeof (word));
    }
}

/* Exact 2x upscales of 8-bit formats: each output sample's taps weigh 1/4
 * and 3/4 each way (or coincide at the edges, where the clamped neighbour
 * is the pixel itself), so every lerp of bytes is a multiple of 1/16
 * below 256, exact in floats, and the same sums in integers give the same
 * bytes, as on the GPU: a source row becomes 4 x its horizontal lerps plus
 * 2 (a quarter of the rounding half) in 16-bit samples, an output row
 * (3 x the nearer of those rows + the farther) >> 4. */

/* 4 x the horizontal lerps + 2 of pixel @m, between @a and @b, into @o:
 * @c channels, a literal where it is called, so that the loops unroll */
static inline void
up2_pixel (const uint8_t *restrict a, const uint8_t *restrict m,
    const uint8_t *restrict b, int c, uint16_t *restrict o)
{
  for (int k = 0; k < c; k++)
    {
      o[k] = (uint16_t)(a[k] + 3 * m[k] + 2);
      o[c + k] = (uint16_t)(3 * m[k] + b[k] + 2);
    }
}

/* source row @s of @w pixels of @c channels, lerped: the edge pixels are
 * their own clamped neighbours */
static inline void
up2_horizontal (const uint8_t *restrict s, int w, int c, uint16_t *restrict h)
{
  up2_pixel (s, s, s + (w > 1 ? c : 0), c, h);
  for (int n = 1; n < w - 1; n++)
    up2_pixel (s + (size_t)(n - 1) * c, s + (size_t)n * c,
        s + (size_t)(n + 1) * c, c, h + (size_t)2 * n * c);
  if (w > 1)
    up2_pixel (s + (size_t)(w - 2) * c, s + (size_t)(w - 1) * c,
        s + (size_t)(w - 1) * c, c, h + (size_t)2 * (w - 1) * c);
}

/* source row @sy into @h */
static inline void
up2_row (const Resize *r, int sy, uint16_t *restrict h)
{
  const uint8_t *s = r->in + (size_t)sy * r->src_pitch;

  if (r->format == ACCEL_IMAGE_GRAY8)
    up2_horizontal (s, r->src_width, 1, h);
  else
    up2_horizontal (s, r->src_width, 4, h);
}

ACCEL_HOST_SIMD static void
resize_rows_up2 (void *data, int y0, int y1)
{
  Resize *r = data;
  int c = accel_image_host_channels (r->format);
  size_t n = (size_t)r->dst_width * (size_t)c;
  uint16_t *rows = malloc (3 * n * sizeof (uint16_t));
  /* the source row each of the three rows holds */
  int held[3] = { -1, -1, -1 };

  if (!rows)
    {
      atomic_store (&r->no_memory, 1);
      return;
    }
  for (int y = y0; y < y1; y++)
    {
      /* output row 2k + 1 is nearer source row k, then k + 1; row 2k
       * nearer k, then k - 1 */
      int k = y / 2, far = y % 2 ? k + 1 : k - 1;
      const uint16_t *restrict near_h, *restrict far_h;
      uint8_t *restrict orow = r->out + (size_t)y * r->dst_pitch;

      far = far < 0 ? 0 : (far > r->src_height - 1 ? r->src_height - 1 : far);
      /* source row s lives in slot s % 3: the three a band touches in
       * turn, never two at once in one slot */
      if (held[k % 3] != k)
        {
          up2_row (r, k, rows + (size_t)(k % 3) * n);
          held[k % 3] = k;
        }
      if (held[far % 3] != far)
        {
          up2_row (r, far, rows + (size_t)(far % 3) * n);
          held[far % 3] = far;
        }
      near_h = rows + (size_t)(k % 3) * n;
      far_h = rows + (size_t)(far % 3) * n;
      for (size_t i = 0; i < n; i++)
        orow[i] = (uint8_t)((3 * near_h[i] + far_h[i]) >> 4);
    }
  free (rows);
}

ACCEL_HOST_SIMD static void
resize_rows (void *data, int y0, int y1)
{
  Resize *r = data;
  size_t n = (size_t)r->dst_width * accel_image_host_channels (r->format);
  size_t src_n = (size_t)r->src_width * accel_image_host_channels (r->format);
  float *rows[2], *out, *f;
  int held[2] = { -1, -1 };
  int use_words = RESIZE_WORDS && r->format != ACCEL_IMAGE_RGBAF32
                  && accel_image_host_channels (r->format) == 4;

  rows[0] = malloc ((3 * n + src_n) * sizeof (float));
  if (!rows[0])
    {
      atomic_store (&r->no_memory, 1);
      return;
    }
  rows[1] = rows[0] + n;
  out = rows[1] + n;
  f = out + n;
  for (int y = y0; y < y1; y++)
    {
      int t0, t1;
      float ty;
      const float *restrict top, *restrict bottom;

      accel_px_resize_tap (y, r->sy, r->src_height, &t0, &t1, &ty);
      /* keep the row the previous output row shared, make the other */
      if (held[0] != t0 && held[1] != t0)
        {
          int slot = held[0] == t1 ? 1 : 0;
          if (use_words)
            resize_horizontal_words (r, t0, rows[slot]);
          else
            resize_horizontal (r, t0, f, rows[slot]);
          held[slot] = t0;
        }
      if (held[0] != t1 && held[1] != t1)
        {
          int slot = held[0] == t0 ? 1 : 0;
          if (use_words)
            resize_horizontal_words (r, t1, rows[slot]);
          else
            resize_horizontal (r, t1, f, rows[slot]);
          held[slot] = t1;
        }
      top = rows[held[0] == t0 ? 0 : 1];
      bottom = rows[held[0] == t1 ? 0 : 1];
      if (use_words)
        resize_vertical_words (
            r, top, bottom, ty, r->out + (size_t)y * r->dst_pitch);
      else if (r->format == ACCEL_IMAGE_RGBAF32)
        {
          for (size_t i = 0; i < n; i++)
            out[i] = accel_px_lerp (top[i], bottom[i], ty);
          accel_image_host_store_row (
              r->format, r->out + (size_t)y * r->dst_pitch, r->dst_width, out);
        }
      else
        {
          uint8_t *restrict orow = r->out + (size_t)y * r->dst_pitch;
          for (size_t i = 0; i < n; i++)
            orow[i] = accel_px_round_u8 (accel_px_lerp (top[i], bottom[i], ty));
        }
    }
  free (rows[0]);
}

int
accel_resize_host (int format, const void *src, size_t src_pitch, int src_width,
    int src_height, void *dst, size_t dst_pitch, int dst_width, int dst_height)
{
  Resize r = {
    .format = format,
    .in = src,
    .src_pitch = src_pitch,
    .src_width = src_width,
    .src_height = src_height,
    .out = dst,
    .dst_pitch = dst_pitch,
    .dst_width = dst_width,
    .dst_height = dst_height,
  };
  float sx;
  int *x0, *x1;
  float *tx;

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, src_width, src_height)
      || !accel_image_args_valid (
          format, dst, dst_pitch, dst_width, dst_height))
    return ACCEL_IMAGE_INVALID_VALUE;
  sx = (float)src_width / (float)dst_width;
  r.sy = (float)src_height / (float)dst_height;
  x0 = malloc ((size_t)dst_width * (2 * sizeof (int) + sizeof (float)));
  if (!x0)
    return ACCEL_IMAGE_NO_MEMORY;
  x1 = x0 + dst_width;
  tx = (float *)(x1 + dst_width);
  r.pairs = 1;
  for (int x = 0; x < dst_width; x++)
    {
      accel_px_resize_tap (x, sx, src_width, &x0[x], &x1[x], &tx[x]);
      r.pairs &= x0[x] == x0[0] + 2 * x && x1[x] == x0[x] + 1;
    }
  r.x0 = x0;
  r.x1 = x1;
  r.tx = tx;
  atomic_init (&r.no_memory, 0);
  accel_host_parallel_rows (dst_height,
      accel_host_min_rows (
          (size_t)dst_width * accel_image_bytes_per_pixel (format)),
      format != ACCEL_IMAGE_RGBAF32 && dst_width == 2 * src_width
              && dst_height == 2 * src_height
          ? resize_rows_up2
          : resize_rows,
      &r);
  free (x0);
  return atomic_load (&r.no_memory) ? ACCEL_IMAGE_NO_MEMORY : ACCEL_IMAGE_OK;
}
