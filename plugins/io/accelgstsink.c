/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: io.gst-sink, images into any GStreamer description
 * through an appsrc */
#define G_LOG_DOMAIN "accel-gst-sink"

#include "accelgstsink.h"
#include "accelgstcuda-private.h"
#include "accelio-private.h"

#include <gst/app/gstappsrc.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* buffers queued in the appsrc before the stage waits for GStreamer */
#define APPSRC_QUEUE 4

struct _AccelGstSink
{
  AccelStage parent;

  gchar *description;
  gchar *framerate;
  gint64 eos_timeout_ms;
  gint64 start_timeout_ms;

  gint fps_n, fps_d;
  AccelGstWatch watch;
  GstElement *pipeline;
  GstAppSrc *appsrc;
  GstVideoInfo info;
  gboolean playing;
  /* its last wait for room ran past the watchdog: its end of stream is not
   * waited for (it would take eos-timeout) */
  gboolean stuck;
  /* the error the pipeline posted failed a frame already: the supervisor
   * took it (skipped, or stopped the stage), so the end of stream does not
   * fail the run with it again */
  gboolean error_taken;
  AccelBuffer *staging; /* GPU: pinned copy of the image being pushed */
  GstCudaContext *cuda; /* GPU: the context the description shares */
  gboolean cuda_memory; /* the appsrc hands GStreamer CUDA memory */
  gboolean page_locked; /* or system memory in page-locked frames */
  GstBufferPool *pool;  /* of either, while started */
  GstBuffer *pending;   /* the frame process() copies and render() pushes */
  /* a restart or a resume: the segment starts at the first frame pushed */
  gboolean rebase;
  /* frames pushed into the pipeline, and the buffers that reached each of
   * its sink elements (guint64*, atomic, each owned by its pad's probe) */
  guint64 pushed;
  GPtrArray *reached;
};

static void accel_gst_sink_file_output_init (AccelFileOutputInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AccelGstSink, accel_gst_sink, ACCEL_TYPE_STAGE,
    G_IMPLEMENT_INTERFACE (
        ACCEL_TYPE_FILE_OUTPUT, accel_gst_sink_file_output_init))

enum
{
  PROP_0,
  PROP_DESCRIPTION,
  PROP_FRAMERATE,
  PROP_EOS_TIMEOUT,
  PROP_START_TIMEOUT,
  PROP_MEMORY,
};

static const AccelFormat gst_formats[] = {
  ACCEL_FORMAT_RGBA8,
  ACCEL_FORMAT_BGRA8,
  ACCEL_FORMAT_GRAY8,
  ACCEL_FORMAT_NV12,
  ACCEL_FORMAT_I420,
};

static void
on_need_data (GstAppSrc *appsrc, guint length, gpointer user_data)
{
  AccelGstWatch *watch = user_data;

  g_mutex_lock (&watch->lock);
  g_cond_broadcast (&watch->cond);
  g_mutex_unlock (&watch->lock);
}

/* after teardown(): the pipeline gave back what it held */
static void
release_pool (AccelGstSink *self)
{
  gst_clear_buffer (&self->pending);
  if (self->pool)
    gst_buffer_pool_set_active (self->pool, FALSE);
  gst_clear_object (&self->pool);
}

static GstPadProbeReturn
count_buffers (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  guint64 n = 1;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    n = gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
  __atomic_add_fetch ((guint64 *)user_data, n, __ATOMIC_RELAXED);
  return GST_PAD_PROBE_OK;
}

/* each sink element of the description counts the buffers that reach it */
static gboolean
watch_sink_element (const GValue *item, GValue *ret, gpointer user_data)
{
  AccelGstSink *self = user_data;
  GstElement *element = g_value_get_object (item);
  g_autoptr (GstPad) pad = NULL;
  guint64 *reached;

  if (!GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SINK)
      || !(pad = gst_element_get_static_pad (element, "sink")))
    return TRUE;
  reached = g_new0 (guint64, 1);
  gst_pad_add_probe (pad,
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, count_buffers,
      reached, g_free);
  g_ptr_array_add (self->reached, reached);
  return TRUE;
}

/* the frames pushed that did not reach every one of the description's
 * sink elements (pushed less the least any reached): exact where it
 * passes frames one for one; an encoder or a muxer may make more buffers
 * or fewer. G_MAXUINT64 where no sink element is counted (one with
 * request pads only) */
static guint64
get_n_unreached (AccelGstSink *self)
{
  guint64 reached = G_MAXUINT64;

  for (guint i = 0; i < self->reached->len; i++)
    reached = MIN (reached,
        __atomic_load_n ((guint64 *)self->reached->pdata[i], __ATOMIC_RELAXED));
  if (self->reached->len == 0)
    return G_MAXUINT64;
  return reached >= self->pushed ? 0 : self->pushed - reached;
}

/* a pipeline that failed drops what it held: the frames that did not
 * reach its sinks are lost, though their render () had returned */
static void
count_lost_in_pipeline (AccelGstSink *self)
{
  guint64 unreached = get_n_unreached (self);

  if (unreached == 0 || unreached == G_MAXUINT64)
    return;
  g_debug ("stage '%s': the GStreamer pipeline failed with %" G_GUINT64_FORMAT
           " frames on their way",
      accel_stage_get_name (ACCEL_STAGE (self)), unreached);
  accel_stage_count_lost (ACCEL_STAGE (self), unreached);
  /* counted once: a stop after the end of stream counts again */
  self->pushed -= unreached;
}

/* the error the pipeline posted, if any, fails the frame now in render () */
static gboolean
take_watch_error (AccelGstSink *self, GError **error)
{
  if (!accel_gst_watch_get_error (&self->watch, error))
    return FALSE;
  self->error_taken = TRUE;
  return TRUE;
}

static void
teardown (AccelGstSink *self)
{
  GstAppSrcCallbacks none = { 0 };

  /* an abandoned pipeline (accel_gst_pipeline_set_state_within ()) may run
   * on after the stage is gone: its appsrc must not call into it */
  if (self->appsrc)
    gst_app_src_set_callbacks (self->appsrc, &none, NULL, NULL);
  g_clear_pointer (&self->appsrc, gst_object_unref);
  g_clear_pointer (&self->pipeline, accel_gst_pipeline_free);
  self->playing = FALSE;
  /* the counters go with the pads, which an abandoned pipeline keeps */
  if (self->reached)
    g_ptr_array_set_size (self->reached, 0);
  self->pushed = 0;
  self->error_taken = FALSE;
}

/* each file a sink element of the description writes (its location) can
 * be written: said as the graph is prepared, --validate included, where
 * the start failed with GStreamer's "Could not open file" (status 1) */
static gboolean
check_element_location (const GValue *item, GValue *ret, gpointer user_data)
{
  GstElement *element = g_value_get_object (item);
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (element), "location");
  g_autofree gchar *location = NULL;
  GError **error = user_data;

  if (!GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SINK) || !pspec
      || pspec->value_type != G_TYPE_STRING)
    return TRUE;
  g_object_get (element, "location", &location, NULL);
  if (!location || g_str_has_prefix (location, "/dev/"))
    return TRUE;
  return accel_file_output_check_writable (
      ACCEL_STAGE (g_value_get_pointer (ret)), location, error);
}

/* the description's first element takes frames of @caps (fixed): asked
 * as the graph is prepared, so a description that cannot take them (a
 * capsfilter of another format or size, an audio element) fails there,
 * where it failed once frames came. An element that does not know yet
 * (ANY, a bin's ghost pad without its target) takes them */
static gboolean
check_description_takes (AccelGstSink *self, GstCaps *caps, GError **error)
{
  g_autoptr (GstPad) pad
      = gst_element_get_static_pad (GST_ELEMENT (self->appsrc), "src");
  g_autoptr (GstCaps) peer = gst_pad_peer_query_caps (pad, NULL);
  g_autofree gchar *ours = NULL, *theirs = NULL;

  if (!peer || gst_caps_can_intersect (peer, caps))
    return TRUE;
  ours = gst_caps_to_string (caps);
  theirs = gst_caps_to_string (peer);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (io.gst-sink): the GStreamer description '%s' does not "
      "take the stage's frames, %s%s%s (a videoconvert or videoscale at its "
      "start may help)",
      accel_stage_get_name (ACCEL_STAGE (self)), self->description, ours,
      strlen (theirs) < 240 ? "; it takes " : "",
      strlen (theirs) < 240 ? theirs : "");
  return FALSE;
}

/* a filesink told to write to stdout by name where stdout is a file the
 * shell opened to append (>>): it opens the name afresh, which emptied
 * the file; told to append, it keeps what the file held */
static gboolean
append_to_appended_stdout (const GValue *item, GValue *ret, gpointer user_data)
{
  GstElement *element = g_value_get_object (item);
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);
  GParamSpec *location = g_object_class_find_property (klass, "location");
  GParamSpec *append = g_object_class_find_property (klass, "append");
  g_autofree gchar *path = NULL;
  int fd, flags;

  if (!location || location->value_type != G_TYPE_STRING || !append
      || append->value_type != G_TYPE_BOOLEAN)
    return TRUE;
  g_object_get (element, "location", &path, NULL);
  if ((fd = accel_file_output_dup_std (path)) < 0)
    return TRUE;
  flags = fcntl (fd, F_GETFL);
  if (flags >= 0 && (flags & O_APPEND))
    g_object_set (element, "append", TRUE, NULL);
  close (fd);
  return TRUE;
}

static gboolean
build (AccelGstSink *self, const AccelType *type, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  GstAppSrcCallbacks callbacks = { .need_data = on_need_data };
  g_autofree gchar *description = NULL;
  g_autoptr (GstCaps) caps = NULL;

  if (!self->description || !*self->description)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (io.gst-sink): no GStreamer description",
          accel_stage_get_name (stage));
      return FALSE;
    }
  description
      = g_strdup_printf ("appsrc name=accelsrc ! %s", self->description);
  self->pipeline = accel_gst_pipeline_new (
      stage, self->description, description, &self->watch, error);
  if (!self->pipeline)
    return FALSE;
  self->appsrc = GST_APP_SRC (
      gst_bin_get_by_name (GST_BIN (self->pipeline), "accelsrc"));
  if (GST_IS_BIN (self->pipeline))
    {
      g_autoptr (GstIterator) it
          = gst_bin_iterate_recurse (GST_BIN (self->pipeline));
      gst_iterator_fold (it, watch_sink_element, NULL, self);
      gst_iterator_resync (it);
      gst_iterator_fold (it, append_to_appended_stdout, NULL, NULL);
    }
  caps = accel_gst_caps_from_type (type, self->fps_n, self->fps_d);
  gst_video_info_from_caps (&self->info, caps);

  /* CUDA memory where the images are on the device and the description
   * takes it: no trip through host memory; else on a GPU page-locked
   * frames, which the copy out of the device fills by DMA alone */
  self->cuda_memory = FALSE;
  /* made again with the pipeline: the stage's device may have changed */
  gst_clear_object (&self->cuda);
  self->cuda = accel_gst_cuda_context_new (stage);
  if (self->cuda)
    {
      accel_gst_cuda_share (self->pipeline, &self->watch, self->cuda);
      if (type->memory == ACCEL_MEMORY_DEVICE)
        {
          g_autoptr (GstCaps) cuda = accel_gst_cuda_caps_from_system (caps);
          if (cuda
              && accel_gst_cuda_downstream_takes (
                  GST_ELEMENT (self->appsrc), cuda))
            {
              gst_caps_replace (&caps, cuda);
              self->cuda_memory = TRUE;
            }
        }
    }
  self->page_locked = self->cuda && !self->cuda_memory;
  if (!check_description_takes (self, caps, error)
      || !accel_gst_pipeline_check_elements (
          stage, self->pipeline, check_element_location, error)
      || !accel_gst_pipeline_check_elements (
          stage, self->pipeline, accel_gst_check_location_pattern, error))
    return FALSE;

  gst_app_src_set_caps (self->appsrc, caps);
  gst_app_src_set_stream_type (self->appsrc, GST_APP_STREAM_TYPE_STREAM);
  g_object_set (self->appsrc, "format", GST_FORMAT_TIME, "block", FALSE,
      "handle-segment-change", TRUE, NULL);
  gst_app_src_set_callbacks (self->appsrc, &callbacks, &self->watch, NULL);
  return TRUE;
}

/* the first file its description writes (a filesink's location): the
 * graph refuses a run that writes over its own input, another sink's
 * file, the pipeline file or its state, as for io.raw-file-sink */
static gchar *
accel_gst_sink_get_path (AccelFileOutput *output)
{
  return accel_gst_description_first_written (
      ACCEL_GST_SINK (output)->description);
}

static void
accel_gst_sink_file_output_init (AccelFileOutputInterface *iface)
{
  iface->get_path = accel_gst_sink_get_path;
}

/* the description is built here already, so a wrong one fails the
 * graph's preparation */
static gboolean
accel_gst_sink_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelGstSink *self = ACCEL_GST_SINK (stage);

  if (!accel_io_check_format (
          stage, &in_types[0], gst_formats, G_N_ELEMENTS (gst_formats), error))
    return FALSE;
  if (!accel_io_parse_framerate (
          self->framerate, &self->fps_n, &self->fps_d, error))
    {
      g_prefix_error (
          error, "stage '%s' (io.gst-sink): ", accel_stage_get_name (stage));
      return FALSE;
    }
  teardown (self);
  return build (self, &in_types[0], error);
}

/* @element's fd (an fdsink's) is a file it can seek in: it seeks to the
 * start of each byte segment a new pipeline sends (gdppay's, a muxer's),
 * writing over what is there. A pipe or a terminal cannot seek back, nor
 * can a file opened to append (a shell's >>) be written but at its end */
static gboolean
writes_seekable_fd (GstElement *element)
{
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (element), "fd");
  struct stat st;
  gint fd = -1, flags;

  if (!pspec || pspec->value_type != G_TYPE_INT)
    return FALSE;
  g_object_get (element, "fd", &fd, NULL);
  if (fd < 0 || fstat (fd, &st) != 0
      || !(S_ISREG (st.st_mode) || S_ISBLK (st.st_mode)))
    return FALSE;
  flags = fcntl (fd, F_GETFL);
  return flags >= 0 && !(flags & O_APPEND);
}

/* an element of the description that writes files: a new pipeline would
 * open them again from the start, or seek back there */
static gboolean
find_file_writer (const GValue *item, GValue *ret, gpointer user_data)
{
  GstElement *element = g_value_get_object (item);

  if (!GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SINK)
      || (!g_object_class_find_property (
              G_OBJECT_GET_CLASS (element), "location")
          && !writes_seekable_fd (element)))
    return TRUE;
  g_value_set_string (ret, GST_OBJECT_NAME (element));
  return FALSE;
}

static gboolean
accel_gst_sink_start (AccelStage *stage, GError **error)
{
  AccelGstSink *self = ACCEL_GST_SINK (stage);
  const AccelType *type = accel_stage_get_input_type (stage, 0);
  gboolean restart = accel_stage_is_restarting (stage);
  AccelCommitLog *log = accel_stage_get_commit_log (stage);
  /* a resume from a state directory: frames already written */
  gboolean resume = log && accel_commit_log_get_n_committed (log) > 0;
  g_autoptr (GError) state_error = NULL;
  AccelType pinned;

  if (!self->pipeline && !build (self, type, error))
    return FALSE;
  if ((restart || resume) && GST_IS_BIN (self->pipeline))
    {
      g_auto (GValue) writer = G_VALUE_INIT;
      g_autoptr (GstIterator) it
          = gst_bin_iterate_recurse (GST_BIN (self->pipeline));

      g_value_init (&writer, G_TYPE_STRING);
      gst_iterator_fold (it, find_file_writer, &writer, NULL);
      if (g_value_get_string (&writer))
        {
          g_set_error (error, ACCEL_ERROR,
              restart ? ACCEL_ERROR_FAILED : ACCEL_ERROR_STATE_MISMATCH,
              "cannot %s: its element '%s' would write its files again from "
              "the start%s",
              restart ? "restart" : "resume", g_value_get_string (&writer),
              restart ? "" : " (discard the state to start over)");
          teardown (self);
          return FALSE;
        }
    }
  if (self->cuda_memory || self->page_locked)
    {
      g_autoptr (GstCaps) caps = gst_app_src_get_caps (self->appsrc);
      /* the frames queued in the appsrc, the one in flight and one that
       * downstream holds */
      self->pool = accel_gst_cuda_pool_new (
          self->cuda, caps, self->page_locked, APPSRC_QUEUE + 2, error);
      if (!self->pool)
        {
          teardown (self);
          return FALSE;
        }
    }
  if (accel_gst_pipeline_set_state_within (stage, self->pipeline,
          GST_STATE_PLAYING, self->start_timeout_ms * 1000, &state_error)
      == GST_STATE_CHANGE_FAILURE)
    {
      if (state_error)
        g_propagate_error (error, g_steal_pointer (&state_error));
      else if (accel_gst_pipeline_is_abandoned (self->pipeline)
               && accel_stage_is_interrupted (stage))
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
            "stopped while the GStreamer pipeline was starting");
      else if (accel_gst_pipeline_is_abandoned (self->pipeline))
        accel_gst_set_start_timeout_error (error, self->start_timeout_ms,
            "start-timeout", "a filesink opening a FIFO no one reads");
      else if (!accel_gst_watch_wait_error (
                   &self->watch, ACCEL_GST_ERROR_WAIT_US, error))
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
            "the GStreamer pipeline could not start playing");
      teardown (self);
      release_pool (self);
      return FALSE;
    }
  self->playing = TRUE;
  self->stuck = FALSE;
  self->rebase = restart || resume;
  if (accel_stage_is_host (stage) || self->pool)
    return TRUE;
  pinned = *type;
  pinned.memory = ACCEL_MEMORY_PINNED;
  self->staging
      = accel_buffer_new (accel_stage_get_device (stage), &pinned, error);
  return self->staging != NULL;
}

/* why the pipeline does not play, or NULL: its sinks that have no frame
 * to preroll with, while the others wait in their preroll */
static gchar *
get_unprerolled (AccelGstSink *self)
{
  g_autofree gchar *sinks = accel_gst_pipeline_get_unprerolled (self->pipeline);

  if (!sinks)
    return NULL;
  return g_strdup_printf ("its sink %s got no frame to preroll with, and "
                          "the pipeline plays only once every sink has one: "
                          "a branch that drops every frame or waits for "
                          "something?",
      sinks);
}

/* the pipeline's end of stream came, ours or its own */
static gboolean
pipeline_ended (AccelGstSink *self)
{
  gboolean ended;

  g_mutex_lock (&self->watch.lock);
  ended = self->watch.eos;
  g_mutex_unlock (&self->watch.lock);
  return ended;
}

/* the end of stream came. Where the appsrc's last push was refused, an
 * element ended the stream (one that ends it after so many buffers) and
 * dropped the frames that reached no sink, which a run ending 0 said
 * nothing of: counted lost, where the description is counted; where not,
 * its files may lack the last frames */
static gboolean
finished_whole (AccelGstSink *self, GError **error)
{
  g_autoptr (GstPad) pad
      = gst_element_get_static_pad (GST_ELEMENT (self->appsrc), "src");
  guint64 unreached;

  if (gst_pad_get_last_flow_return (pad) != GST_FLOW_EOS
      || (unreached = get_n_unreached (self)) == 0)
    return TRUE;
  if (unreached == G_MAXUINT64)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the GStreamer pipeline ended its stream before the graph did: "
          "its files may lack the last of the %" G_GUINT64_FORMAT
          " frames it was given",
          self->pushed);
      return FALSE;
    }
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "the GStreamer pipeline ended its stream before the graph did: the "
      "last %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
      " frames it was given reached none of its sinks",
      unreached, self->pushed);
  count_lost_in_pipeline (self);
  return FALSE;
}

/* end of stream into the appsrc, then the wait for the pipeline's own: only
 * then are its files complete */
static gboolean
finish (AccelGstSink *self, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree gchar *unprerolled = NULL;
  gint64 first_ms;

  if (!self->playing)
    return TRUE;
  self->playing = FALSE;
  /* an error that failed a frame was the supervisor's to answer (on-fault
   * stop or resume): the frames it skipped and those the pipeline dropped
   * are counted, and the run ends incomplete (exit status 3), where it
   * failed once more here (status 1) and counted none lost */
  if (self->error_taken)
    {
      count_lost_in_pipeline (self);
      return TRUE;
    }
  /* an error posted after the last frame went in: the files are not whole */
  if (accel_gst_watch_get_error (&self->watch, error))
    return FALSE;
  if (self->stuck)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
          "the GStreamer pipeline took no frame past the stage's watchdog: "
          "its end of stream is not waited for, and its files are not whole");
      return FALSE;
    }
  if (gst_app_src_end_of_stream (self->appsrc) != GST_FLOW_OK)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "the GStreamer pipeline refused end of stream");
      return FALSE;
    }
  /* a pipeline that cannot start playing never finishes: it is waited for
   * as long as its start (end of stream prerolls a sink it reaches) */
  first_ms = MIN (self->start_timeout_ms, self->eos_timeout_ms);
  if (accel_gst_watch_wait_eos (&self->watch, first_ms * 1000, &local))
    return finished_whole (self, error);
  if (g_error_matches (local, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT))
    {
      unprerolled = get_unprerolled (self);
      if (!unprerolled && first_ms < self->eos_timeout_ms)
        {
          g_clear_error (&local);
          if (accel_gst_watch_wait_eos (&self->watch,
                  (self->eos_timeout_ms - first_ms) * 1000, &local))
            return finished_whole (self, error);
        }
      if (g_error_matches (local, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT))
        {
          g_clear_error (&local);
          g_set_error (&local, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
              "the GStreamer pipeline did not finish within %" G_GINT64_FORMAT
              " ms of its end of stream%s%s",
              unprerolled ? first_ms : self->eos_timeout_ms,
              unprerolled ? ", and cannot start playing: " : "",
              unprerolled ? unprerolled : "");
        }
    }
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

/* the stream ended: the graph's end of stream waits for the files */
static gboolean
accel_gst_sink_eos (AccelStage *stage, GError **error)
{
  return finish (ACCEL_GST_SINK (stage), error);
}

static void
accel_gst_sink_stop (AccelStage *stage)
{
  AccelGstSink *self = ACCEL_GST_SINK (stage);
  g_autoptr (GError) error = NULL;

  /* stopped before the end of the stream: still close the files (an error
   * the pipeline posted already failed a frame or the end of stream), but
   * for a pipeline that took no frame for the watchdog: a restart waited
   * out eos-timeout (30 s by default) on it; one that ended its stream
   * before the graph did failed a frame saying so */
  if (accel_gst_watch_get_error (&self->watch, NULL) || self->stuck
      || (self->playing && pipeline_ended (self)))
    {
      self->playing = FALSE;
      count_lost_in_pipeline (self);
    }
  else if (!finish (self, &error))
    {
      g_warning ("stage '%s' (io.gst-sink): the GStreamer pipeline did not "
                 "finish: %s",
          accel_stage_get_name (stage), error->message);
      /* nor did the frames it held, which go with it */
      count_lost_in_pipeline (self);
    }
  teardown (self);
  g_clear_pointer (&self->staging, accel_buffer_unref);
  release_pool (self);
}

/* a frame from the pool, filled from the device on the stream: GStreamer's
 * CUDA memory (1.22 cannot wrap the engine's buffer, so a device to device
 * copy), or page-locked system memory (by DMA alone, with no staging copy
 * by the CUDA driver, and no copy of ours on the host). Neither has a
 * stream or event that readers wait on, so GStreamer must get the buffer
 * with the copy already done. Rather than block this thread on the stream
 * (cudaStreamSynchronize), render() pushes it: the engine runs it once the
 * stream's work is done, through the stage's completion strategy. */
static AccelFlow
copy_to_pool_frame (AccelGstSink *self, AccelFrame *frame, GError **error)
{
  AccelBuffer *in = frame->inputs[0];
  GstBuffer *buffer = NULL;

  /* a frame whose wait failed was never rendered */
  gst_clear_buffer (&self->pending);
  if (gst_buffer_pool_acquire_buffer (self->pool, &buffer, NULL) != GST_FLOW_OK)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
          "cannot get a GStreamer %s buffer",
          self->cuda_memory ? "CUDA memory" : "page-locked memory");
      return ACCEL_FLOW_ERROR;
    }
  if (!accel_gst_cuda_copy_to_buffer (frame->stream, accel_buffer_get_data (in),
          accel_buffer_peek_type (in)->format, &self->info, buffer, error))
    {
      gst_buffer_unref (buffer);
      return ACCEL_FLOW_ERROR;
    }
  self->pending = buffer;
  return ACCEL_FLOW_OK;
}

/* the GPU part: copy the image out; render() pushes it once that is done */
static AccelFlow
accel_gst_sink_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelGstSink *self = ACCEL_GST_SINK (stage);
  AccelBuffer *in = frame->inputs[0];

  if (self->pool)
    return copy_to_pool_frame (self, frame, error);
  if (!self->staging)
    return ACCEL_FLOW_OK;
  return accel_io_copy_async (frame->stream,
             accel_buffer_get_data (self->staging), accel_buffer_get_data (in),
             accel_buffer_get_size (in), error)
             ? ACCEL_FLOW_OK
             : ACCEL_FLOW_ERROR;
}

/* waits while GStreamer has a full queue: that is the backpressure. A
 * pipeline that ended its stream takes no more frames: frame @sequence
 * would be thrown away, and the queue never drain. The stage's own
 * watchdog, when set, bounds the wait, in which GStreamer takes no frame
 * at all (the graph's watchdog leaves backpressure out): a description
 * that stopped taking frames (an element that blocks) held the stage, and
 * the run, for good */
static gboolean
wait_for_room (AccelGstSink *self, guint64 sequence, GError **error)
{
  AccelGstWatch *watch = &self->watch;
  gint64 began = g_get_monotonic_time ();

  for (;;)
    {
      gint64 now = g_get_monotonic_time ();
      gint64 until = now + ACCEL_IO_WAIT_SLICE_US;
      gint64 watchdog_ms = 0;
      g_autofree gchar *unprerolled = NULL;

      if (take_watch_error (self, error))
        return FALSE;
      if (pipeline_ended (self))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
              "the GStreamer pipeline ended its stream before the graph "
              "did: frame %" G_GUINT64_FORMAT
              " and those after it cannot be written, and those it still "
              "queued were dropped",
              sequence);
          return FALSE;
        }
      if (gst_app_src_get_current_level_buffers (self->appsrc) < APPSRC_QUEUE)
        {
          self->stuck = FALSE;
          return TRUE;
        }
      /* it may change as the graph runs */
      g_object_get (self, "watchdog", &watchdog_ms, NULL);
      if (watchdog_ms > 0 && now - began > watchdog_ms * 1000)
        {
          g_autofree gchar *unprerolled = get_unprerolled (self);
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
              "the GStreamer pipeline took no frame for %" G_GINT64_FORMAT
              " ms, past the stage's %" G_GINT64_FORMAT
              " ms watchdog: frame %" G_GUINT64_FORMAT
              " waited for room behind the %d it holds (%s)",
              (now - began) / 1000, watchdog_ms, sequence, APPSRC_QUEUE,
              unprerolled ? unprerolled
                          : "an element of the description that blocks?");
          self->stuck = TRUE;
          return FALSE;
        }
      /* a pipeline that cannot start playing takes no more frames, with
       * a watchdog or without: its start is bounded as the state change
       * is */
      if (now - began > self->start_timeout_ms * 1000
          && (unprerolled = get_unprerolled (self)))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
              "the GStreamer pipeline took no frame for %" G_GINT64_FORMAT
              " ms (start-timeout) and cannot start playing: frame "
              "%" G_GUINT64_FORMAT " waited for room behind the %d it holds "
              "(%s)",
              (now - began) / 1000, sequence, APPSRC_QUEUE, unprerolled);
          self->stuck = TRUE;
          return FALSE;
        }
      g_mutex_lock (&watch->lock);
      g_cond_wait_until (&watch->cond, &watch->lock, until);
      g_mutex_unlock (&watch->lock);
      /* a parameter change waits for the frame: returning would lose it */
      if (accel_stage_should_stop (ACCEL_STAGE (self)))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
              "stopped while the GStreamer pipeline took no data");
          return FALSE;
        }
    }
}

/* pushes @buffer (taken) in a segment that starts at its timestamp: a
 * pipeline that goes on at a later frame (a restart, a resume) runs from
 * there, where a sink synced to the clock held the frame for the time
 * already done (frame 500 at 30/1 for 16 s). The timestamps stay the
 * frames' own, and so does the stream time (the segment's time); the
 * running time starts at 0, as after a seek */
static GstFlowReturn
push_rebased (AccelGstSink *self, GstBuffer *buffer)
{
  g_autoptr (GstCaps) caps = gst_app_src_get_caps (self->appsrc);
  g_autoptr (GstSample) sample = NULL;
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.start = segment.time = segment.position = GST_BUFFER_PTS (buffer);
  sample = gst_sample_new (buffer, caps, &segment, NULL);
  gst_buffer_unref (buffer);
  return gst_app_src_push_sample (self->appsrc, sample);
}

static AccelFlow
accel_gst_sink_render (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelGstSink *self = ACCEL_GST_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  AccelBuffer *data = self->staging ? self->staging : in;
  gint64 pts = accel_buffer_get_pts (in);
  gint64 duration = accel_buffer_get_duration (in);
  gint64 frame_duration = accel_io_frame_duration (self->fps_n, self->fps_d);
  GstVideoFrame vframe;
  GstBuffer *buffer;
  GstFlowReturn ret;
  gboolean room;

  /* GStreamer taking its time is backpressure, not the frame's work */
  accel_stage_wait_begin (stage);
  room = wait_for_room (self, frame->sequence, error);
  accel_stage_wait_end (stage);
  if (!room)
    return ACCEL_FLOW_ERROR;

  if (self->pool)
    {
      buffer = g_steal_pointer (&self->pending);
      g_return_val_if_fail (buffer != NULL, ACCEL_FLOW_ERROR);
    }
  else
    {
      buffer = gst_buffer_new_allocate (
          NULL, GST_VIDEO_INFO_SIZE (&self->info), NULL);
      /* rows and planes padded to GStreamer's alignment: the padding
       * zeroed, where it held whatever the heap held (files differed from
       * run to run) */
      if (GST_VIDEO_INFO_SIZE (&self->info) != accel_buffer_get_size (data))
        gst_buffer_memset (buffer, 0, 0, GST_VIDEO_INFO_SIZE (&self->info));
      if (!gst_video_frame_map (&vframe, &self->info, buffer, GST_MAP_WRITE))
        {
          gst_buffer_unref (buffer);
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
              "cannot map a GStreamer buffer for writing");
          return ACCEL_FLOW_ERROR;
        }
      accel_gst_packed_to_frame (accel_buffer_get_data (data),
          accel_buffer_peek_type (in)->format, &vframe);
      gst_video_frame_unmap (&vframe);
    }

  /* frames without timestamps get them from the frame rate */
  if (pts < 0 && frame_duration > 0)
    pts = accel_io_frame_pts (frame->sequence, self->fps_n, self->fps_d);
  if (duration < 0)
    duration = frame_duration;
  GST_BUFFER_PTS (buffer) = pts >= 0 ? (GstClockTime)pts : GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buffer)
      = duration >= 0 ? (GstClockTime)duration : GST_CLOCK_TIME_NONE;
  GST_BUFFER_OFFSET (buffer) = frame->sequence;

  if (self->rebase && pts >= 0)
    {
      self->rebase = FALSE;
      ret = push_rebased (self, buffer);
    }
  else
    ret = gst_app_src_push_buffer (self->appsrc, buffer);
  self->pushed += ret == GST_FLOW_OK;
  if (ret != GST_FLOW_OK)
    {
      if (!take_watch_error (self, error))
        g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
            "the GStreamer pipeline refused an image: %s",
            gst_flow_get_name (ret));
      return ACCEL_FLOW_ERROR;
    }
  return ACCEL_FLOW_OK;
}

static void
accel_gst_sink_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelGstSink *self = ACCEL_GST_SINK (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;
  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      g_free (self->description);
      self->description = g_value_dup_string (value);
      break;
    case PROP_FRAMERATE:
      g_free (self->framerate);
      self->framerate = g_value_dup_string (value);
      break;
    case PROP_EOS_TIMEOUT:
      self->eos_timeout_ms = g_value_get_int64 (value);
      break;
    case PROP_START_TIMEOUT:
      self->start_timeout_ms = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_gst_sink_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelGstSink *self = ACCEL_GST_SINK (object);

  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_FRAMERATE:
      g_value_set_string (value, self->framerate);
      break;
    case PROP_EOS_TIMEOUT:
      g_value_set_int64 (value, self->eos_timeout_ms);
      break;
    case PROP_START_TIMEOUT:
      g_value_set_int64 (value, self->start_timeout_ms);
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
accel_gst_sink_dispose (GObject *object)
{
  AccelGstSink *self = ACCEL_GST_SINK (object);

  teardown (self);
  release_pool (self);
  gst_clear_object (&self->cuda);
  G_OBJECT_CLASS (accel_gst_sink_parent_class)->dispose (object);
}

static void
accel_gst_sink_finalize (GObject *object)
{
  AccelGstSink *self = ACCEL_GST_SINK (object);

  g_free (self->description);
  g_free (self->framerate);
  accel_gst_watch_clear (&self->watch);
  g_ptr_array_unref (self->reached);
  G_OBJECT_CLASS (accel_gst_sink_parent_class)->finalize (object);
}

static void
accel_gst_sink_class_init (AccelGstSinkClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType in;

  gobject_class->set_property = accel_gst_sink_set_property;
  gobject_class->get_property = accel_gst_sink_get_property;
  gobject_class->dispose = accel_gst_sink_dispose;
  gobject_class->finalize = accel_gst_sink_finalize;
  stage_class->negotiate = accel_gst_sink_negotiate;
  stage_class->start = accel_gst_sink_start;
  stage_class->stop = accel_gst_sink_stop;
  stage_class->eos = accel_gst_sink_eos;
  stage_class->process = accel_gst_sink_process;
  stage_class->render = accel_gst_sink_render;

  g_object_class_install_property (gobject_class, PROP_DESCRIPTION,
      g_param_spec_string ("description", "Description",
          "A gst-launch description that takes video/x-raw, in system or "
          "CUDA memory; \"appsrc ! \" is put in front",
          NULL, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_FRAMERATE,
      g_param_spec_string ("framerate", "Frame rate",
          "Frames per second as N/D, for the caps and for images without "
          "timestamps (0/1: variable)",
          "30/1", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_EOS_TIMEOUT,
      g_param_spec_int64 ("eos-timeout", "End of stream timeout",
          "Milliseconds the description may take to finish (flush encoders, "
          "close files) once the stage stops",
          1, G_MAXINT64 / 1000, 30000, flags));
  g_object_class_install_property (gobject_class, PROP_START_TIMEOUT,
      g_param_spec_int64 ("start-timeout", "Start timeout",
          "Milliseconds the description's elements may take to start (a "
          "filesink opening a FIFO waits for its reader)",
          1, G_MAXINT64 / 1000000, 10000, flags));
  g_object_class_install_property (gobject_class, PROP_MEMORY,
      g_param_spec_string ("memory", "Memory",
          "What the appsrc hands GStreamer, chosen when the graph is "
          "prepared: \"cuda\" (GStreamer's CUDA memory, on a GPU when the "
          "description takes it), \"page-locked\" (system memory that the "
          "copy out of the GPU fills by DMA alone, on a GPU otherwise) or "
          "\"system\"",
          "system", G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  accel_stage_class_set_metadata (stage_class, "io.gst-sink",
      "Images into a GStreamer description (encoders, files, displays, "
      "network streams), through an appsrc");
  accel_type_init_image (
      &in, ACCEL_FORMAT_ANY, ACCEL_MEMORY_ANY, ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "in", &in,
      "RGBA8, BGRA8, GRAY8, NV12 or I420 images");
}

static void
accel_gst_sink_init (AccelGstSink *self)
{
  accel_gst_watch_init (&self->watch);
  self->reached = g_ptr_array_new ();
}
