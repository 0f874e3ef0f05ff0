/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: base class of the simulation sources: caps in CUDA or system
 * memory, the shared CUDA context, where each frame is rendered, frame
 * timing, and the pointer from navigation events */
#include "gstaccelsimsrc.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <math.h>
#include <string.h>

#include "gstaccelcuda.h"
#include "gstaccelimage.h"
#include "gstaccelsyncmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_sim_src_debug);
#define GST_CAT_DEFAULT gst_accel_sim_src_debug
/* what the base class logs goes to the element's category */
#define CAT(obj) GST_ACCEL_SIM_SRC_CAT (obj)

/* a framerate from 1/G_MAXINT: a simulation steps a frame at a time, and a
 * variable framerate (0/1) would give its frames no timestamps, which
 * aggregators such as accelblend and compositor refuse */
#define SIM_CAPS_FIELDS                                                        \
  "format = (string) RGBA, width = " GST_VIDEO_SIZE_RANGE                      \
  ", height = " GST_VIDEO_SIZE_RANGE                                           \
  ", framerate = (fraction) [ 1/2147483647, 2147483647/1 ]"
#define SIM_CUDA_CAPS                                                          \
  "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), " SIM_CAPS_FIELDS
#define SIM_SYSTEM_CAPS "video/x-raw, " SIM_CAPS_FIELDS

static GstStaticPadTemplate src_template
    = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (SIM_CUDA_CAPS ";" SIM_SYSTEM_CAPS));

#define DEFAULT_SYNC_META TRUE

enum
{
  PROP_0,
  PROP_SYNC_META,
};

typedef struct
{
  GstCudaContext *context;   /* NULL: the host implementation */
  AccelStream *sync_stream;  /* libaccel's: the fences hold it */
  cudaStream_t stream;       /* its handle */
  gboolean cuda_memory;      /* the negotiated caps are in CUDA memory */
  gboolean downstream_waits; /* downstream takes GstAccelSyncMeta */
  gboolean sync_meta;        /* property */
  GstAccelStaging staging;   /* system memory on a GPU: the frame there */

  GstVideoInfo info;
  gboolean running; /* start_sim() succeeded */
  guint64 frames;   /* since start (the buffers' offsets) */
  /* the timestamps count from the last framerate change: base_time is
   * the time reached then, rate_frames the frames since */
  GstClockTime base_time;
  guint64 rate_frames;

  GstAccelPointer pointer; /* under the object lock */
} GstAccelSimSrcPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (
    GstAccelSimSrc, gst_accel_sim_src, GST_TYPE_BASE_SRC,
    G_ADD_PRIVATE (GstAccelSimSrc);
    GST_DEBUG_CATEGORY_INIT (gst_accel_sim_src_debug, "accelsimsrc", 0,
        "accel simulation source base class"));

static void
gst_accel_sim_src_set_context (GstElement *element, GstContext *context)
{
  GstAccelSimSrcPrivate *priv
      = gst_accel_sim_src_get_instance_private (GST_ACCEL_SIM_SRC (element));

  if (gst_accel_cuda_usable ())
    gst_cuda_handle_set_context (element, context, -1, &priv->context);
  GST_ELEMENT_CLASS (gst_accel_sim_src_parent_class)
      ->set_context (element, context);
}

static gboolean
gst_accel_sim_src_query (GstBaseSrc *src, GstQuery *query)
{
  GstAccelSimSrcPrivate *priv
      = gst_accel_sim_src_get_instance_private (GST_ACCEL_SIM_SRC (src));

  if (gst_accel_cuda_handle_context_query (
          GST_ELEMENT (src), &priv->context, query))
    return TRUE;
  return GST_BASE_SRC_CLASS (gst_accel_sim_src_parent_class)
      ->query (src, query);
}

static GstStaticCaps system_caps = GST_STATIC_CAPS (SIM_SYSTEM_CAPS);

/* without a GPU only system memory can be offered */
static GstCaps *
gst_accel_sim_src_get_caps (GstBaseSrc *src, GstCaps *filter)
{
  GstCaps *caps = gst_static_caps_get (
      gst_accel_cuda_usable () ? &src_template.static_caps : &system_caps);

  if (filter)
    {
      GstCaps *tmp
          = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);

      gst_caps_unref (caps);
      caps = tmp;
    }
  return caps;
}

static GstCaps *
gst_accel_sim_src_fixate (GstBaseSrc *src, GstCaps *caps)
{
  GstStructure *s;

  caps = gst_caps_make_writable (gst_caps_truncate (caps));
  s = gst_caps_get_structure (caps, 0);
  gst_structure_fixate_field_nearest_int (s, "width", 640);
  gst_structure_fixate_field_nearest_int (s, "height", 480);
  gst_structure_fixate_field_nearest_fraction (s, "framerate", 30, 1);
  return GST_BASE_SRC_CLASS (gst_accel_sim_src_parent_class)
      ->fixate (src, caps);
}

static void
stop_sim (GstAccelSimSrc *self)
{
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);

  if (!priv->running)
    return;
  GST_ACCEL_SIM_SRC_GET_CLASS (self)->stop_sim (self);
  priv->running = FALSE;
}

static void
release_gpu (GstAccelSimSrcPrivate *priv)
{
  gst_accel_staging_clear (&priv->staging);
  g_clear_pointer (&priv->sync_stream, accel_stream_unref);
  priv->stream = NULL;
}

static gboolean
gst_accel_sim_src_start (GstBaseSrc *src)
{
  GstAccelSimSrcPrivate *priv
      = gst_accel_sim_src_get_instance_private (GST_ACCEL_SIM_SRC (src));

  priv->frames = 0;
  priv->base_time = 0;
  priv->rate_frames = 0;
  memset (&priv->pointer, 0, sizeof priv->pointer);
  /* without a GPU the host implementation runs: no error */
  if (!gst_accel_cuda_usable ())
    {
      GST_CAT_INFO_OBJECT (
          CAT (src), src, "no usable GPU: the host implementation runs");
      return TRUE;
    }
  if (!gst_accel_cuda_ensure_context (GST_ELEMENT (src), &priv->context))
    return FALSE;
  GST_CAT_INFO_OBJECT (
      CAT (src), src, "on the GPU, in %" GST_PTR_FORMAT, priv->context);
  gst_accel_cuda_scope_enter (priv->context);
  priv->sync_stream = gst_accel_sync_stream_new (priv->context);
  gst_accel_cuda_scope_leave ();
  if (!priv->sync_stream)
    {
      GST_ELEMENT_ERROR (src, RESOURCE, FAILED, (NULL),
          ("cannot create a CUDA stream (see the accelsyncmeta log)"));
      return FALSE;
    }
  priv->stream = accel_stream_get_handle (priv->sync_stream);
  return TRUE;
}

static gboolean
gst_accel_sim_src_stop (GstBaseSrc *src)
{
  GstAccelSimSrc *self = GST_ACCEL_SIM_SRC (src);
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);

  if (priv->context)
    gst_accel_cuda_scope_enter (priv->context);
  stop_sim (self);
  release_gpu (priv);
  if (priv->context)
    gst_accel_cuda_scope_leave ();
  gst_clear_object (&priv->context);
  GST_CAT_DEBUG_OBJECT (CAT (src), src, "stopped, simulation state freed");
  return TRUE;
}

/* a framerate change keeps the timestamps going on from the time reached,
 * at the new rate, instead of recounting the frames since the start at it */
static void
rebase_time (GstAccelSimSrcPrivate *priv, const GstVideoInfo *next)
{
  gint fps_n = GST_VIDEO_INFO_FPS_N (&priv->info);
  gint fps_d = GST_VIDEO_INFO_FPS_D (&priv->info);

  if (fps_n == GST_VIDEO_INFO_FPS_N (next)
      && fps_d == GST_VIDEO_INFO_FPS_D (next))
    return;
  if (fps_n > 0)
    priv->base_time
        += gst_util_uint64_scale (priv->rate_frames, fps_d * GST_SECOND, fps_n);
  priv->rate_frames = 0;
}

/* (re)starts the simulation where the size changed */
static gboolean
gst_accel_sim_src_set_caps (GstBaseSrc *src, GstCaps *caps)
{
  GstAccelSimSrc *self = GST_ACCEL_SIM_SRC (src);
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);
  GstVideoInfo info;
  gboolean ok;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_accel_cuda_caps_are_cuda (caps) && !priv->context)
    {
      GST_ELEMENT_ERROR (src, CORE, NEGOTIATION, (NULL),
          ("CUDA memory was negotiated but no GPU is usable here"));
      return FALSE;
    }
  rebase_time (priv, &info);
  priv->cuda_memory = gst_accel_cuda_caps_are_cuda (caps);
  if (priv->running
      && GST_VIDEO_INFO_WIDTH (&info) == GST_VIDEO_INFO_WIDTH (&priv->info)
      && GST_VIDEO_INFO_HEIGHT (&info) == GST_VIDEO_INFO_HEIGHT (&priv->info))
    {
      /* the same size: the simulation goes on */
      priv->info = info;
      GST_CAT_DEBUG_OBJECT (CAT (src), src, "caps %" GST_PTR_FORMAT, caps);
      return TRUE;
    }
  priv->info = info;
  if (priv->context)
    gst_accel_cuda_scope_enter (priv->context);
  stop_sim (self);
  ok = GST_ACCEL_SIM_SRC_GET_CLASS (self)->start_sim (self, priv->stream,
      GST_VIDEO_INFO_WIDTH (&priv->info), GST_VIDEO_INFO_HEIGHT (&priv->info));
  if (priv->context)
    gst_accel_cuda_scope_leave ();
  if (!ok)
    {
      GST_ELEMENT_ERROR (src, RESOURCE, NO_SPACE_LEFT, (NULL),
          ("cannot make the simulation's state for %dx%d frames",
              GST_VIDEO_INFO_WIDTH (&priv->info),
              GST_VIDEO_INFO_HEIGHT (&priv->info)));
      return FALSE;
    }
  priv->running = TRUE;
  GST_CAT_DEBUG_OBJECT (CAT (src), src, "caps %" GST_PTR_FORMAT, caps);
  GST_CAT_INFO_OBJECT (CAT (src), src, "%dx%d frames in %s memory, %s",
      GST_VIDEO_INFO_WIDTH (&priv->info), GST_VIDEO_INFO_HEIGHT (&priv->info),
      priv->cuda_memory ? "CUDA" : "system",
      priv->cuda_memory ? "rendered in place on the GPU"
      : priv->context   ? "rendered on the GPU into staging and copied out, "
                          "the host waits for the GPU"
                        : "rendered by the host implementation");
  return TRUE;
}

/* CUDA memory: a pool of our context (or downstream's in it), and whether
 * downstream waits on the sync meta; system memory: a video pool */
static gboolean
gst_accel_sim_src_decide_allocation (GstBaseSrc *src, GstQuery *query)
{
  GstAccelSimSrcPrivate *priv
      = gst_accel_sim_src_get_instance_private (GST_ACCEL_SIM_SRC (src));
  GstCaps *caps;
  GstVideoInfo info;

  priv->downstream_waits = FALSE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_accel_cuda_caps_are_cuda (caps))
    {
      if (!gst_accel_cuda_decide_allocation (priv->context, query))
        return FALSE;
      priv->downstream_waits = priv->sync_meta
                               && gst_query_find_allocation_meta (
                                   query, GST_ACCEL_SYNC_META_API_TYPE, NULL);
      GST_CAT_DEBUG_OBJECT (CAT (src), src, "%s",
          priv->downstream_waits
              ? "downstream takes the sync meta: frames are pushed with "
                "their GPU work in flight"
          : priv->sync_meta
              ? "downstream does not take the sync meta: the host waits "
                "for the GPU before each push"
              : "sync-meta=false: the host waits for the GPU before each "
                "push");
    }
  else if (gst_query_get_n_allocation_pools (query) == 0)
    {
      GstBufferPool *pool = gst_video_buffer_pool_new ();
      GstStructure *config = gst_buffer_pool_get_config (pool);

      gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
      gst_buffer_pool_config_add_option (
          config, GST_BUFFER_POOL_OPTION_VIDEO_META);
      gst_buffer_pool_set_config (pool, config);
      gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
      gst_object_unref (pool);
    }
  return GST_BASE_SRC_CLASS (gst_accel_sim_src_parent_class)
      ->decide_allocation (src, query);
}

/* takes the pointer as this frame sees it; movement and clicks start over */
static void
take_pointer (GstAccelSimSrc *self, GstAccelPointer *pointer)
{
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);

  GST_OBJECT_LOCK (self);
  *pointer = priv->pointer;
  priv->pointer.dx = priv->pointer.dy = 0.0;
  priv->pointer.clicks = 0;
  GST_OBJECT_UNLOCK (self);
}

/* the GPU renders into the frame, or into staging that is copied out */
static int
render_gpu (GstAccelSimSrc *self, const GstAccelPointer *pointer,
    GstBuffer *buf, GstVideoFrame *frame)
{
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);
  GstAccelSimSrcClass *klass = GST_ACCEL_SIM_SRC_GET_CLASS (self);
  int w = GST_VIDEO_FRAME_WIDTH (frame), h = GST_VIDEO_FRAME_HEIGHT (frame);
  GstAccelFrameSync sync;
  GstAccelImage image;
  int err, end;

  if (priv->cuda_memory)
    {
      err = gst_accel_frame_sync_begin (
          &sync, NULL, 0, buf, priv->downstream_waits, priv->sync_stream);
      GST_CAT_LOG_OBJECT (CAT (self), self, "%s",
          sync.host_wait ? "the host waits for the GPU before the push"
                         : "pushed with its GPU work in flight, downstream "
                           "waits on the sync meta");
      if (!err)
        err = klass->step (self, priv->stream, pointer,
            GST_VIDEO_FRAME_PLANE_DATA (frame, 0),
            GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0), w, h);
      end = gst_accel_frame_sync_end (&sync, priv->sync_stream);
      return err ? err : end;
    }

  err = gst_accel_image_stage (
      &image, &priv->staging, TRUE, frame, FALSE, priv->stream);
  if (!err)
    err = klass->step (
        self, priv->stream, pointer, image.data, image.pitch, w, h);
  if (!err)
    err = gst_accel_image_unstage (&image, &priv->staging, frame, priv->stream);
  end = cudaStreamSynchronize (priv->stream);
  return err ? err : end;
}

static GstFlowReturn
gst_accel_sim_src_fill (
    GstBaseSrc *src, guint64 offset, guint size, GstBuffer *buf)
{
  GstAccelSimSrc *self = GST_ACCEL_SIM_SRC (src);
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);
  GstAccelSimSrcClass *klass = GST_ACCEL_SIM_SRC_GET_CLASS (self);
  GstMapFlags cuda = priv->cuda_memory ? GST_MAP_CUDA : 0;
  GstAccelPointer pointer;
  GstVideoFrame frame;
  gint fps_n = GST_VIDEO_INFO_FPS_N (&priv->info);
  gint fps_d = GST_VIDEO_INFO_FPS_D (&priv->info);
  int err;

  if (!priv->running)
    return GST_FLOW_NOT_NEGOTIATED;
  take_pointer (self, &pointer);
  if (!gst_video_frame_map (&frame, &priv->info, buf,
          GST_MAP_WRITE | cuda | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))
    {
      GST_ELEMENT_ERROR (
          self, STREAM, FAILED, (NULL), ("cannot map the output frame"));
      return GST_FLOW_ERROR;
    }
  if (priv->context)
    {
      gst_accel_cuda_scope_enter (priv->context);
      err = render_gpu (self, &pointer, buf, &frame);
      gst_accel_cuda_scope_leave ();
    }
  else
    err = klass->step (self, NULL, &pointer,
        GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        GST_VIDEO_FRAME_WIDTH (&frame), GST_VIDEO_FRAME_HEIGHT (&frame));
  gst_video_frame_unmap (&frame);
  if (err)
    {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
          ("simulation step failed: %s",
              priv->context ? cudaGetErrorString ((cudaError_t)err)
                            : "invalid parameters"));
      return GST_FLOW_ERROR;
    }

  /* frame n since the last framerate change at n / framerate after the
   * time reached then */
  if (fps_n > 0)
    {
      GstClockTime at = gst_util_uint64_scale (
          priv->rate_frames, fps_d * GST_SECOND, fps_n);
      GstClockTime next = gst_util_uint64_scale (
          priv->rate_frames + 1, fps_d * GST_SECOND, fps_n);

      GST_BUFFER_PTS (buf) = priv->base_time + at;
      GST_BUFFER_DURATION (buf) = next - at;
    }
  priv->rate_frames++;
  GST_BUFFER_OFFSET (buf) = priv->frames;
  GST_BUFFER_OFFSET_END (buf) = ++priv->frames;
  GST_CAT_LOG_OBJECT (CAT (self), self,
      "frame %" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT " rendered on the %s",
      priv->frames - 1, GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
      priv->context ? "GPU" : "host");
  return GST_FLOW_OK;
}

/* the pointer, in output pixels, from the sink's navigation events */
static gboolean
handle_navigation (GstAccelSimSrc *self, GstEvent *event)
{
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);
  GstAccelPointer *p = &priv->pointer;
  GstNavigationEventType type = gst_navigation_event_get_type (event);
  gdouble x, y, w, h;
  gint button;

  switch (type)
    {
    case GST_NAVIGATION_EVENT_MOUSE_MOVE:
      if (!gst_navigation_event_parse_mouse_move_event (event, &x, &y))
        return FALSE;
      break;
    case GST_NAVIGATION_EVENT_MOUSE_BUTTON_PRESS:
    case GST_NAVIGATION_EVENT_MOUSE_BUTTON_RELEASE:
      if (!gst_navigation_event_parse_mouse_button_event (
              event, &button, &x, &y))
        return FALSE;
      break;
    default:
      return FALSE;
    }
  /* an application's event may say anything: one NaN would reach the
   * simulation's state and stay there, and so would a finite position far
   * enough out (3e38 becomes infinity as a float). A pointer dragged out of
   * the window stays within a frame of it */
  if (!isfinite (x) || !isfinite (y))
    return FALSE;

  GST_OBJECT_LOCK (self);
  w = MAX (GST_VIDEO_INFO_WIDTH (&priv->info), 1);
  h = MAX (GST_VIDEO_INFO_HEIGHT (&priv->info), 1);
  x = CLAMP (x, -w, 2.0 * w);
  y = CLAMP (y, -h, 2.0 * h);
  if (p->inside)
    {
      p->dx += x - p->x;
      p->dy += y - p->y;
    }
  p->inside = TRUE;
  p->x = x;
  p->y = y;
  if (type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_PRESS)
    {
      p->down = TRUE;
      p->clicks++;
    }
  else if (type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_RELEASE)
    p->down = FALSE;
  GST_OBJECT_UNLOCK (self);
  GST_CAT_LOG_OBJECT (
      CAT (self), self, "pointer at %g,%g%s", x, y, p->down ? ", down" : "");
  return TRUE;
}

/* a seek backwards, refused before GstBaseSrc flushes for it: refused in
 * do_seek (), the flush had gone through, and data flowed with no
 * segment */
static gboolean
refuses_seek (GstBaseSrc *src, GstEvent *event)
{
  gdouble rate;

  if (GST_EVENT_TYPE (event) != GST_EVENT_SEEK)
    return FALSE;
  gst_event_parse_seek (event, &rate, NULL, NULL, NULL, NULL, NULL, NULL);
  if (rate >= 0)
    return FALSE;
  GST_CAT_DEBUG_OBJECT (CAT (src), src,
      "a simulation runs forward only: seek at rate %g refused", rate);
  return TRUE;
}

/* a seek sent to the element itself skips the pad's event handler */
static gboolean
gst_accel_sim_src_send_event (GstElement *element, GstEvent *event)
{
  if (refuses_seek (GST_BASE_SRC (element), event))
    {
      gst_event_unref (event);
      return FALSE;
    }
  return GST_ELEMENT_CLASS (gst_accel_sim_src_parent_class)
      ->send_event (element, event);
}

static gboolean
gst_accel_sim_src_event (GstBaseSrc *src, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION)
    return handle_navigation (GST_ACCEL_SIM_SRC (src), event);
  if (refuses_seek (src, event))
    return FALSE;
  return GST_BASE_SRC_CLASS (gst_accel_sim_src_parent_class)
      ->event (src, event);
}

static void
gst_accel_sim_src_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelSimSrcPrivate *priv
      = gst_accel_sim_src_get_instance_private (GST_ACCEL_SIM_SRC (object));

  switch (prop_id)
    {
    case PROP_SYNC_META:
      priv->sync_meta = g_value_get_boolean (value);
      GST_CAT_DEBUG_OBJECT (CAT (object), object, "sync-meta = %s",
          priv->sync_meta ? "true" : "false");
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
gst_accel_sim_src_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelSimSrcPrivate *priv
      = gst_accel_sim_src_get_instance_private (GST_ACCEL_SIM_SRC (object));

  switch (prop_id)
    {
    case PROP_SYNC_META:
      g_value_set_boolean (value, priv->sync_meta);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

/* a simulation runs forward only, so a seek restarts its clock at the
 * seek's position, the simulation going on from its state. Refused, a
 * flushing seek through an aggregator (accelblend, compositor) flushed the
 * aggregator's other inputs and waited for good on this one */
static gboolean
gst_accel_sim_src_is_seekable (GstBaseSrc *src)
{
  return TRUE;
}

static gboolean
gst_accel_sim_src_do_seek (GstBaseSrc *src, GstSegment *segment)
{
  GstAccelSimSrcPrivate *priv
      = gst_accel_sim_src_get_instance_private (GST_ACCEL_SIM_SRC (src));

  if (segment->rate < 0 || segment->format != GST_FORMAT_TIME)
    return FALSE;
  /* the position is the seek's start, or the position reached where the
   * seek sets none (the clock went back to the segment's start, 0) */
  priv->base_time = segment->position;
  priv->rate_frames = 0;
  GST_CAT_DEBUG_OBJECT (CAT (src), src,
      "seek: the simulation goes on, its clock from %" GST_TIME_FORMAT,
      GST_TIME_ARGS (segment->position));
  return TRUE;
}

static void
gst_accel_sim_src_class_init (GstAccelSimSrcClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *src_class = GST_BASE_SRC_CLASS (klass);

  gobject_class->set_property = gst_accel_sim_src_set_property;
  gobject_class->get_property = gst_accel_sim_src_get_property;
  /* each element sets its own */
  klass->debug_category = gst_accel_sim_src_debug;

  g_object_class_install_property (gobject_class, PROP_SYNC_META,
      gst_accel_sync_meta_param_spec_new (DEFAULT_SYNC_META));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->set_context
      = GST_DEBUG_FUNCPTR (gst_accel_sim_src_set_context);
  element_class->send_event = GST_DEBUG_FUNCPTR (gst_accel_sim_src_send_event);

  src_class->get_caps = GST_DEBUG_FUNCPTR (gst_accel_sim_src_get_caps);
  src_class->fixate = GST_DEBUG_FUNCPTR (gst_accel_sim_src_fixate);
  src_class->set_caps = GST_DEBUG_FUNCPTR (gst_accel_sim_src_set_caps);
  src_class->start = GST_DEBUG_FUNCPTR (gst_accel_sim_src_start);
  src_class->stop = GST_DEBUG_FUNCPTR (gst_accel_sim_src_stop);
  src_class->query = GST_DEBUG_FUNCPTR (gst_accel_sim_src_query);
  src_class->event = GST_DEBUG_FUNCPTR (gst_accel_sim_src_event);
  src_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_accel_sim_src_decide_allocation);
  src_class->fill = GST_DEBUG_FUNCPTR (gst_accel_sim_src_fill);
  src_class->is_seekable = GST_DEBUG_FUNCPTR (gst_accel_sim_src_is_seekable);
  src_class->do_seek = GST_DEBUG_FUNCPTR (gst_accel_sim_src_do_seek);

  gst_type_mark_as_plugin_api (GST_TYPE_ACCEL_SIM_SRC, 0);
}

static void
gst_accel_sim_src_init (GstAccelSimSrc *self)
{
  GstAccelSimSrcPrivate *priv = gst_accel_sim_src_get_instance_private (self);

  priv->sync_meta = DEFAULT_SYNC_META;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
