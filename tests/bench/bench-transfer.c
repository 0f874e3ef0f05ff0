/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the copies accelupload and acceldownload make, one frame of RGBA at
 * 360p, 1080p and 4K each way, in µs of host wall time until the copy is
 * done (the median of 41 after 3): through a page-locked staging buffer of
 * our own (a memcpy, then the DMA: what the elements did before), from or
 * into pageable memory through the CUDA driver's own staging (what they do
 * with a frame that is not page-locked), and from or into page-locked
 * memory by DMA alone (what they do with frames of their page-locked pools).
 * The host memcpy of a frame is the floor of any copy through staging. */
#include <cuda_runtime_api.h>
#include <string.h>

#include "accel-test.h"

#define REPS 41

typedef struct
{
  gsize size;
  guint8 *pageable[2]; /* the frame in system memory, either way */
  guint8 *locked[2];   /* the same, page-locked */
  guint8 *device;
  cudaStream_t stream;
} Frame;

typedef void (*Copy) (Frame *f);

static void
check (cudaError_t err, const char *what)
{
  if (err != cudaSuccess)
    g_error ("%s: %s", what, cudaGetErrorString (err));
}

/* one copy of the frame on its stream, waited for */
static void
copy_frame (Frame *f, void *dst, const void *src, enum cudaMemcpyKind kind)
{
  check (
      cudaMemcpyAsync (dst, src, f->size, kind, f->stream), "cudaMemcpyAsync");
  check (cudaStreamSynchronize (f->stream), "cudaStreamSynchronize");
}

static void
host_memcpy (Frame *f)
{
  memcpy (f->pageable[1], f->pageable[0], f->size);
}

static void
up_staged (Frame *f)
{
  memcpy (f->locked[0], f->pageable[0], f->size);
  copy_frame (f, f->device, f->locked[0], cudaMemcpyHostToDevice);
}

static void
up_pageable (Frame *f)
{
  copy_frame (f, f->device, f->pageable[0], cudaMemcpyHostToDevice);
}

static void
up_locked (Frame *f)
{
  copy_frame (f, f->device, f->locked[0], cudaMemcpyHostToDevice);
}

static void
down_staged (Frame *f)
{
  copy_frame (f, f->locked[1], f->device, cudaMemcpyDeviceToHost);
  memcpy (f->pageable[1], f->locked[1], f->size);
}

static void
down_pageable (Frame *f)
{
  copy_frame (f, f->pageable[1], f->device, cudaMemcpyDeviceToHost);
}

static void
down_locked (Frame *f)
{
  copy_frame (f, f->locked[1], f->device, cudaMemcpyDeviceToHost);
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

static double
median_us (Copy copy, Frame *f)
{
  double us[REPS];

  for (int i = 0; i < 3; i++)
    copy (f);
  for (int i = 0; i < REPS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();

      copy (f);
      us[i] = (double)(g_get_monotonic_time () - t0);
    }
  qsort (us, REPS, sizeof us[0], compare_doubles);
  return us[REPS / 2];
}

int
main (void)
{
  static const struct
  {
    const char *name;
    int w, h;
  } sizes[]
      = { { "360p", 640, 360 }, { "1080p", 1920, 1080 }, { "4K", 3840, 2160 } };
  static const struct
  {
    const char *name;
    Copy copy;
  } rows[] = {
    { "host memcpy", host_memcpy },
    { "up, staged by hand", up_staged },
    { "up, pageable", up_pageable },
    { "up, page-locked", up_locked },
    { "down, staged by hand", down_staged },
    { "down, pageable", down_pageable },
    { "down, page-locked", down_locked },
  };
  int n = 0;

  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
    {
      g_printerr ("no GPU: skipped\n");
      return 77;
    }
  g_print ("one RGBA frame between system memory and the GPU, us of host "
           "time until done, the median of %d; ratio: over the copy staged "
           "by hand\n",
      REPS);
  g_print ("%-6s %-22s %10s %8s %8s\n", "size", "copy", "us", "GB/s", "ratio");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      Frame f = { (gsize)sizes[s].w * sizes[s].h * 4 };
      double staged[2] = { 0, 0 };

      check (cudaStreamCreateWithFlags (&f.stream, cudaStreamNonBlocking),
          "cudaStreamCreateWithFlags");
      check (cudaMalloc ((void **)&f.device, f.size), "cudaMalloc");
      for (int i = 0; i < 2; i++)
        {
          f.pageable[i] = g_malloc (f.size);
          memset (f.pageable[i], 0x3c + i, f.size);
          check (
              cudaMallocHost ((void **)&f.locked[i], f.size), "cudaMallocHost");
          memset (f.locked[i], 0x5a + i, f.size);
        }
      for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
        {
          double us = median_us (rows[r].copy, &f);
          gboolean down = g_str_has_prefix (rows[r].name, "down");

          if (strstr (rows[r].name, "by hand"))
            staged[down] = us;
          g_print ("%-6s %-22s %10.1f %8.1f", sizes[s].name, rows[r].name, us,
              f.size / us / 1e3);
          if (staged[down] > 0)
            g_print (" %8.3f", us / staged[down]);
          g_print ("\n");
        }
      for (int i = 0; i < 2; i++)
        {
          g_free (f.pageable[i]);
          cudaFreeHost (f.locked[i]);
        }
      cudaFree (f.device);
      cudaStreamDestroy (f.stream);
    }
  return 0;
}
