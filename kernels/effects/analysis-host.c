/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* frame analysis: the host references, a band of rows at a time */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "effects-pixel.h"
#include "host/parallel.h"
#include "host/simd.h"

static int
format_ok (int format)
{
  return format == ACCEL_IMAGE_RGBA8 || format == ACCEL_IMAGE_BGRA8;
}

/* the channel (R, G, B, A) at byte @c of a pixel of @format */
static int
channel_of (int format, int c)
{
  return format == ACCEL_IMAGE_BGRA8 && (c == 0 || c == 2) ? 2 - c : c;
}

static uint32_t
luma_of (int format, const uint8_t *p)
{
  int ri = channel_of (format, 0), bi = channel_of (format, 2);

  return accel_px_luma_u8 ((float)p[ri], (float)p[1], (float)p[bi]);
}

typedef struct
{
  int format;
  const uint8_t *src;
  size_t src_pitch;
  int width;
  int flags;
  uint8_t *previous;
  size_t previous_pitch;
  /* the totals, which each band adds its own counts to under @lock: the
   * counts are integers, so the order of the bands does not matter */
  GMutex lock;
  uint32_t *histogram;
  uint64_t *motion;
} Accumulate;

/* rows [y0, y1) counted into a histogram and motion sums of the band's
 * own, then added to the totals */
ACCEL_HOST_SIMD static void
accumulate_rows (void *data, int y0, int y1)
{
  Accumulate *a = data;
  const size_t nbins = ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS;
  uint32_t histogram[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS] = { 0 };
  uint64_t motion[ACCEL_ANALYSIS_CHANNELS] = { 0 };
  int format = a->format, flags = a->flags;

  for (int y = y0; y < y1; y++)
    {
      const uint8_t *row = a->src + (size_t)y * a->src_pitch;
      uint8_t *prow
          = a->previous ? a->previous + (size_t)y * a->previous_pitch : NULL;

      for (int x = 0; x < a->width; x++)
        {
          const uint8_t *p = row + 4 * (size_t)x;
          for (int c = 0; c < 4; c++)
            histogram[channel_of (format, c) * ACCEL_ANALYSIS_BINS + p[c]]++;
          if (flags & ACCEL_ANALYSIS_LUMA)
            histogram[ACCEL_ANALYSIS_LUMA_CHANNEL * ACCEL_ANALYSIS_BINS
                      + luma_of (format, p)]++;
          if (flags & ACCEL_ANALYSIS_MOTION)
            {
              const uint8_t *q = prow + 4 * (size_t)x;
              for (int c = 0; c < 4; c++)
                motion[channel_of (format, c)] += (uint64_t)abs (p[c] - q[c]);
              if (flags & ACCEL_ANALYSIS_LUMA)
                motion[ACCEL_ANALYSIS_LUMA_CHANNEL] += (uint64_t)abs (
                    (int)luma_of (format, p) - (int)luma_of (format, q));
            }
        }
      if (flags & ACCEL_ANALYSIS_KEEP)
        memcpy (prow, row, (size_t)a->width * 4);
    }
  g_mutex_lock (&a->lock);
  for (size_t i = 0; i < nbins; i++)
    a->histogram[i] += histogram[i];
  if (a->motion)
    for (int c = 0; c < ACCEL_ANALYSIS_CHANNELS; c++)
      a->motion[c] += motion[c];
  g_mutex_unlock (&a->lock);
}

int
accel_analysis_accumulate_host (int format, const void *src, size_t src_pitch,
    int width, int height, int flags, void *previous, size_t previous_pitch,
    uint32_t *histogram, uint64_t *motion)
{
  const size_t nbins = ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS;
  Accumulate a
      = { format, src, src_pitch, width, flags, previous, previous_pitch };

  if (!accel_analysis_accumulate_args_valid (format, src, src_pitch, width,
          height, flags, previous, previous_pitch, histogram, motion))
    return ACCEL_IMAGE_INVALID_VALUE;

  memset (histogram, 0, nbins * sizeof (uint32_t));
  if (motion)
    memset (motion, 0, ACCEL_ANALYSIS_CHANNELS * sizeof (uint64_t));
  g_mutex_init (&a.lock);
  a.histogram = histogram;
  a.motion = motion;
  accel_host_parallel_rows (
      height, accel_host_min_rows ((size_t)width * 4), accumulate_rows, &a);
  g_mutex_clear (&a.lock);
  return ACCEL_IMAGE_OK;
}

int
accel_analysis_stats_host (
    const uint32_t *histogram, const uint64_t *motion, float *stats)
{
  uint64_t pixels = 0;

  if (!histogram || !stats)
    return ACCEL_IMAGE_INVALID_VALUE;
  for (int c = 0; c < ACCEL_ANALYSIS_CHANNELS; c++)
    {
      const uint32_t *h = histogram + c * ACCEL_ANALYSIS_BINS;
      uint64_t count = 0, sum = 0, sq = 0;
      int lo = ACCEL_ANALYSIS_BINS, hi = -1;

      for (int v = 0; v < ACCEL_ANALYSIS_BINS; v++)
        {
          count += h[v];
          sum += (uint64_t)h[v] * (uint64_t)v;
          sq += (uint64_t)h[v] * (uint64_t)(v * v);
          if (h[v])
            {
              lo = lo < v ? lo : v;
              hi = v;
            }
        }
      if (c == 0)
        pixels = count;
      accel_fx_stats (count, sum, sq, lo, hi, motion ? motion[c] : 0, pixels,
          stats + c * ACCEL_ANALYSIS_STATS);
    }
  return ACCEL_IMAGE_OK;
}

/* the equalisation table of one histogram row */
static void
build_lut (const uint32_t *bins, uint8_t *lut)
{
  uint64_t n = 0, cdf = 0, cdf_min = 0;

  for (int v = 0; v < ACCEL_ANALYSIS_BINS; v++)
    n += bins[v];
  for (int v = 0; v < ACCEL_ANALYSIS_BINS; v++)
    if (bins[v])
      {
        cdf_min = bins[v];
        break;
      }
  for (int v = 0; v < ACCEL_ANALYSIS_BINS; v++)
    {
      cdf += bins[v];
      lut[v] = accel_fx_equalize_level (cdf, cdf_min, n, v);
    }
}

typedef struct
{
  int format;
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int width;
  int mode;
  uint8_t lut[3][ACCEL_ANALYSIS_BINS];
} Equalize;

ACCEL_HOST_SIMD static void
equalize_rows (void *data, int y0, int y1)
{
  const Equalize *e = data;
  int ri = channel_of (e->format, 0), bi = channel_of (e->format, 2);

  for (int y = y0; y < y1; y++)
    {
      const uint8_t *row = e->src + (size_t)y * e->src_pitch;
      uint8_t *orow = e->dst + (size_t)y * e->dst_pitch;

      if (e->mode == ACCEL_EQUALIZE_NONE)
        {
          memcpy (orow, row, (size_t)e->width * 4);
          continue;
        }
      for (int x = 0; x < e->width; x++)
        {
          const uint8_t *p = row + 4 * (size_t)x;
          uint8_t *q = orow + 4 * (size_t)x;

          if (e->mode == ACCEL_EQUALIZE_LUMA)
            {
              float r = (float)p[ri], g = (float)p[1], b = (float)p[bi];
              accel_fx_equalize_luma (e->lut[0], &r, &g, &b);
              q[ri] = accel_px_to_u8 (r);
              q[1] = accel_px_to_u8 (g);
              q[bi] = accel_px_to_u8 (b);
            }
          else
            for (int c = 0; c < 3; c++)
              q[c] = e->lut[channel_of (e->format, c)][p[c]];
          q[3] = p[3];
        }
    }
}

int
accel_equalize_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const uint32_t *histogram,
    int mode)
{
  Equalize e = { format, src, src_pitch, dst, dst_pitch, width, mode };

  if (!format_ok (format) || !histogram
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || mode < ACCEL_EQUALIZE_NONE || mode > ACCEL_EQUALIZE_CHANNELS)
    return ACCEL_IMAGE_INVALID_VALUE;

  if (mode == ACCEL_EQUALIZE_LUMA)
    build_lut (histogram + ACCEL_ANALYSIS_LUMA_CHANNEL * ACCEL_ANALYSIS_BINS,
        e.lut[0]);
  else if (mode == ACCEL_EQUALIZE_CHANNELS)
    for (int c = 0; c < 3; c++)
      build_lut (histogram + c * ACCEL_ANALYSIS_BINS, e.lut[c]);
  accel_host_parallel_rows (
      height, accel_host_min_rows ((size_t)width * 4), equalize_rows, &e);
  return ACCEL_IMAGE_OK;
}
