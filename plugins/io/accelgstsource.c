/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.gst-source, images from any GStreamer description
 * through an appsink */
#define G_LOG_DOMAIN "accel-gst-source"

#include "accelgstsource.h"
#include "accelgstcuda-private.h"
#include "accelio-private.h"

#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <sys/stat.h>

/* frames read ahead of the GPU's copies */
#define RING_SLOTS 3
/* samples the appsink holds before GStreamer's threads wait for the graph */
#define APPSINK_QUEUE 4
/* how often a preroll looks at the bus for errors */
#define PREROLL_POLL_NS (10 * GST_MSECOND)

struct _AccelGstSource
{
  AccelStage parent;

  gchar *description;
  gboolean sync;
  gint64 preroll_timeout_ms;

  AccelGstWatch watch;
  GstElement *pipeline;
  GstAppSink *appsink;
  GstSample *first; /* a live description's first sample, taken to learn its
                       caps */
  AccelType type;   /* what negotiate() found */
  gboolean live;    /* the description prerolls no image: it is live */
  GstVideoInfo info;
  AccelIoNumbers numbers;
  AccelIoRing *ring;    /* GPU: the samples its copies read */
  GstCudaContext *cuda; /* GPU: the context the description shares */
  gboolean cuda_memory; /* the appsink gets CUDA memory */
  gboolean page_locked; /* or system memory from our page-locked pool */
  gboolean erred;       /* an element posted an error: what the appsink
                           holds is given before it */
  guint n_drained;      /* samples given since */
  gboolean failed;      /* an element's error was said: nothing more comes */
};

static void accel_gst_source_file_output_init (AccelFileOutputInterface *iface);

/* a description may record what it reads (a tee to a filesink): the graph
 * checks that file as it checks a sink's */
G_DEFINE_FINAL_TYPE_WITH_CODE (AccelGstSource, accel_gst_source,
    ACCEL_TYPE_STAGE,
    G_IMPLEMENT_INTERFACE (
        ACCEL_TYPE_FILE_OUTPUT, accel_gst_source_file_output_init))

enum
{
  PROP_0,
  PROP_DESCRIPTION,
  PROP_SYNC,
  PROP_PREROLL_TIMEOUT,
  PROP_MEMORY,
};

static void
teardown (AccelGstSource *self)
{
  g_clear_pointer (&self->first, gst_sample_unref);
  g_clear_pointer (&self->appsink, gst_object_unref);
  g_clear_pointer (&self->pipeline, accel_gst_pipeline_free);
}

/* the stage's error for a pipeline that failed: the element's own, if it
 * posted one */
static void
set_pipeline_error (AccelGstSource *self, const char *what, GError **error)
{
  if (!accel_gst_watch_wait_error (
          &self->watch, ACCEL_GST_ERROR_WAIT_US, error))
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "the GStreamer pipeline %s", what);
  g_prefix_error (error, "stage '%s' (io.gst-source): ",
      accel_stage_get_name (ACCEL_STAGE (self)));
}

/* the start was interrupted while the description prerolled */
static gboolean
preroll_interrupted (AccelGstSource *self, GError **error)
{
  if (!accel_stage_is_interrupted (ACCEL_STAGE (self)))
    return FALSE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
      "stage '%s' (io.gst-source): stopped while the GStreamer pipeline "
      "prerolled",
      accel_stage_get_name (ACCEL_STAGE (self)));
  return TRUE;
}

/* PAUSED: GStreamer negotiates and prerolls, so the appsink knows its caps
 * before the graph starts; a live description (no preroll) goes to PLAYING
 * and gives its first sample. Either wait gives up at preroll-timeout, or
 * at once when the graph's start is interrupted */
static gboolean
preroll (AccelGstSource *self, GstCaps **caps, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  gint64 deadline = g_get_monotonic_time () + self->preroll_timeout_ms * 1000;
  GstStateChangeReturn ret;
  GstPad *pad;

  /* an element that blocks in its change (filesrc opening a FIFO no one
   * writes) is given up on at the deadline too */
  ret = accel_gst_pipeline_set_state_within (stage, self->pipeline,
      GST_STATE_PAUSED, self->preroll_timeout_ms * 1000, error);
  if (ret == GST_STATE_CHANGE_FAILURE && error && *error)
    {
      g_prefix_error (
          error, "stage '%s' (io.gst-source): ", accel_stage_get_name (stage));
      return FALSE;
    }
  if (accel_gst_pipeline_is_abandoned (self->pipeline))
    {
      if (preroll_interrupted (self, error))
        return FALSE;
      accel_gst_set_start_timeout_error (error, self->preroll_timeout_ms,
          "preroll-timeout", "a filesrc opening a FIFO no one writes");
      g_prefix_error (
          error, "stage '%s' (io.gst-source): ", accel_stage_get_name (stage));
      return FALSE;
    }
  while (ret == GST_STATE_CHANGE_ASYNC
         && !accel_gst_watch_get_error (&self->watch, NULL)
         && !accel_stage_is_interrupted (stage)
         && g_get_monotonic_time () < deadline)
    ret = gst_element_get_state (self->pipeline, NULL, NULL, PREROLL_POLL_NS);

  if (accel_gst_watch_get_error (&self->watch, NULL)
      || ret == GST_STATE_CHANGE_FAILURE)
    {
      set_pipeline_error (self, "could not start", error);
      return FALSE;
    }
  if (ret == GST_STATE_CHANGE_ASYNC && preroll_interrupted (self, error))
    return FALSE;
  if (ret == GST_STATE_CHANGE_ASYNC)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
          "stage '%s' (io.gst-source): the GStreamer pipeline gave no image "
          "within %" G_GINT64_FORMAT " ms (preroll-timeout)",
          accel_stage_get_name (stage), self->preroll_timeout_ms);
      return FALSE;
    }
  self->live = ret == GST_STATE_CHANGE_NO_PREROLL;
  if (ret == GST_STATE_CHANGE_NO_PREROLL)
    {
      if (gst_element_set_state (self->pipeline, GST_STATE_PLAYING)
          == GST_STATE_CHANGE_FAILURE)
        {
          set_pipeline_error (self, "could not start", error);
          return FALSE;
        }
      while (!self->first && !gst_app_sink_is_eos (self->appsink)
             && !accel_gst_watch_get_error (&self->watch, NULL)
             && !accel_stage_is_interrupted (stage)
             && g_get_monotonic_time () < deadline)
        self->first
            = gst_app_sink_try_pull_sample (self->appsink, PREROLL_POLL_NS);
      if (!self->first && preroll_interrupted (self, error))
        return FALSE;
      if (!self->first || !gst_sample_get_caps (self->first))
        {
          set_pipeline_error (
              self, "gave no image to learn its type from", error);
          return FALSE;
        }
      *caps = gst_caps_ref (gst_sample_get_caps (self->first));
      return TRUE;
    }
  pad = gst_element_get_static_pad (GST_ELEMENT (self->appsink), "sink");
  *caps = gst_pad_get_current_caps (pad);
  gst_object_unref (pad);
  if (!*caps)
    {
      set_pipeline_error (
          self, "ended before its first image: its type is unknown", error);
      return FALSE;
    }
  return TRUE;
}

/* whether the first sample (a live description's, or the preroll) is in
 * page-locked memory: whether the description took the pool the appsink
 * offered */
static gboolean
first_is_page_locked (AccelGstSource *self)
{
  g_autoptr (GstSample) sample
      = self->first ? gst_sample_ref (self->first)
                    : gst_app_sink_try_pull_preroll (self->appsink, 0);

  return self->cuda && sample && gst_sample_get_buffer (sample)
         && accel_gst_cuda_buffer_is_page_locked (
             gst_sample_get_buffer (sample), self->cuda);
}

/* the files the description writes can be written and are none it reads:
 * checked before it prerolls, which opens them and empties them */
static gboolean
check_written_files (AccelGstSource *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  g_auto (GStrv) reads = NULL;
  g_auto (GStrv) writes = NULL;

  accel_gst_description_files (self->description, &reads, &writes);
  for (guint i = 0; writes[i]; i++)
    {
      GStatBuf written, read;

      if (!accel_file_output_check_writable (stage, writes[i], error))
        return FALSE;
      if (g_stat (writes[i], &written) != 0 || !S_ISREG (written.st_mode))
        continue;
      for (guint j = 0; reads[j]; j++)
        {
          if (g_stat (reads[j], &read) != 0 || read.st_ino != written.st_ino
              || read.st_dev != written.st_dev)
            continue;
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s' (io.gst-source): its description writes %s, "
              "which it reads: the run would write over its own input",
              accel_stage_get_name (stage), writes[i]);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
build (AccelGstSource *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  g_autofree gchar *description = NULL;
  g_autoptr (GstCaps) want = NULL;
  g_autoptr (GstCaps) caps = NULL;

  if (!self->description || !*self->description)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.gst-source): no GStreamer description",
          accel_stage_get_name (stage));
      return FALSE;
    }
  if (!check_written_files (self, error))
    return FALSE;
  description
      = g_strdup_printf ("%s ! appsink name=accelsink", self->description);
  self->pipeline = accel_gst_pipeline_new (
      stage, self->description, description, &self->watch, error);
  if (!self->pipeline)
    return FALSE;
  if (!accel_gst_pipeline_check_elements (
          stage, self->pipeline, accel_gst_check_location_pattern, error))
    {
      teardown (self);
      return FALSE;
    }
  self->appsink = GST_APP_SINK (
      gst_bin_get_by_name (GST_BIN (self->pipeline), "accelsink"));
  /* on a GPU CUDA memory comes first: a decoder or cudaupload then hands
   * its frames over on the device */
  /* made again with the pipeline: the stage's device may have changed */
  gst_clear_object (&self->cuda);
  self->cuda = accel_gst_cuda_context_new (stage);
  if (self->cuda)
    {
      accel_gst_cuda_share (self->pipeline, &self->watch, self->cuda);
      /* what the ring, the appsink and process () hold at once */
      accel_gst_cuda_offer_page_locked (GST_ELEMENT (self->appsink), self->cuda,
          RING_SLOTS + APPSINK_QUEUE + 2);
      want = gst_caps_from_string (
          ACCEL_GST_CUDA_VIDEO_CAPS "; " ACCEL_GST_VIDEO_CAPS);
    }
  else
    {
      want = gst_caps_from_string (ACCEL_GST_VIDEO_CAPS);
    }
  gst_app_sink_set_caps (self->appsink, want);
  gst_app_sink_set_max_buffers (self->appsink, APPSINK_QUEUE);
  gst_app_sink_set_drop (self->appsink, FALSE);
  gst_base_sink_set_sync (GST_BASE_SINK (self->appsink), self->sync);

  if (!preroll (self, &caps, error)
      || !accel_gst_caps_to_type (stage, caps, &self->type, &self->info, error))
    {
      teardown (self);
      return FALSE;
    }
  self->cuda_memory = accel_gst_cuda_caps_are_cuda (caps);
  self->page_locked = !self->cuda_memory && first_is_page_locked (self);
  return TRUE;
}

static gboolean
accel_gst_source_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (stage);

  teardown (self);
  if (!build (self, error))
    return FALSE;
  out_types[0] = self->type;
  return TRUE;
}

static gboolean
accel_gst_source_start (AccelStage *stage, GError **error)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (stage);
  const AccelType *want = accel_stage_get_output_type (stage, 0);

  self->failed = FALSE;
  self->erred = FALSE;
  self->n_drained = 0;
  /* a restart builds the description again, which gives a file or a test
   * pattern from its first image: frames already handed on would come
   * again under new numbers. Only a live description goes on */
  if (accel_stage_is_restarting (stage) && !self->live)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "cannot restart: the description is not live, and would give its "
          "images again from the first");
      return FALSE;
    }
  /* nor can it resume from a state directory at a later frame */
  if (accel_stage_get_start_sequence (stage) > 0 && !self->live)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STATE_MISMATCH,
          "cannot resume at frame %" G_GUINT64_FORMAT
          ": the description is not live, and would give its images again "
          "from the first under later numbers (discard the state to start "
          "over)",
          accel_stage_get_start_sequence (stage));
      return FALSE;
    }
  /* a second run builds the description again: it must give the same */
  if (!self->pipeline && !build (self, error))
    return FALSE;
  if (!accel_io_types_match (&self->type, want))
    {
      g_autofree gchar *have = accel_type_to_string (&self->type);
      g_autofree gchar *negotiated = accel_type_to_string (want);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
          "stage '%s' (io.gst-source): the description now gives %s, not "
          "%s as when the graph was prepared",
          accel_stage_get_name (stage), have, negotiated);
      return FALSE;
    }
  if (gst_element_set_state (self->pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE)
    {
      set_pipeline_error (self, "could not start playing", error);
      return FALSE;
    }
  accel_io_numbers_reset (&self->numbers);
  if (accel_stage_is_host (stage))
    return TRUE;
  self->ring = accel_io_ring_new (
      accel_stage_get_device (stage), RING_SLOTS, 0, error);
  return self->ring != NULL;
}

static void
accel_gst_source_stop (AccelStage *stage)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (stage);

  g_clear_pointer (&self->ring, accel_io_ring_free);
  teardown (self);
}

/* after an element's error: the samples that reached the appsink before
 * it, then the error. Those the appsink holds at most, so a branch of the
 * description that still feeds it ends too; they were dropped, and the
 * run said the error came after fewer frames than it did */
static GstSample *
drain_after_error (AccelGstSource *self, GError **error)
{
  GstSample *sample = NULL;

  if (self->n_drained <= APPSINK_QUEUE)
    sample = gst_app_sink_try_pull_sample (self->appsink, 0);
  if (sample)
    {
      self->n_drained++;
      return sample;
    }
  self->failed = TRUE;
  accel_gst_watch_get_error (&self->watch, error);
  return NULL;
}

/* the next sample; NULL at end of stream, on an error (set) or when the
 * thread is wanted elsewhere (@yield set) */
static GstSample *
next_sample (AccelGstSource *self, gboolean *yield, GError **error)
{
  *yield = FALSE;
  if (self->first)
    return g_steal_pointer (&self->first);
  /* the error was the frame's fault, and on-fault resume skipped it: the
   * stream ends here (every later frame failed the same way at once, and
   * the run skipped frames for good) */
  if (self->failed)
    return NULL;
  for (;;)
    {
      GstSample *sample;

      /* an element's error ends the stage even while another branch of the
       * description still feeds the appsink */
      self->erred
          = self->erred || accel_gst_watch_get_error (&self->watch, NULL);
      if (self->erred)
        return drain_after_error (self, error);
      sample = gst_app_sink_try_pull_sample (
          self->appsink, ACCEL_IO_WAIT_SLICE_US * GST_USECOND);
      if (sample)
        return sample;
      if (accel_gst_watch_get_error (&self->watch, NULL))
        continue;
      if (gst_app_sink_is_eos (self->appsink))
        return NULL;
      if (accel_stage_should_yield (ACCEL_STAGE (self)))
        {
          *yield = TRUE;
          return NULL;
        }
    }
}

static gboolean
map_for_reading (GstVideoFrame *frame, const GstVideoInfo *info,
    GstBuffer *buffer, GError **error)
{
  if (gst_video_frame_map (frame, info, buffer, GST_MAP_READ))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "cannot map a GStreamer buffer for reading");
  return FALSE;
}

/* a sample's frame, mapped until the copy that reads it is done */
typedef struct
{
  GstVideoFrame frame;
  GstSample *sample;
} MappedSample;

static void
mapped_sample_free (gpointer data)
{
  MappedSample *m = data;

  gst_video_frame_unmap (&m->frame);
  gst_sample_unref (m->sample);
  g_free (m);
}

/* enqueues the copy of @sample into the frame's output on its stream, the
 * sample held in the ring until the copy is done:
 * - CUDA memory of the stage's context (@on_device): copied on the device,
 *   so GStreamer does not reuse the memory under the copy;
 * - host memory (system memory, or CUDA memory of another context, which
 *   the map downloads): copied plane by plane from the mapped frame, with
 *   no copy of ours on the host. From pageable memory the CUDA driver stages it
 *   before the call returns (faster than a memcpy into staging of ours,
 *   which it overlaps with the DMA: bench-transfer); from page-locked
 *   memory the DMA reads it later */
static AccelFlow
copy_held (AccelGstSource *self, AccelFrame *frame, GstSample *sample,
    const GstVideoInfo *info, AccelFormat format, gboolean on_device,
    GError **error)
{
  gpointer dst = accel_buffer_get_data (frame->outputs[0]);
  MappedSample *m;
  gboolean copied;

  if (!accel_io_ring_acquire (self->ring, NULL, error))
    return ACCEL_FLOW_ERROR;
  if (on_device)
    {
      accel_io_ring_hold (self->ring, gst_sample_ref (sample),
          (GDestroyNotify)gst_sample_unref);
      copied = accel_gst_cuda_copy_from_buffer (frame->stream,
          gst_sample_get_buffer (sample), info, format, dst, error);
    }
  else
    {
      m = g_new0 (MappedSample, 1);
      if (!map_for_reading (
              &m->frame, info, gst_sample_get_buffer (sample), error))
        {
          g_free (m);
          return ACCEL_FLOW_ERROR;
        }
      m->sample = gst_sample_ref (sample);
      accel_io_ring_hold (self->ring, m, mapped_sample_free);
      copied = accel_gst_copy_planes (
          frame->stream, &m->frame, format, dst, FALSE, error);
    }
  /* committed even when a copy failed: part of it may be queued */
  if (!accel_io_ring_commit (
          self->ring, frame->stream, NULL, copied ? error : NULL)
      || !copied)
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static AccelFlow
copy_sample (
    AccelGstSource *self, AccelFrame *frame, GstSample *sample, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelBuffer *out = frame->outputs[0];
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  GstCaps *caps = gst_sample_get_caps (sample);
  AccelType type;
  GstVideoInfo info;
  GstVideoFrame vframe;
  gpointer dst = accel_buffer_get_data (out);

  if (!caps || !accel_gst_caps_to_type (stage, caps, &type, &info, error))
    return ACCEL_FLOW_ERROR;
  if (!accel_io_types_match (&type, accel_buffer_peek_type (out)))
    {
      g_autofree gchar *have = accel_type_to_string (&type);
      g_autofree gchar *want
          = accel_type_to_string (accel_buffer_peek_type (out));
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "the description's images changed to %s; the output stays %s", have,
          want);
      return ACCEL_FLOW_ERROR;
    }
  if (GST_BUFFER_PTS_IS_VALID (buffer))
    accel_buffer_set_pts (out, (gint64)GST_BUFFER_PTS (buffer));
  if (GST_BUFFER_DURATION_IS_VALID (buffer))
    accel_buffer_set_duration (out, (gint64)GST_BUFFER_DURATION (buffer));
  if (!accel_stage_is_host (stage))
    return copy_held (self, frame, sample, &info, type.format,
        accel_gst_cuda_buffer_is_ours (buffer, self->cuda), error);
  /* on the host: system memory, or CUDA memory, which the map downloads */
  if (!map_for_reading (&vframe, &info, buffer, error))
    return ACCEL_FLOW_ERROR;
  accel_gst_frame_to_packed (&vframe, type.format, dst);
  gst_video_frame_unmap (&vframe);
  return ACCEL_FLOW_OK;
}

static AccelFlow
accel_gst_source_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (stage);
  g_autoptr (GstSample) sample = NULL;
  gboolean yield;

  /* GStreamer's next image is input from outside, not work */
  accel_stage_wait_begin (stage);
  sample = next_sample (self, &yield, error);
  accel_stage_wait_end (stage);
  if (!sample)
    {
      if (error && *error)
        return ACCEL_FLOW_ERROR;
      return yield ? ACCEL_FLOW_SKIP : ACCEL_FLOW_EOS;
    }
  /* a frame given up for the stage's messages takes no sequence number */
  accel_buffer_set_sequence (frame->outputs[0],
      accel_io_numbers_take (&self->numbers, frame->sequence));
  return copy_sample (self, frame, sample, error);
}

static void
accel_gst_source_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      g_free (self->description);
      self->description = g_value_dup_string (value);
      break;
    case PROP_SYNC:
      self->sync = g_value_get_boolean (value);
      /* taken at once by a running description too */
      if (self->appsink)
        gst_base_sink_set_sync (GST_BASE_SINK (self->appsink), self->sync);
      break;
    case PROP_PREROLL_TIMEOUT:
      self->preroll_timeout_ms = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gst_source_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (object);

  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_SYNC:
      g_value_set_boolean (value, self->sync);
      break;
    case PROP_PREROLL_TIMEOUT:
      g_value_set_int64 (value, self->preroll_timeout_ms);
      break;
    case PROP_MEMORY:
      g_value_set_string (value, self->cuda_memory   ? "cuda"
                                 : self->page_locked ? "page-locked"
                                                     : "system");
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gst_source_dispose (GObject *object)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (object);

  /* a graph prepared and never run keeps its prerolled pipeline */
  teardown (self);
  gst_clear_object (&self->cuda);
  G_OBJECT_CLASS (accel_gst_source_parent_class)->dispose (object);
}

static void
accel_gst_source_finalize (GObject *object)
{
  AccelGstSource *self = ACCEL_GST_SOURCE (object);

  g_free (self->description);
  accel_gst_watch_clear (&self->watch);
  G_OBJECT_CLASS (accel_gst_source_parent_class)->finalize (object);
}

static void
accel_gst_source_class_init (AccelGstSourceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType out;

  gobject_class->set_property = accel_gst_source_set_property;
  gobject_class->get_property = accel_gst_source_get_property;
  gobject_class->dispose = accel_gst_source_dispose;
  gobject_class->finalize = accel_gst_source_finalize;
  stage_class->negotiate = accel_gst_source_negotiate;
  stage_class->start = accel_gst_source_start;
  stage_class->stop = accel_gst_source_stop;
  stage_class->process = accel_gst_source_process;

  g_object_class_install_property (gobject_class, PROP_DESCRIPTION,
      g_param_spec_string ("description", "Description",
          "A gst-launch description whose last element gives video/x-raw "
          "(RGBA, BGRA, GRAY8, NV12 or I420; in system memory, or on a GPU "
          "in CUDA memory); \"! appsink\" is added",
          NULL, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_SYNC,
      g_param_spec_boolean ("sync", "Sync",
          "Hand images on at their timestamps on GStreamer's clock, instead "
          "of as fast as the graph takes them",
          FALSE, flags));
  g_object_class_install_property (gobject_class, PROP_PREROLL_TIMEOUT,
      g_param_spec_int64 ("preroll-timeout", "Preroll timeout",
          "Milliseconds the description may take to give its first image "
          "when the graph is prepared",
          1, G_MAXINT64 / 1000000, 10000, flags));
  g_object_class_install_property (gobject_class, PROP_MEMORY,
      g_param_spec_string ("memory", "Memory",
          "What the appsink gets from the description, known once the graph "
          "is prepared: \"cuda\" (GStreamer's CUDA memory, taken on a GPU), "
          "\"page-locked\" (system memory from the page-locked pool it "
          "offers on a GPU, copied by DMA alone) or \"system\"",
          "system", G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /* neither a GStreamer description nor an application can be asked for
   * a frame again */
  accel_stage_class_set_live (stage_class, TRUE);
  /* waits for GStreamer */
  accel_stage_class_set_blocking (stage_class, TRUE);
  accel_stage_class_set_metadata (stage_class, "io.gst-source",
      "Images from a GStreamer description (files, cameras, network "
      "streams), through an appsink");
  accel_type_init_image (&out, ACCEL_FORMAT_ANY, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_OUTPUT, "out", &out, "the description's images");
}

/* the first file its description writes (a tee's filesink recording
 * what it reads), or NULL */
static gchar *
accel_gst_source_get_path (AccelFileOutput *output)
{
  return accel_gst_description_first_written (
      ACCEL_GST_SOURCE (output)->description);
}

static void
accel_gst_source_file_output_init (AccelFileOutputInterface *iface)
{
  iface->get_path = accel_gst_source_get_path;
}

static void
accel_gst_source_init (AccelGstSource *self)
{
  accel_gst_watch_init (&self->watch);
}
