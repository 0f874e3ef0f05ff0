/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the host backend against GStreamer's CPU elements, on the same frames and
 * the same cores: milliseconds per frame of accel's host Gaussian blur,
 * colour conversions and bilinear resize, and of gaussianblur,
 * videoconvert and videoscale, at 640x360 (the demo's frames) and 1080p.
 *
 * accel's side is the host reference a stage runs without a GPU, on the
 * host pool (ACCEL_HOST_THREADS, else every core); GStreamer's side is the
 * element in a GstHarness (push a frame, pull the result), with n-threads
 * set to the same count where the element has it (gaussianblur has not: it
 * runs on one core whatever the count). The two sides alternate frame by
 * frame, so a machine busy with other work slows both alike; each figure is
 * the median of FRAMES frames after WARMUP. "ratio" is GStreamer's time
 * over accel's: above 1, accel is faster. Needs no GPU. */
#include <gst/check/gstharness.h>
#include <gst/gst.h>

#include "host/parallel.h"
#include "image/blur.h"
#include "image/convert.h"
#include "image/resize.h"

#define WARMUP 3
#define FRAMES 25

typedef enum
{
  OP_GAUSSIAN,
  OP_CONVERT,
  OP_RESIZE,
} Op;

typedef struct
{
  const char *name;
  Op op;
  /* accel's formats, and GStreamer's names of the same layouts */
  int in_format;
  int out_format;
  const char *gst_in;
  const char *gst_out;
  /* output size = input size * num / den */
  int num;
  int den;
  const char *element;
  gboolean threaded; /* the element has n-threads */
} Case;

/* GStreamer's gaussianblur takes AYUV only: four 8-bit channels, as RGBA8,
 * each blurred alike; its window is 2 ceil (2.5 sigma) + 1 taps (11 at
 * sigma 2) where accel's is 2 ceil (3 sigma) + 1 (13) */
static const Case cases[] = {
  { "gaussian blur sigma 2", OP_GAUSSIAN, ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_RGBA8,
      "AYUV", "AYUV", 1, 1, "gaussianblur sigma=2", FALSE },
  { "convert RGBA8->I420", OP_CONVERT, ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_I420,
      "RGBA", "I420", 1, 1, "videoconvert", TRUE },
  { "convert I420->RGBA8", OP_CONVERT, ACCEL_IMAGE_I420, ACCEL_IMAGE_RGBA8,
      "I420", "RGBA", 1, 1, "videoconvert", TRUE },
  { "convert RGBA8->NV12", OP_CONVERT, ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_NV12,
      "RGBA", "NV12", 1, 1, "videoconvert", TRUE },
  { "convert NV12->RGBA8", OP_CONVERT, ACCEL_IMAGE_NV12, ACCEL_IMAGE_RGBA8,
      "NV12", "RGBA", 1, 1, "videoconvert", TRUE },
  { "resize 2x RGBA8", OP_RESIZE, ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_RGBA8, "RGBA",
      "RGBA", 2, 1, "videoscale method=bilinear", TRUE },
  { "resize 1/2 RGBA8", OP_RESIZE, ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_RGBA8, "RGBA",
      "RGBA", 1, 2, "videoscale method=bilinear", TRUE },
};

static const int frame_sizes[][2] = { { 640, 360 }, { 1920, 1080 } };

/* a tightly packed frame: GStreamer's default strides for these sizes */
typedef struct
{
  int format;
  int width;
  int height;
  size_t pitch;
  size_t size;
  guint8 *data;
} Frame;

static Frame
frame_new (int format, int width, int height)
{
  Frame f = { format, width, height };

  f.pitch = (size_t)width * accel_image_bytes_per_pixel (format);
  f.size = accel_image_frame_size (format, width, height, f.pitch);
  f.data = g_malloc (f.size);
  return f;
}

/* a gradient with a little noise, so no op meets a constant frame */
static void
frame_fill (Frame *f)
{
  guint32 seed = 12345;

  for (size_t i = 0; i < f->size; i++)
    {
      seed = seed * 1664525u + 1013904223u;
      f->data[i] = (guint8)((i % (f->pitch ? f->pitch : 1)) / 8 + (seed >> 28));
    }
}

static int
accel_run (const Case *c, const Frame *in, Frame *out)
{
  switch (c->op)
    {
    case OP_GAUSSIAN:
      return accel_gaussian_blur_host (in->format, in->data, in->pitch,
          out->data, out->pitch, in->width, in->height, 2.0f);
    case OP_CONVERT:
      return accel_convert_host (in->format, in->data, in->pitch, out->format,
          out->data, out->pitch, in->width, in->height);
    case OP_RESIZE:
      return accel_resize_host (in->format, in->data, in->pitch, in->width,
          in->height, out->data, out->pitch, out->width, out->height);
    }
  return ACCEL_IMAGE_INVALID_VALUE;
}

static char *
caps_string (const char *format, int width, int height)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
                          "framerate=30/1,pixel-aspect-ratio=1/1",
      format, width, height);
}

static GstHarness *
harness_new (const Case *c, const Frame *in, const Frame *out, int threads)
{
  g_autofree char *launch
      = c->threaded ? g_strdup_printf ("%s n-threads=%d", c->element, threads)
                    : g_strdup (c->element);
  g_autofree char *in_caps = caps_string (c->gst_in, in->width, in->height);
  g_autofree char *out_caps = caps_string (c->gst_out, out->width, out->height);
  GstHarness *h = gst_harness_new_parse (launch);

  gst_harness_set_caps_str (h, in_caps, out_caps);
  return h;
}

/* one frame through the element; the output must be the size of the
 * frame accel writes, or the element did something else */
static void
harness_frame (GstHarness *h, const Case *c, const Frame *in, gsize out_size)
{
  GstBuffer *buf = gst_buffer_new_wrapped_full (
      GST_MEMORY_FLAG_READONLY, in->data, in->size, 0, in->size, NULL, NULL);
  GstFlowReturn ret = gst_harness_push (h, buf);
  GstBuffer *res;

  if (ret != GST_FLOW_OK)
    g_error ("%s: pushing a frame into %s: %s", c->name, c->element,
        gst_flow_get_name (ret));
  res = gst_harness_pull (h);
  if (!res)
    g_error ("%s: %s gave no frame", c->name, c->element);
  if (gst_buffer_get_size (res) != out_size)
    g_error ("%s: %s gave %" G_GSIZE_FORMAT " bytes, not %" G_GSIZE_FORMAT,
        c->name, c->element, gst_buffer_get_size (res), out_size);
  gst_buffer_unref (res);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

static gboolean
bench_case (const Case *c, int width, int height, int threads)
{
  Frame src = frame_new (ACCEL_IMAGE_RGBA8, width, height);
  Frame in = frame_new (c->in_format, width, height);
  Frame out = frame_new (
      c->out_format, width * c->num / c->den, height * c->num / c->den);
  GstHarness *h;
  double ours[FRAMES], theirs[FRAMES], ratio;
  g_autofree char *size = g_strdup_printf ("%dx%d", width, height);

  /* 4:2:0 inputs are accel's conversion of the RGBA8 frame */
  frame_fill (&src);
  if (accel_convert_host (src.format, src.data, src.pitch, in.format, in.data,
          in.pitch, width, height)
      != 0)
    g_error ("%s: preparing the input frame failed", c->name);
  h = harness_new (c, &in, &out, threads);

  for (int f = -WARMUP; f < FRAMES; f++)
    {
      gint64 t0 = g_get_monotonic_time (), t1, t2;
      int status = accel_run (c, &in, &out);

      t1 = g_get_monotonic_time ();
      if (status != 0)
        g_error ("%s: accel's host reference returned %d", c->name, status);
      harness_frame (h, c, &in, out.size);
      t2 = g_get_monotonic_time ();
      if (f >= 0)
        {
          ours[f] = (double)(t1 - t0) / 1000.0;
          theirs[f] = (double)(t2 - t1) / 1000.0;
        }
    }
  qsort (ours, FRAMES, sizeof (double), compare_doubles);
  qsort (theirs, FRAMES, sizeof (double), compare_doubles);
  ratio = theirs[FRAMES / 2] / ours[FRAMES / 2];
  g_print ("| %s | %s | %.3f | %.3f | %s | %.2f |\n", size, c->name,
      ours[FRAMES / 2], theirs[FRAMES / 2], c->element, ratio);

  gst_harness_teardown (h);
  g_free (src.data);
  g_free (in.data);
  g_free (out.data);
  return ratio >= 1.0;
}

int
main (int argc, char **argv)
{
  int threads, slower = 0;

  gst_init (&argc, &argv);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (GStrv) words = g_strsplit (cases[i].element, " ", 2);
      g_autoptr (GstElementFactory) factory
          = gst_element_factory_find (words[0]);

      if (!factory)
        {
          g_print ("SKIP: GStreamer's %s is not installed\n", words[0]);
          return 77;
        }
    }

  threads = accel_host_threads ();
  g_print ("host backend on %d thread(s) (ACCEL_HOST_THREADS), GStreamer's "
           "elements with n-threads=%d where they have it; ms per frame, "
           "median of %d\n\n",
      threads, threads, FRAMES);
  g_print ("| frame | op | accel ms | GStreamer ms | element | ratio |\n"
           "|---|---|---|---|---|---|\n");
  for (guint s = 0; s < G_N_ELEMENTS (frame_sizes); s++)
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      if (!bench_case (
              &cases[i], frame_sizes[s][0], frame_sizes[s][1], threads))
        slower++;
  g_print ("\ntarget: ratio >= 1 on every row: %s (%d slower)\n",
      slower ? "NOT met" : "met", slower);
  return 0;
}
