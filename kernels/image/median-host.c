/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* median filter: the host reference. Float windows are sorted one pixel at
 * a time; uint8 windows, whose median is the same whatever finds it, go
 * through a comparator network a whole row at a time, with min and max
 * over every channel of the row at once. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host/parallel.h"
#include "host/simd.h"
#include "image-host.h"
#include "median.h"

/* comparators of the networks for 9 and 25 values, at most */
#define MAX_COMPARATORS 256

typedef struct
{
  int format;
  const uint8_t *in;
  size_t src_pitch;
  uint8_t *out;
  size_t dst_pitch;
  int width;
  int height;
  int radius;
  /* the comparators that reach the middle wire: wires a[i] <= b[i] after */
  int comparators;
  uint8_t a[MAX_COMPARATORS];
  uint8_t b[MAX_COMPARATORS];
  atomic_int no_memory;
} Median;

static float
median_of (float *v, int n)
{
  /* insertion sort: windows are at most 25 values */
  for (int i = 1; i < n; i++)
    {
      float t = v[i];
      int j = i - 1;
      while (j >= 0 && v[j] > t)
        {
          v[j + 1] = v[j];
          j--;
        }
      v[j + 1] = t;
    }
  return v[n / 2];
}

/* Batcher's odd-even merge sort of @n wires, then only the comparators the
 * middle wire depends on, found walking back from it */
static void
median_network (Median *m, int n)
{
  uint8_t a[MAX_COMPARATORS], b[MAX_COMPARATORS];
  uint8_t keep[MAX_COMPARATORS] = { 0 }, needed[32] = { 0 };
  int count = 0, kept = 0;

  for (int p = 1; p < n; p *= 2)
    for (int k = p; k >= 1; k /= 2)
      for (int j = k % p; j + k < n; j += 2 * k)
        for (int i = 0; i < k && i + j + k < n; i++)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p))
            {
              a[count] = (uint8_t)(i + j);
              b[count] = (uint8_t)(i + j + k);
              count++;
            }
  needed[n / 2] = 1;
  for (int c = count - 1; c >= 0; c--)
    if (needed[a[c]] || needed[b[c]])
      {
        needed[a[c]] = needed[b[c]] = 1;
        keep[c] = 1;
      }
  for (int c = 0; c < count; c++)
    if (keep[c])
      {
        m->a[kept] = a[c];
        m->b[kept] = b[c];
        kept++;
      }
  m->comparators = kept;
}

/* one output row of a uint8 format: the window's values at each channel
 * of the row, one wire per window position, sorted far enough for the
 * middle wire to hold the median */
static inline void
median_row_u8 (
    const Median *m, int y, uint8_t *restrict pad, uint8_t *restrict wires)
{
  int nc = accel_image_host_channels (m->format), r = m->radius;
  int side = 2 * r + 1;
  size_t n = (size_t)m->width * nc, pw = (size_t)(m->width + 2 * r) * nc;

  for (int j = 0; j < side; j++)
    {
      int sy = accel_image_host_clamp (y - r + j, 0, m->height - 1);
      const uint8_t *row = m->in + (size_t)sy * m->src_pitch;
      uint8_t *p = pad + (size_t)j * pw;

      memcpy (p + (size_t)r * nc, row, n);
      for (int k = 0; k < r; k++)
        {
          memcpy (p + (size_t)k * nc, row, nc);
          memcpy (p + (size_t)(r + m->width + k) * nc, row + n - nc, nc);
        }
      for (int i = 0; i < side; i++)
        memcpy (wires + (size_t)(j * side + i) * n, p + (size_t)i * nc, n);
    }
  for (int c = 0; c < m->comparators; c++)
    {
      uint8_t *restrict lo = wires + (size_t)m->a[c] * n;
      uint8_t *restrict hi = wires + (size_t)m->b[c] * n;
      for (size_t i = 0; i < n; i++)
        {
          uint8_t u = lo[i], v = hi[i];
          lo[i] = u < v ? u : v;
          hi[i] = u < v ? v : u;
        }
    }
  memcpy (m->out + (size_t)y * m->dst_pitch,
      wires + (size_t)(side * side / 2) * n, n);
}

static inline void
median_row_f32 (const Median *m, int y)
{
  int r = m->radius;
  uint8_t *orow = m->out + (size_t)y * m->dst_pitch;

  for (int x = 0; x < m->width; x++)
    for (int c = 0; c < 4; c++)
      {
        float v[25];
        int n = 0;
        for (int j = -r; j <= r; j++)
          {
            int yy = accel_image_host_clamp (y + j, 0, m->height - 1);
            const uint8_t *row = m->in + (size_t)yy * m->src_pitch;
            for (int i = -r; i <= r; i++)
              v[n++] = accel_image_host_load (m->format, row,
                  accel_image_host_clamp (x + i, 0, m->width - 1), c);
          }
        accel_image_host_store (m->format, orow, x, c, median_of (v, n));
      }
}

ACCEL_HOST_SIMD static void
median_rows (void *data, int y0, int y1)
{
  Median *m = data;
  int nc = accel_image_host_channels (m->format), side = 2 * m->radius + 1;
  size_t n = (size_t)m->width * nc,
         pw = (size_t)(m->width + 2 * m->radius) * nc;
  uint8_t *pad;

  if (m->format == ACCEL_IMAGE_RGBAF32)
    {
      for (int y = y0; y < y1; y++)
        median_row_f32 (m, y);
      return;
    }
  pad = malloc ((size_t)side * pw + (size_t)side * side * n);
  if (!pad)
    {
      atomic_store (&m->no_memory, 1);
      return;
    }
  for (int y = y0; y < y1; y++)
    median_row_u8 (m, y, pad, pad + (size_t)side * pw);
  free (pad);
}

int
accel_median_host (int format, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int size)
{
  Median m = {
    .format = format,
    .in = src,
    .src_pitch = src_pitch,
    .out = dst,
    .dst_pitch = dst_pitch,
    .width = width,
    .height = height,
    .radius = size / 2,
  };

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (size != 3 && size != 5))
    return ACCEL_IMAGE_INVALID_VALUE;
  median_network (&m, size * size);
  atomic_init (&m.no_memory, 0);
  accel_host_parallel_rows (height,
      accel_host_min_rows ((size_t)width * accel_image_bytes_per_pixel (format)
                           * (size_t)size * (size_t)size),
      median_rows, &m);
  return atomic_load (&m.no_memory) ? ACCEL_IMAGE_NO_MEMORY : ACCEL_IMAGE_OK;
}
