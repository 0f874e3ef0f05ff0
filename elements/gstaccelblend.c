/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the blend element: a layer blended over a base by the kernels of
 * kernels/effects/blend.h, on GstVideoAggregator (two request pads; the
 * one of lower zorder, by default the one requested first, is the base) */
#include "gstaccelblend.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <string.h>

#include "effects/blend.h"
#include "gstaccelcuda.h"
#include "gstaccelimage.h"
#include "gstaccelsyncmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_blend_debug);
#define GST_CAT_DEFAULT gst_accel_blend_debug

#define BLEND_FORMATS "{ RGBA, BGRA }"
#define BLEND_CAPS                                                             \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (                                          \
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, BLEND_FORMATS)                      \
  ";" GST_VIDEO_CAPS_MAKE (BLEND_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS (BLEND_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (BLEND_CAPS));

#define DEFAULT_MODE ACCEL_BLEND_OVER
#define DEFAULT_OPACITY 1.0f
#define DEFAULT_SYNC_META TRUE

enum
{
  PROP_0,
  PROP_MODE,
  PROP_OPACITY,
  PROP_SYNC_META,
};

/* frames: the base, the layer, the output */
enum
{
  BASE,
  LAYER,
  OUTPUT,
  N_FRAMES
};

struct _GstAccelBlendPad
{
  GstVideoAggregatorPad parent;
};

struct _GstAccelBlend
{
  GstVideoAggregator parent;

  /* properties, under the object lock */
  AccelBlendMode mode;
  gfloat opacity;
  gboolean sync_meta;
  /* held while a sink pad is made, so that the count of sink pads seen
   * is the count there: counting pads in the making under the object lock
   * refused a request that came between another's pad added and its count
   * given back. Recursive: a pad-added handler may request the other pad */
  GRecMutex request_lock;

  /* streaming thread */
  GstCudaContext *context;   /* NULL: the host implementation */
  AccelStream *sync_stream;  /* libaccel's: the fences hold it */
  cudaStream_t stream;       /* its handle */
  gboolean downstream_waits; /* downstream takes GstAccelSyncMeta */
  GstAccelStaging staging[N_FRAMES];
};

GType
gst_accel_blend_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { ACCEL_BLEND_OVER, "The layer over the base", "over" },
    { ACCEL_BLEND_ADD, "Sum, clamped", "add" },
    { ACCEL_BLEND_MULTIPLY, "Product (darkens)", "multiply" },
    { ACCEL_BLEND_SCREEN, "Inverted product of the inverses (lightens)",
        "screen" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    {
      GType t = g_enum_register_static ("GstAccelBlendMode", values);
      g_once_init_leave (&type, t);
    }
  return type;
}

G_DEFINE_TYPE (
    GstAccelBlendPad, gst_accel_blend_pad, GST_TYPE_VIDEO_AGGREGATOR_PAD);
G_DEFINE_TYPE_WITH_CODE (GstAccelBlend, gst_accel_blend,
    GST_TYPE_VIDEO_AGGREGATOR,
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_blend_debug, "accelblend", 0, "accel blend"));
GST_ELEMENT_REGISTER_DEFINE (
    accelblend, "accelblend", GST_RANK_NONE, GST_TYPE_ACCEL_BLEND);

/* whether a kernel on @context can reach @buffer where it is */
static gboolean
is_cuda_memory_of (GstBuffer *buffer, GstCudaContext *context)
{
  GstMemory *mem;

  if (!context || gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cuda_memory (mem)
         && GST_CUDA_MEMORY_CAST (mem)->context == context;
}

static gboolean
is_mapped_cuda (GstVideoFrame *frame)
{
  return (frame->map[0].flags & GST_MAP_CUDA) != 0;
}

/* GstVideoAggregatorPad maps frames for the host; CUDA memory of the
 * element's context is mapped for the GPU instead, so that it is read in
 * place (the default clean_frame() unmaps either) */
static gboolean
gst_accel_blend_pad_prepare_frame (GstVideoAggregatorPad *pad,
    GstVideoAggregator *vagg, GstBuffer *buffer, GstVideoFrame *prepared_frame)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (vagg);
  GstMapFlags cuda
      = is_cuda_memory_of (buffer, self->context) ? GST_MAP_CUDA : 0;

  if (!gst_video_frame_map (
          prepared_frame, &pad->info, buffer, GST_MAP_READ | cuda))
    {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
          ("cannot map a frame of %s (in %s memory)", GST_PAD_NAME (pad),
              cuda ? "CUDA" : "system"));
      return FALSE;
    }
  return TRUE;
}

static void
gst_accel_blend_pad_class_init (GstAccelBlendPadClass *klass)
{
  GstVideoAggregatorPadClass *vpad_class
      = GST_VIDEO_AGGREGATOR_PAD_CLASS (klass);

  vpad_class->prepare_frame = gst_accel_blend_pad_prepare_frame;
}

static void
gst_accel_blend_pad_init (GstAccelBlendPad *pad)
{
}

/* a base and a layer: a third input has no place */
static GstPad *
gst_accel_blend_request_new_pad (GstElement *element, GstPadTemplate *templ,
    const gchar *name, const GstCaps *caps)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (element);
  GstPad *pad = NULL;
  gboolean full;

  g_rec_mutex_lock (&self->request_lock);
  /* pads are added and removed under the object lock */
  GST_OBJECT_LOCK (self);
  full = element->numsinkpads >= 2;
  GST_OBJECT_UNLOCK (self);
  if (full)
    GST_WARNING_OBJECT (
        self, "blends two inputs, a base and a layer: no third sink pad");
  else
    pad = GST_ELEMENT_CLASS (gst_accel_blend_parent_class)
              ->request_new_pad (element, templ, name, caps);
  g_rec_mutex_unlock (&self->request_lock);
  return pad;
}

static void
gst_accel_blend_set_context (GstElement *element, GstContext *context)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (element);

  if (gst_accel_cuda_usable ())
    gst_cuda_handle_set_context (element, context, -1, &self->context);
  GST_ELEMENT_CLASS (gst_accel_blend_parent_class)
      ->set_context (element, context);
}

static gboolean
answer_context (GstAccelBlend *self, GstQuery *query)
{
  return gst_accel_cuda_handle_context_query (
      GST_ELEMENT (self), &self->context, query);
}

static gboolean
gst_accel_blend_src_query (GstAggregator *agg, GstQuery *query)
{
  if (answer_context (GST_ACCEL_BLEND (agg), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)
      ->src_query (agg, query);
}

static gboolean
send_upstream (GstElement *element, GstPad *pad, gpointer event)
{
  gst_pad_push_event (pad, gst_event_ref (event));
  return TRUE;
}

/* a seek backwards or in another format than time, which the simulation
 * sources refuse: GstAggregator (1.22) stops its output for a flushing
 * seek and starts it again only once an input flushes, and it takes the
 * seek's rate into its segment first. Refused by an input, the blend
 * waited for good, and a later seek aborted in GstVideoAggregator (the
 * segment ran backwards); refused here, nothing is flushed */
static gboolean
refuses_seek (GstAggregator *agg, GstEvent *event)
{
  GstFormat format;
  gdouble rate;

  gst_event_parse_seek (event, &rate, &format, NULL, NULL, NULL, NULL, NULL);
  if (rate > 0 && format == GST_FORMAT_TIME)
    return FALSE;
  GST_INFO_OBJECT (agg,
      "the blend runs forward in time only: seek at rate %g "
      "in %s refused",
      rate, gst_format_get_name (format));
  return TRUE;
}

/* a seek that sets only a stop, made one from the position reached: as
 * it was, GstVideoAggregator (1.22) aborted on the next frame (its running
 * time out of the segment, "start_running_time != -1"), with
 * videotestsrc inputs as with the simulations, and two simulations ended
 * their stream at once */
static GstEvent *
seek_from_position (GstAggregator *agg, GstEvent *event)
{
  GstSeekType start_type, stop_type;
  GstSeekFlags flags;
  GstFormat format;
  gdouble rate;
  gint64 start, stop, position = 0;
  GstEvent *from;

  gst_event_parse_seek (
      event, &rate, &format, &flags, &start_type, &start, &stop_type, &stop);
  if (start_type != GST_SEEK_TYPE_NONE)
    return event;
  if (!gst_pad_query_position (GST_AGGREGATOR_SRC_PAD (agg), format, &position)
      || position < 0)
    position = 0;
  from = gst_event_new_seek (
      rate, format, flags, GST_SEEK_TYPE_SET, position, stop_type, stop);
  gst_event_set_seqnum (from, gst_event_get_seqnum (event));
  gst_event_unref (event);
  return from;
}

/* pointer events go to both inputs, each of the output's size, as they
 * come: a simulation source on either follows the pointer.
 * GstAggregator drops them, and one behind the element never saw it */
static gboolean
gst_accel_blend_src_event (GstAggregator *agg, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK && refuses_seek (agg, event))
    {
      gst_event_unref (event);
      return FALSE;
    }
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK)
    event = seek_from_position (agg, event);
  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION)
    {
      gst_element_foreach_sink_pad (GST_ELEMENT (agg), send_upstream, event);
      gst_event_unref (event);
      return TRUE;
    }
  return GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)
      ->src_event (agg, event);
}

/* set on a thread that asks another input's upstream for its caps: a
 * caps query that comes back to the element on it (a tee feeding both
 * inputs) is answered without asking again */
static GPrivate asking_other_input;

/* the size and format of @structure, where it fixes all three */
static gboolean
fixed_size_and_format (const GstStructure *structure, gint *width, gint *height,
    const gchar **format)
{
  *format = gst_structure_get_string (structure, "format");
  return *format && gst_structure_get_int (structure, "width", width)
         && gst_structure_get_int (structure, "height", height);
}

/* the size and format of the input other than @pad: its caps, or else
 * what its upstream offers where that fixes them (a source behind a
 * capsfilter); FALSE where there is none yet */
static gboolean
other_input_size (
    GstAccelBlend *self, GstPad *pad, gint *width, gint *height, gchar **format)
{
  GstPad *other = NULL;
  GstCaps *caps;
  const gchar *name;
  gboolean found;

  GST_OBJECT_LOCK (self);
  for (GList *l = GST_ELEMENT (self)->sinkpads; l && !other; l = l->next)
    if (l->data != pad)
      other = gst_object_ref (l->data);
  GST_OBJECT_UNLOCK (self);
  if (!other)
    return FALSE;
  caps = gst_pad_get_current_caps (other);
  if (!caps)
    {
      g_private_set (&asking_other_input, GINT_TO_POINTER (TRUE));
      caps = gst_pad_peer_query_caps (other, NULL);
      g_private_set (&asking_other_input, NULL);
    }
  gst_object_unref (other);
  found = caps && !gst_caps_is_empty (caps) && !gst_caps_is_any (caps)
          && fixed_size_and_format (
              gst_caps_get_structure (caps, 0), width, height, &name);
  if (found)
    *format = g_strdup (name);
  gst_clear_caps (&caps);
  return found;
}

/* @caps with @width and @height (and @format, unless NULL) set, within
 * @filter (may be NULL) */
static GstCaps *
caps_with_size (const GstCaps *caps, GstCaps *filter, gint width, gint height,
    const gchar *format)
{
  GstCaps *set = gst_caps_copy (caps), *kept;

  gst_caps_set_simple (
      set, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, NULL);
  if (format)
    gst_caps_set_simple (set, "format", G_TYPE_STRING, format, NULL);
  if (!filter)
    return set;
  kept = gst_caps_intersect_full (set, filter, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (set);
  return kept;
}

/* an input's caps: any size and format of the template (GstVideoAggregator
 * holds none, as compositor scales), led by the other input's size and
 * format, then its size alone, so that a videoscale in front of this input
 * (which takes the first size offered) makes frames of the blend's size.
 * An input without a converter still negotiates, and a mismatch is named
 * when blended */
static gboolean
answer_caps (GstAccelBlend *self, GstAggregatorPad *pad, GstQuery *query)
{
  GstCaps *filter, *any, *led;
  g_autofree gchar *format = NULL;
  gint width, height;

  if (!GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)
           ->sink_query (GST_AGGREGATOR (self), pad, query))
    return FALSE;
  if (g_private_get (&asking_other_input)
      || !other_input_size (self, GST_PAD (pad), &width, &height, &format))
    return TRUE;
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &any);
  led = caps_with_size (any, filter, width, height, format);
  led = gst_caps_merge (led, caps_with_size (any, filter, width, height, NULL));
  led = gst_caps_merge (led, gst_caps_ref (any));
  GST_DEBUG_OBJECT (
      pad, "caps led by the other input's: %" GST_PTR_FORMAT, led);
  gst_query_set_caps_result (query, led);
  gst_caps_unref (led);
  return TRUE;
}

static gboolean
gst_accel_blend_sink_query (
    GstAggregator *agg, GstAggregatorPad *pad, GstQuery *query)
{
  if (answer_context (GST_ACCEL_BLEND (agg), query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS)
    return answer_caps (GST_ACCEL_BLEND (agg), pad, query);
  /* any size and format of the template: GstVideoAggregator's own answer
   * holds an input to the output's size, so a size changed mid-stream
   * failed as not negotiated; the output follows its inputs, and inputs
   * that differ are named when they are blended (check_input ()) */
  if (GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS)
    {
      GstCaps *caps, *template = gst_pad_get_pad_template_caps (GST_PAD (pad));

      gst_query_parse_accept_caps (query, &caps);
      gst_query_set_accept_caps_result (
          query, gst_caps_can_intersect (caps, template));
      gst_caps_unref (template);
      return TRUE;
    }
  return GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)
      ->sink_query (agg, pad, query);
}

/* the stream and the staging blocks: device memory (with the context
 * current) on a GPU, host memory without one */
static void
release_frames (GstAccelBlend *self)
{
  if (self->context)
    gst_accel_cuda_scope_enter (self->context);
  for (int i = 0; i < N_FRAMES; i++)
    gst_accel_staging_clear (&self->staging[i]);
  g_clear_pointer (&self->sync_stream, accel_stream_unref);
  self->stream = NULL;
  if (self->context)
    gst_accel_cuda_scope_leave ();
}

/* GstVideoAggregator's start and stop reset the output's timing and each
 * input's last frame and caps: without them a run after READY took the
 * previous run's state, and lost its first frames */
static gboolean
gst_accel_blend_start (GstAggregator *agg)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (agg);

  if (!GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)->start (agg))
    return FALSE;
  /* without a GPU the host implementation runs: no error */
  if (!gst_accel_cuda_usable ())
    {
      GST_INFO_OBJECT (self, "no usable GPU: the host implementation runs");
      return TRUE;
    }
  if (!gst_accel_cuda_ensure_context (GST_ELEMENT (agg), &self->context))
    return FALSE;
  GST_INFO_OBJECT (self, "on the GPU, in %" GST_PTR_FORMAT, self->context);
  gst_accel_cuda_scope_enter (self->context);
  self->sync_stream = gst_accel_sync_stream_new (self->context);
  gst_accel_cuda_scope_leave ();
  if (!self->sync_stream)
    goto failed;
  self->stream = accel_stream_get_handle (self->sync_stream);
  return TRUE;

  /* ERRORS */
failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("cannot create a CUDA stream (see the accelsyncmeta log)"));
    return FALSE;
  }
}

static gboolean
gst_accel_blend_stop (GstAggregator *agg)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (agg);

  release_frames (self);
  gst_clear_object (&self->context);
  GST_DEBUG_OBJECT (self, "stopped, stream and staging freed");
  return GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)->stop (agg);
}

static gboolean
any_input_in_cuda_memory (GstVideoAggregator *vagg)
{
  gboolean cuda = FALSE;

  GST_OBJECT_LOCK (vagg);
  for (GList *l = GST_ELEMENT (vagg)->sinkpads; l && !cuda; l = l->next)
    {
      GstCaps *caps = gst_pad_get_current_caps (l->data);

      cuda = caps && gst_accel_cuda_caps_are_cuda (caps);
      gst_clear_caps (&caps);
    }
  GST_OBJECT_UNLOCK (vagg);
  return cuda;
}

/* the size and format the output takes: those of the first input in
 * zorder (the base first) that has caps and has not ended, else of the
 * first that has caps, so that an input that ended no longer holds the
 * output to its size; FALSE where no input has caps yet */
static gboolean
inputs_info (GstVideoAggregator *vagg, GstVideoInfo *info)
{
  GList *pads = NULL;
  gboolean first = FALSE, running = FALSE;

  GST_OBJECT_LOCK (vagg);
  for (GList *l = GST_ELEMENT (vagg)->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (vagg);
  pads = g_list_reverse (pads);
  for (GList *l = pads; l && !running; l = l->next)
    {
      GstVideoAggregatorPad *pad = l->data;
      gboolean ended = gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (pad));

      /* a pad GstVideoAggregator reset (its caps refused downstream)
       * holds a zeroed info, with no format info at all */
      GST_OBJECT_LOCK (vagg);
      if (pad->info.finfo
          && GST_VIDEO_INFO_FORMAT (&pad->info) != GST_VIDEO_FORMAT_UNKNOWN
          && (!first || !ended))
        {
          *info = pad->info;
          first = TRUE;
          running = !ended;
        }
      GST_OBJECT_UNLOCK (vagg);
    }
  g_list_free_full (pads, gst_object_unref);
  return first;
}

/* the output in the inputs' memory, as a filter's output is in its
 * input's: CUDA memory when an input is, otherwise system memory (always
 * without a GPU); the other only where downstream takes nothing else.
 * Its size and format are the inputs' (the blend scales and converts
 * nothing): GstVideoAggregator's own fixation takes a size downstream
 * fixes, and the blend then failed on inputs that agree */
static GstCaps *
gst_accel_blend_update_caps (GstVideoAggregator *vagg, GstCaps *caps)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (vagg);
  GstCaps *all = GST_VIDEO_AGGREGATOR_CLASS (gst_accel_blend_parent_class)
                     ->update_caps (vagg, caps);
  gboolean usable = gst_accel_cuda_usable ();
  gboolean cuda = usable && any_input_in_cuda_memory (vagg);
  GstVideoInfo in;
  GstCaps *kept;

  if (!all || gst_caps_is_any (all))
    return all;
  if (inputs_info (vagg, &in))
    {
      GstCaps *sized = caps_with_size (all, NULL, GST_VIDEO_INFO_WIDTH (&in),
          GST_VIDEO_INFO_HEIGHT (&in), GST_VIDEO_INFO_NAME (&in));

      gst_caps_unref (all);
      all = sized;
      if (caps && !gst_caps_can_intersect (all, caps))
        {
          GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
              ("accelblend's output is its inputs' size and format, %dx%d %s, "
               "which downstream does not take (a videoscale or "
               "videoconvert after accelblend would convert it)",
                  GST_VIDEO_INFO_WIDTH (&in), GST_VIDEO_INFO_HEIGHT (&in),
                  GST_VIDEO_INFO_NAME (&in)),
              ("downstream takes %" GST_PTR_FORMAT, caps));
          gst_caps_unref (all);
          return gst_caps_new_empty ();
        }
    }
  kept = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (all); i++)
    {
      GstCapsFeatures *f = gst_caps_get_features (all, i);
      gboolean in_cuda = f
                         && gst_caps_features_contains (
                             f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);

      if (in_cuda == cuda)
        gst_caps_append_structure_full (kept,
            gst_structure_copy (gst_caps_get_structure (all, i)),
            f ? gst_caps_features_copy (f) : NULL);
    }
  if (gst_caps_is_empty (kept) && usable)
    {
      GST_DEBUG_OBJECT (
          self, "downstream takes only %s memory", cuda ? "system" : "CUDA");
      gst_caps_unref (kept);
      return all;
    }
  GST_DEBUG_OBJECT (
      self, "output in %s memory, as the inputs", cuda ? "CUDA" : "system");
  gst_caps_unref (all);
  return kept;
}

/* upstream asks what we would like: CUDA memory from our context */
static gboolean
gst_accel_blend_propose_allocation (GstAggregator *agg, GstAggregatorPad *pad,
    GstQuery *decide_query, GstQuery *query)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (agg);
  GstCaps *caps;
  gboolean sync_meta;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && gst_accel_cuda_caps_are_cuda (caps) && self->context)
    {
      GST_OBJECT_LOCK (self);
      sync_meta = self->sync_meta;
      GST_OBJECT_UNLOCK (self);
      GST_DEBUG_OBJECT (self, "offering %s a CUDA pool%s", GST_PAD_NAME (pad),
          sync_meta ? "; it waits on its inputs' sync meta" : "");
      return gst_accel_cuda_propose_allocation (
          self->context, query, sync_meta);
    }
  return GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)
      ->propose_allocation (agg, pad, decide_query, query);
}

/* our output: a CUDA pool of our context unless downstream offers one */
static gboolean
gst_accel_blend_decide_allocation (GstAggregator *agg, GstQuery *query)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (agg);
  GstCaps *caps;
  gboolean sync_meta;

  self->downstream_waits = FALSE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && gst_accel_cuda_caps_are_cuda (caps))
    {
      if (!self->context
          || !gst_accel_cuda_decide_allocation (self->context, query))
        return FALSE;
      GST_OBJECT_LOCK (self);
      sync_meta = self->sync_meta;
      GST_OBJECT_UNLOCK (self);
      self->downstream_waits = sync_meta
                               && gst_query_find_allocation_meta (
                                   query, GST_ACCEL_SYNC_META_API_TYPE, NULL);
      GST_DEBUG_OBJECT (self, "%s",
          self->downstream_waits
              ? "downstream takes the sync meta: frames are pushed with "
                "their GPU work in flight"
          : sync_meta
              ? "downstream does not take the sync meta: the host waits "
                "for the GPU before each push"
              : "sync-meta=false: the host waits for the GPU before each "
                "push");
    }
  GST_INFO_OBJECT (self, "output %" GST_PTR_FORMAT, caps);
  return GST_AGGREGATOR_CLASS (gst_accel_blend_parent_class)
      ->decide_allocation (agg, query);
}

/* @frame as an image the kernels reach from where they run (the GPU with
 * @device): in place where it is there already, otherwise staged */
static int
prepare_image (GstAccelBlend *self, gboolean device, GstVideoFrame *frame,
    int slot, GstAccelImage *image, gboolean *staged)
{
  *staged = device != is_mapped_cuda (frame)
            || !gst_accel_image_from_frame (image, frame);
  if (!*staged)
    return ACCEL_IMAGE_OK;
  return gst_accel_image_stage (
      image, &self->staging[slot], device, frame, slot != OUTPUT, self->stream);
}

/* the output while an input has no frame (not there yet, or ended): the
 * other input unchanged, or transparent black when neither has one */
static int
copy_or_clear (
    gpointer stream, const GstAccelImage *src, const GstAccelImage *dst)
{
  gsize row = (gsize)dst->width * 4;

  if (stream)
    return src ? cudaMemcpy2DAsync (dst->data, dst->pitch, src->data,
               src->pitch, row, dst->height, cudaMemcpyDeviceToDevice, stream)
               : cudaMemset2DAsync (
                   dst->data, dst->pitch, 0, row, dst->height, stream);
  for (int y = 0; y < dst->height; y++)
    {
      guint8 *d = (guint8 *)dst->data + (gsize)y * dst->pitch;

      if (src)
        memcpy (d, (guint8 *)src->data + (gsize)y * src->pitch, row);
      else
        memset (d, 0, row);
    }
  return ACCEL_IMAGE_OK;
}

/* the kernel on @frames (NULL where an input has none); on the GPU with
 * @stream. Returns an ACCEL_IMAGE_* code or a cudaError_t */
static int
blend_frames (GstAccelBlend *self, gpointer stream, GstVideoFrame **frames,
    AccelBlendMode mode, gfloat opacity, gboolean *staged_any)
{
  GstAccelImage images[N_FRAMES];
  gboolean staged[N_FRAMES] = { FALSE, FALSE, FALSE };
  GstAccelImage *a = &images[BASE], *b = &images[LAYER], *o = &images[OUTPUT];
  int ret = ACCEL_IMAGE_OK;

  for (int i = 0; i < N_FRAMES && ret == ACCEL_IMAGE_OK; i++)
    if (frames[i])
      ret = prepare_image (
          self, stream != NULL, frames[i], i, &images[i], &staged[i]);
  *staged_any = staged[BASE] || staged[LAYER] || staged[OUTPUT];
  if (ret != ACCEL_IMAGE_OK)
    return ret;

  if (frames[BASE] && frames[LAYER] && stream)
    ret = accel_blend (stream, o->format, a->data, a->pitch, b->data, b->pitch,
        o->data, o->pitch, o->width, o->height, mode, opacity);
  else if (frames[BASE] && frames[LAYER])
    ret = accel_blend_host (o->format, a->data, a->pitch, b->data, b->pitch,
        o->data, o->pitch, o->width, o->height, mode, opacity);
  else
    ret = copy_or_clear (stream,
        frames[BASE]    ? a
        : frames[LAYER] ? b
                        : NULL,
        o);
  if (ret == ACCEL_IMAGE_OK && staged[OUTPUT])
    ret = gst_accel_image_unstage (
        o, &self->staging[OUTPUT], frames[OUTPUT], stream);
  return ret;
}

/* the GPU pass: the inputs in CUDA memory and the output ordered through
 * GstAccelFrameSync; staged frames were copied from or to host memory that
 * is released after this, so the host waits for them */
static int
blend_on_gpu (GstAccelBlend *self, GstVideoFrame **frames, AccelBlendMode mode,
    gfloat opacity)
{
  GstBuffer *out
      = is_mapped_cuda (frames[OUTPUT]) ? frames[OUTPUT]->buffer : NULL;
  GstBuffer *in[LAYER - BASE + 1];
  guint n_in = 0;
  GstAccelFrameSync sync;
  gboolean staged = FALSE;
  int ret, err;

  for (int i = BASE; i <= LAYER; i++)
    if (frames[i] && is_mapped_cuda (frames[i]))
      in[n_in++] = frames[i]->buffer;
  gst_accel_cuda_scope_enter (self->context);
  ret = gst_accel_frame_sync_begin (
      &sync, in, n_in, out, self->downstream_waits, self->sync_stream);
  if (ret == cudaSuccess)
    ret = blend_frames (self, self->stream, frames, mode, opacity, &staged);
  if (staged)
    sync.host_wait = TRUE;
  GST_LOG_OBJECT (self, "%s",
      staged           ? "frames staged: the host waits for the GPU"
      : sync.host_wait ? "the host waits for the GPU before the push"
                       : "pushed with its GPU work in flight, downstream "
                         "waits on the sync meta");
  if ((err = gst_accel_frame_sync_end (&sync, self->sync_stream))
      && ret == cudaSuccess)
    ret = err;
  gst_accel_cuda_scope_leave ();
  return ret;
}

/* the inputs must be what the output is: a mismatch is named */
static gboolean
check_input (
    GstAccelBlend *self, GstVideoAggregatorPad *pad, GstVideoFrame *frame)
{
  GstVideoInfo *out = &GST_VIDEO_AGGREGATOR (self)->info;

  if (GST_VIDEO_FRAME_WIDTH (frame) == GST_VIDEO_INFO_WIDTH (out)
      && GST_VIDEO_FRAME_HEIGHT (frame) == GST_VIDEO_INFO_HEIGHT (out)
      && GST_VIDEO_FRAME_FORMAT (frame) == GST_VIDEO_INFO_FORMAT (out))
    return TRUE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("accelblend blends inputs of one size and format"),
      ("%s is %dx%d %s, the output %dx%d %s", GST_PAD_NAME (pad),
          GST_VIDEO_FRAME_WIDTH (frame), GST_VIDEO_FRAME_HEIGHT (frame),
          gst_video_format_to_string (GST_VIDEO_FRAME_FORMAT (frame)),
          GST_VIDEO_INFO_WIDTH (out), GST_VIDEO_INFO_HEIGHT (out),
          GST_VIDEO_INFO_NAME (out)));
  return FALSE;
}

/* a frame that prepare_frame() could not map (it posted the error), not
 * one that is missing: GstVideoAggregator goes on without it */
static gboolean
is_unprepared (GstVideoAggregatorPad *pad)
{
  GstBuffer *buffer = gst_video_aggregator_pad_get_current_buffer (pad);

  return buffer
         && !(gst_buffer_get_size (buffer) == 0
              && GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_GAP));
}

static GstFlowReturn
gst_accel_blend_aggregate_frames (GstVideoAggregator *vagg, GstBuffer *outbuf)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (vagg);
  GstVideoFrame *frames[N_FRAMES] = { NULL, NULL, NULL };
  GstVideoAggregatorPad *pads[2] = { NULL, NULL };
  GstVideoFrame out;
  GstMapFlags cuda;
  AccelBlendMode mode;
  gfloat opacity;
  gboolean ok = TRUE, on_gpu;
  guint n = 0;
  int ret;

  /* sink pads are kept in zorder: the base first */
  GST_OBJECT_LOCK (vagg);
  for (GList *l = GST_ELEMENT (vagg)->sinkpads; l && n < 2; l = l->next)
    {
      pads[n] = l->data;
      frames[n++] = gst_video_aggregator_pad_get_prepared_frame (l->data);
    }
  mode = self->mode;
  opacity = self->opacity;
  GST_OBJECT_UNLOCK (vagg);
  for (int i = BASE; i <= LAYER && ok; i++)
    if (frames[i])
      ok = check_input (self, pads[i], frames[i]);
    else if (pads[i] && is_unprepared (pads[i]))
      return GST_FLOW_ERROR;
  if (!ok)
    return GST_FLOW_NOT_NEGOTIATED;

  /* without a reference, so that @outbuf stays writable for the meta */
  cuda = is_cuda_memory_of (outbuf, self->context) ? GST_MAP_CUDA : 0;
  if (!gst_video_frame_map (&out, &vagg->info, outbuf,
          GST_MAP_WRITE | cuda | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))
    goto map_failed;
  frames[OUTPUT] = &out;

  /* frames all in system memory are blended on the host even with a GPU:
   * the pass reads each byte once, so copies to the GPU and back would
   * cost more than the pass itself */
  on_gpu = cuda || (frames[BASE] && is_mapped_cuda (frames[BASE]))
           || (frames[LAYER] && is_mapped_cuda (frames[LAYER]));
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": %s%s%s, on the %s",
      GST_TIME_ARGS (GST_BUFFER_PTS (outbuf)),
      frames[BASE] && frames[LAYER] ? "layer over base"
      : frames[BASE]                ? "base only"
      : frames[LAYER]               ? "layer only"
                                    : "no input: transparent",
      frames[BASE] && is_mapped_cuda (frames[BASE]) ? ", base in CUDA memory"
                                                    : "",
      frames[LAYER] && is_mapped_cuda (frames[LAYER]) ? ", layer in CUDA memory"
                                                      : "",
      on_gpu ? "GPU" : "host");
  if (on_gpu)
    ret = blend_on_gpu (self, frames, mode, opacity);
  else
    {
      gboolean staged;

      ret = blend_frames (self, NULL, frames, mode, opacity, &staged);
    }
  gst_video_frame_unmap (&out);
  if (ret != ACCEL_IMAGE_OK)
    goto failed;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("cannot map the output frame (in %s memory)",
            cuda ? "CUDA" : "system"));
    return GST_FLOW_ERROR;
  }
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("blend failed: %s", cudaGetErrorString ((cudaError_t)ret)));
    return GST_FLOW_ERROR;
  }
}

static void
gst_accel_blend_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (object);
  g_autofree gchar *contents = g_strdup_value_contents (value);

  GST_DEBUG_OBJECT (self, "%s = %s", pspec->name, contents);
  GST_OBJECT_LOCK (self);
  switch (prop_id)
    {
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_OPACITY:
      self->opacity = g_value_get_float (value);
      break;
    case PROP_SYNC_META:
      self->sync_meta = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_accel_blend_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id)
    {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_OPACITY:
      g_value_set_float (value, self->opacity);
      break;
    case PROP_SYNC_META:
      g_value_set_boolean (value, self->sync_meta);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_accel_blend_finalize (GObject *object)
{
  GstAccelBlend *self = GST_ACCEL_BLEND (object);

  g_rec_mutex_clear (&self->request_lock);
  G_OBJECT_CLASS (gst_accel_blend_parent_class)->finalize (object);
}

static void
gst_accel_blend_class_init (GstAccelBlendClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);
  GstVideoAggregatorClass *vagg_class = GST_VIDEO_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = gst_accel_blend_set_property;
  gobject_class->get_property = gst_accel_blend_get_property;
  gobject_class->finalize = gst_accel_blend_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "How the layer's colour combines with the base's before it is "
          "mixed in by the layer's alpha and the opacity",
          GST_TYPE_ACCEL_BLEND_MODE, DEFAULT_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_OPACITY,
      g_param_spec_float ("opacity", "Opacity",
          "The layer's opacity, times its alpha", 0.0f, 1.0f, DEFAULT_OPACITY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SYNC_META,
      gst_accel_sync_meta_param_spec_new (DEFAULT_SYNC_META));

  gst_element_class_add_static_pad_template_with_gtype (
      element_class, &sink_template, GST_TYPE_ACCEL_BLEND_PAD);
  gst_element_class_add_static_pad_template_with_gtype (
      element_class, &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata (element_class, "accel blend",
      "Filter/Editor/Video/Compositor",
      "Blends a layer over a base (over, add, multiply, screen) with an "
      "opacity; RGBA or BGRA frames of one size, on the GPU or the host",
      ACCEL_ELEMENT_AUTHOR);

  element_class->request_new_pad = gst_accel_blend_request_new_pad;
  element_class->set_context = gst_accel_blend_set_context;
  agg_class->start = gst_accel_blend_start;
  agg_class->stop = gst_accel_blend_stop;
  agg_class->src_query = gst_accel_blend_src_query;
  agg_class->src_event = gst_accel_blend_src_event;
  agg_class->sink_query = gst_accel_blend_sink_query;
  agg_class->propose_allocation = gst_accel_blend_propose_allocation;
  agg_class->decide_allocation = gst_accel_blend_decide_allocation;
  vagg_class->update_caps = gst_accel_blend_update_caps;
  vagg_class->aggregate_frames = gst_accel_blend_aggregate_frames;

  gst_type_mark_as_plugin_api (GST_TYPE_ACCEL_BLEND_PAD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ACCEL_BLEND_MODE, 0);
}

static void
gst_accel_blend_init (GstAccelBlend *self)
{
  self->mode = DEFAULT_MODE;
  self->opacity = DEFAULT_OPACITY;
  self->sync_meta = DEFAULT_SYNC_META;
  g_rec_mutex_init (&self->request_lock);
}
