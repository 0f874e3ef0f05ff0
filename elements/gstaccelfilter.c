/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: base class of the accel image filter elements: caps in CUDA or
 * system memory, the shared CUDA context, and where each frame runs */
#include "gstaccelfilter.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstaccelcuda.h"
#include "gstaccelforeign.h"
#include "gstaccelimage.h"
#include "gstaccelmemory.h"
#include "gstaccelpinnedpool.h"
#include "gstaccelsyncmeta.h"
#include "gstacceltransfer.h"
#include "image/image.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_filter_debug);
#define GST_CAT_DEFAULT gst_accel_filter_debug
/* what the base class logs goes to the element's category */
#define CAT(obj) GST_ACCEL_FILTER_CAT (obj)

/* GRAY8 in system memory only: see gstacceltransfer.h */
#define ACCEL_FILTER_FORMATS "{ RGBA, BGRA, GRAY8 }"
#define ACCEL_FILTER_CUDA_FORMATS "{ RGBA, BGRA }"
#define ACCEL_FILTER_CAPS                                                      \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (                                          \
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, ACCEL_FILTER_CUDA_FORMATS)          \
  ";" GST_VIDEO_CAPS_MAKE (ACCEL_FILTER_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (ACCEL_FILTER_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (ACCEL_FILTER_CAPS));

#define DEFAULT_SYNC_META TRUE

enum
{
  PROP_0,
  PROP_SYNC_META,
  PROP_STAGED_FRAMES,
};

typedef struct
{
  GstCudaContext *context;  /* NULL: the host implementation */
  AccelStream *sync_stream; /* libaccel's: the fences hold it */
  cudaStream_t stream;      /* its handle */
  gboolean in_cuda;         /* the negotiated input is in CUDA memory */
  gboolean out_cuda;        /* and the output */
  /* frames the kernels cannot take where they are (system memory on a
   * GPU, planes laid out otherwise): input and output in their layout */
  GstAccelStaging staging[2];
  gboolean input_in_flight; /* this frame's upload still reads its input */
  int layout;          /* staged in the last frame: bit 0 input, bit 1 output */
  guint staged_frames; /* atomic: frames with a side staged */
  /* the last input from a GStreamer element, or in page-locked memory,
   * whose reads were left in flight */
  GstAccelForeignHold held;

  gboolean sync_meta;        /* property */
  gboolean downstream_waits; /* downstream takes GstAccelSyncMeta */

  /* the subclass's parameters by property id, under the object lock */
  GValue *params;
  guint n_params;
} GstAccelFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (
    GstAccelFilter, gst_accel_filter, GST_TYPE_VIDEO_FILTER,
    G_ADD_PRIVATE (GstAccelFilter);
    GST_DEBUG_CATEGORY_INIT (
        gst_accel_filter_debug, "accelfilter", 0, "accel filter base class"));

int
gst_accel_filter_format_from_video (GstVideoFormat format)
{
  return gst_accel_image_format_from_video (format);
}

static void
gst_accel_filter_set_context (GstElement *element, GstContext *context)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (element));

  if (gst_accel_cuda_usable ())
    gst_cuda_handle_set_context (element, context, -1, &priv->context);
  GST_ELEMENT_CLASS (gst_accel_filter_parent_class)
      ->set_context (element, context);
}

/* the held input goes back to its writer: at the end of the stream, after
 * a flush, and when upstream drains */
static void
release_held (GstAccelFilter *self)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  if (!priv->held.buffer)
    return;
  gst_accel_cuda_scope_enter (priv->context);
  gst_accel_foreign_release (&priv->held);
  gst_accel_cuda_scope_leave ();
  GST_CAT_LOG_OBJECT (CAT (self), self, "held input released");
}

static gboolean
gst_accel_filter_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS
      || GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    release_held (GST_ACCEL_FILTER (trans));
  return GST_BASE_TRANSFORM_CLASS (gst_accel_filter_parent_class)
      ->sink_event (trans, event);
}

static gboolean
gst_accel_filter_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (trans));

  if (gst_accel_cuda_handle_context_query (
          GST_ELEMENT (trans), &priv->context, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_DRAIN && direction == GST_PAD_SINK)
    release_held (GST_ACCEL_FILTER (trans));
  return GST_BASE_TRANSFORM_CLASS (gst_accel_filter_parent_class)
      ->query (trans, direction, query);
}

/* the stream and the staging blocks: device memory (with the context
 * current) on a GPU, host memory without one */
static void
release_frames (GstAccelFilterPrivate *priv)
{
  if (priv->context)
    gst_accel_cuda_scope_enter (priv->context);
  gst_accel_foreign_clear (&priv->held);
  for (int i = 0; i < 2; i++)
    gst_accel_staging_clear (&priv->staging[i]);
  g_clear_pointer (&priv->sync_stream, accel_stream_unref);
  priv->stream = NULL;
  if (priv->context)
    gst_accel_cuda_scope_leave ();
}

static gboolean
gst_accel_filter_start (GstBaseTransform *trans)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (trans));

  /* without a GPU the host implementation runs: no error */
  if (!gst_accel_cuda_usable ())
    {
      GST_CAT_INFO_OBJECT (
          CAT (trans), trans, "no usable GPU: the host implementation runs");
      return TRUE;
    }
  if (!gst_accel_cuda_ensure_context (GST_ELEMENT (trans), &priv->context))
    return FALSE;
  GST_CAT_INFO_OBJECT (
      CAT (trans), trans, "on the GPU, in %" GST_PTR_FORMAT, priv->context);
  return TRUE;
}

static gboolean
gst_accel_filter_stop (GstBaseTransform *trans)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (trans));

  release_frames (priv);
  gst_clear_object (&priv->context);
  GST_CAT_DEBUG_OBJECT (
      CAT (trans), trans, "stopped, stream and staging freed");
  return TRUE;
}

/* what the element is, as gst-inspect-1.0 names it */
static const char *
element_kind (GstElement *element)
{
  GstElementFactory *factory = gst_element_get_factory (element);

  return factory ? GST_OBJECT_NAME (factory) : G_OBJECT_TYPE_NAME (element);
}

static gboolean
gst_accel_filter_set_info (GstVideoFilter *filter, GstCaps *incaps,
    GstVideoInfo *in_info, GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (filter));
  gboolean in_cuda = gst_accel_cuda_caps_are_cuda (incaps);
  gboolean out_cuda = gst_accel_cuda_caps_are_cuda (outcaps);

  if ((in_cuda || out_cuda) && !priv->context)
    goto no_gpu;
  /* a mixed stream's frames are looked at one by one (transform) */
  if (GST_ACCEL_FILTER_GET_CLASS (filter)->neighbourhood
      && GST_VIDEO_INFO_IS_INTERLACED (in_info)
      && GST_VIDEO_INFO_INTERLACE_MODE (in_info)
             != GST_VIDEO_INTERLACE_MODE_MIXED)
    goto interlaced;
  /* the blocks of the previous caps go, the next frame sizes them anew */
  release_frames (priv);
  priv->in_cuda = in_cuda;
  priv->out_cuda = out_cuda;
  priv->layout = -1;
  GST_CAT_DEBUG_OBJECT (CAT (filter), filter,
      "caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
  GST_CAT_INFO_OBJECT (CAT (filter), filter,
      "%s memory in, %s memory out, %s%s", in_cuda ? "CUDA" : "system",
      out_cuda ? "CUDA" : "system",
      priv->context ? "on the GPU" : "host implementation",
      gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (filter))
          ? ": frames pass through untouched"
          : "");
  if (!priv->context)
    return TRUE;

  gst_accel_cuda_scope_enter (priv->context);
  priv->sync_stream = gst_accel_sync_stream_new (priv->context);
  gst_accel_cuda_scope_leave ();
  if (!priv->sync_stream)
    goto failed;
  priv->stream = accel_stream_get_handle (priv->sync_stream);
  return TRUE;

  /* ERRORS */
no_gpu:
  {
    GST_ELEMENT_ERROR (filter, CORE, NEGOTIATION, (NULL),
        ("CUDA memory was negotiated but no GPU is usable here"));
    return FALSE;
  }
interlaced:
  {
    GST_ELEMENT_ERROR (filter, CORE, NEGOTIATION, (NULL),
        ("%s filters progressive frames, whose rows are neighbours; the "
         "input is interlaced (%s), and its two fields would mix: put "
         "deinterlace before it",
            element_kind (GST_ELEMENT (filter)),
            gst_video_interlace_mode_to_string (
                GST_VIDEO_INFO_INTERLACE_MODE (in_info))));
    return FALSE;
  }
failed:
  {
    GST_ELEMENT_ERROR (filter, RESOURCE, FAILED, (NULL),
        ("cannot create a CUDA stream (see the accelsyncmeta log)"));
    return FALSE;
  }
}

/* @caps (taken) without interlaced frames but a mixed stream's (looked at
 * frame by frame): a filter of neighbours refuses them as caps, where a
 * refusal in set_caps () posted an error at each try and left
 * gst-launch-1.0 waiting for good in one run of four */
static GstCaps *
progressive_only (GstBaseTransform *trans, GstCaps *caps)
{
  GValue keep = G_VALUE_INIT, mode = G_VALUE_INIT;
  GstCaps *result = gst_caps_new_empty ();

  gst_value_list_init (&keep, 2);
  g_value_init (&mode, G_TYPE_STRING);
  g_value_set_static_string (&mode, "progressive");
  gst_value_list_append_value (&keep, &mode);
  g_value_set_static_string (&mode, "mixed");
  gst_value_list_append_value (&keep, &mode);
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    {
      GstStructure *s = gst_caps_get_structure (caps, i);
      const GValue *has = gst_structure_get_value (s, "interlace-mode");
      GValue both = G_VALUE_INIT;

      if (has && !gst_value_intersect (&both, has, &keep))
        continue;
      s = gst_structure_copy (s);
      if (has)
        gst_structure_take_value (s, "interlace-mode", &both);
      gst_caps_append_structure_full (
          result, s, gst_caps_features_copy (gst_caps_get_features (caps, i)));
    }
  g_value_unset (&mode);
  g_value_unset (&keep);
  /* why a link or a negotiation fails, where GST_DEBUG=2 shows it */
  if (gst_caps_is_empty (result) && !gst_caps_is_empty (caps))
    GST_CAT_WARNING_OBJECT (CAT (trans), trans,
        "%s filters progressive frames, whose rows are neighbours; it takes "
        "no interlaced ones (%" GST_PTR_FORMAT "): put deinterlace before it",
        element_kind (GST_ELEMENT (trans)), caps);
  gst_caps_unref (caps);
  return result;
}

/* either memory to either on a GPU (gstaccelmemory.c); the same memory
 * without one; a filter of neighbours takes no interlaced frames */
static GstCaps *
gst_accel_filter_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCaps *result, *tmp;
  gboolean progressive = GST_ACCEL_FILTER_GET_CLASS (trans)->neighbourhood;

  if (!gst_accel_cuda_usable () || gst_caps_is_any (caps))
    {
      result = GST_BASE_TRANSFORM_CLASS (gst_accel_filter_parent_class)
                   ->transform_caps (trans, direction, caps, filter);
      return progressive && !gst_caps_is_any (result)
                 ? progressive_only (trans, result)
                 : result;
    }
  result = gst_accel_memory_transform_caps (trans, direction, caps);
  if (progressive)
    result = progressive_only (trans, result);
  if (filter)
    {
      tmp = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref (result);
      result = tmp;
    }
  GST_CAT_LOG_OBJECT (CAT (trans), trans,
      "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "downstream of" : "upstream of", caps,
      result);
  return result;
}

static GstCaps *
gst_accel_filter_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  if (gst_accel_cuda_usable () && !gst_caps_is_any (caps))
    othercaps = gst_accel_memory_keep (trans, direction, caps, othercaps);
  return GST_BASE_TRANSFORM_CLASS (gst_accel_filter_parent_class)
      ->fixate_caps (trans, direction, caps, othercaps);
}

/* upstream asks what we would like: CUDA memory from our context, or on a
 * GPU for system memory caps page-locked memory, which we copy from by DMA
 * alone (holding a frame until its copy is done, hence two buffers) */
static gboolean
gst_accel_filter_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (trans));
  GstCaps *caps;

  /* passing buffers through, downstream answers (the base class forwards
   * the query): only the element that reads them may ask for the meta */
  gst_query_parse_allocation (query, &caps, NULL);
  if (!gst_base_transform_is_passthrough (trans) && caps && priv->context)
    {
      if (gst_accel_cuda_caps_are_cuda (caps))
        {
          GST_CAT_DEBUG_OBJECT (CAT (trans), trans,
              "offering upstream a CUDA pool%s",
              priv->sync_meta ? "; it waits on its input's sync meta" : "");
          return gst_accel_cuda_propose_allocation (
              priv->context, query, priv->sync_meta);
        }
      GST_CAT_DEBUG_OBJECT (
          CAT (trans), trans, "offering upstream a page-locked pool");
      gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
      return gst_accel_pinned_pool_offer (priv->context, query, 2);
    }
  return GST_BASE_TRANSFORM_CLASS (gst_accel_filter_parent_class)
      ->propose_allocation (trans, decide_query, query);
}

/* our output: a CUDA pool of our context unless downstream offers one; in
 * system memory on a GPU, a page-locked pool unless downstream offers one */
static gboolean
gst_accel_filter_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (trans));
  GstCaps *caps;

  priv->downstream_waits = FALSE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && priv->context && !gst_accel_cuda_caps_are_cuda (caps)
      && gst_query_get_n_allocation_pools (query) == 0
      && gst_accel_pinned_pool_offer (priv->context, query, 0))
    GST_CAT_DEBUG_OBJECT (CAT (trans), trans,
        "downstream offers no pool: frames leave in page-locked memory, "
        "copied from the GPU by DMA");
  if (caps && gst_accel_cuda_caps_are_cuda (caps))
    {
      if (!gst_accel_cuda_decide_allocation (priv->context, query))
        return FALSE;
      priv->downstream_waits = priv->sync_meta
                               && gst_query_find_allocation_meta (
                                   query, GST_ACCEL_SYNC_META_API_TYPE, NULL);
      GST_CAT_DEBUG_OBJECT (CAT (trans), trans, "%s",
          priv->downstream_waits
              ? "downstream takes the sync meta: frames are pushed with "
                "their GPU work in flight"
          : priv->sync_meta
              ? "downstream does not take the sync meta: the host waits "
                "for the GPU before each push"
              : "sync-meta=false: the host waits for the GPU before each "
                "push");
    }
  return GST_BASE_TRANSFORM_CLASS (gst_accel_filter_parent_class)
      ->decide_allocation (trans, query);
}

/**
 * gst_accel_filter_map_frames:
 * @self: an accel element
 * @inbuf: its input
 * @in_flags: GST_MAP_CUDA for CUDA memory, 0 for system memory
 * @outbuf: its output
 * @out_flags: the same for the output
 * @in: (out caller-allocates): the mapped input
 * @out: (out caller-allocates): the mapped output
 *
 * Maps both frames, without taking a reference, so that @outbuf stays
 * writable and can take the sync meta; on failure posts the error, leaves
 * nothing mapped and returns %FALSE.
 */
/* posts the error of an input @inbuf too small for a frame of @info */
static void
post_short_input (
    GstAccelFilter *self, GstBuffer *inbuf, GstVideoInfo *info, gboolean cuda)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
      ("cannot map the input frame at %" GST_TIME_FORMAT ": %" G_GSIZE_FORMAT
       " bytes in %s memory, where a %dx%d %s frame takes %" G_GSIZE_FORMAT,
          GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)), gst_buffer_get_size (inbuf),
          cuda ? "CUDA" : "system", GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info),
          GST_VIDEO_INFO_SIZE (info)));
}

/* a buffer the transfer elements pass through (on the host, or already in
 * the memory asked for), or accelconvert on the same caps, that is too small
 * for a frame of its caps is an error, as where they copy it; it went on
 * unchecked. A gap goes on as it is, and CUDA memory with a video meta (its own
 * layout) is left to the element that maps it */
static GstFlowReturn
check_passthrough (GstBaseTransform *trans, GstBuffer *buf)
{
  GstAccelFilter *self = GST_ACCEL_FILTER (trans);
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstMemory *mem
      = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0) : NULL;
  gboolean cuda = mem && gst_is_cuda_memory (mem);
  GstVideoFrame frame;

  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return GST_FLOW_OK;
  if (cuda)
    {
      if (gst_buffer_get_video_meta (buf)
          || gst_buffer_get_size (buf) >= GST_VIDEO_INFO_SIZE (info))
        return GST_FLOW_OK;
    }
  else if (gst_video_frame_map (&frame, info, buf, GST_MAP_READ))
    {
      gst_video_frame_unmap (&frame);
      return GST_FLOW_OK;
    }
  post_short_input (self, buf, info, cuda);
  return GST_FLOW_ERROR;
}

/**
 * gst_accel_filter_prepare_transfer_buffer:
 * @trans: accelupload, acceldownload or accelconvert
 * @inbuf: the input buffer
 * @outbuf: (out): the output buffer
 *
 * The prepare_output_buffer of the elements that pass frames through
 * untouched (the transfer elements, accelconvert on the same caps): as
 * the base class's, with
 * a buffer passed through checked first (a transform_ip of theirs, with
 * transform_ip_on_passthrough set, was not called in passthrough).
 */
GstFlowReturn
gst_accel_filter_prepare_transfer_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  if (gst_base_transform_is_passthrough (trans))
    {
      GstFlowReturn ret = check_passthrough (trans, inbuf);
      if (ret != GST_FLOW_OK)
        return ret;
    }
  return GST_BASE_TRANSFORM_CLASS (gst_accel_filter_parent_class)
      ->prepare_output_buffer (trans, inbuf, outbuf);
}

gboolean
gst_accel_filter_map_frames (GstAccelFilter *self, GstBuffer *inbuf,
    GstMapFlags in_flags, GstBuffer *outbuf, GstMapFlags out_flags,
    GstVideoFrame *in, GstVideoFrame *out)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstVideoInfo *info = &filter->in_info;

  if (!gst_video_frame_map (in, &filter->in_info, inbuf,
          GST_MAP_READ | in_flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))
    goto in_failed;
  if (!gst_video_frame_map (out, &filter->out_info, outbuf,
          GST_MAP_WRITE | out_flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))
    {
      gst_video_frame_unmap (in);
      info = &filter->out_info;
      goto out_failed;
    }
  return TRUE;

  /* ERRORS */
in_failed:
  {
    post_short_input (self, inbuf, info, in_flags != 0);
    return FALSE;
  }
out_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("cannot map the output frame: %" G_GSIZE_FORMAT
         " bytes in %s memory, where a %dx%d %s frame takes %" G_GSIZE_FORMAT,
            gst_buffer_get_size (outbuf), out_flags ? "CUDA" : "system",
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
            GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info)));
    return FALSE;
  }
}

/* an input frame in system memory on a GPU: copied once to the device,
 * as accelupload copies */
static int
upload_image (GstAccelFilter *self, GstVideoFrame *frame, GstAccelImage *image)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);
  guint8 *planes[GST_VIDEO_MAX_PLANES];
  gsize pitches[GST_VIDEO_MAX_PLANES];
  int err = gst_accel_image_alloc (image, &priv->staging[0], TRUE,
      gst_accel_image_format_from_video (GST_VIDEO_FRAME_FORMAT (frame)),
      GST_VIDEO_FRAME_WIDTH (frame), GST_VIDEO_FRAME_HEIGHT (frame));

  if (err)
    return err;
  gst_accel_image_planes (image, planes, pitches);
  return gst_accel_transfer_upload_planes (
      frame, planes, pitches, priv->stream, &priv->input_in_flight);
}

/* @frame as an image the kernels can reach: in place when it is in their
 * layout (and in CUDA memory on a GPU), otherwise staged */
static int
prepare_image (GstAccelFilter *self, GstVideoFrame *frame, int side,
    gboolean copy_in, GstAccelImage *image, gboolean *staged)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);
  gboolean device = priv->context != NULL;
  gboolean system = device && !(side == 0 ? priv->in_cuda : priv->out_cuda);

  *staged = system || !gst_accel_image_from_frame (image, frame);
  if (!*staged)
    return ACCEL_IMAGE_OK;
  if (system && copy_in)
    return upload_image (self, frame, image);
  return gst_accel_image_stage (
      image, &priv->staging[side], device, frame, copy_in, priv->stream);
}

static int
run_kernel (GstAccelFilter *self, gpointer stream, const GstAccelImage *in,
    const GstAccelImage *out)
{
  GstAccelFilterClass *klass = GST_ACCEL_FILTER_GET_CLASS (self);

  if (klass->filter_images)
    return klass->filter_images (self, stream, in, out);
  return klass->filter (self, stream, in->format, in->data, in->pitch,
      out->data, out->pitch, in->width, in->height);
}

/* why a side is staged */
static const gchar *
staged_why (GstAccelFilterPrivate *priv, gboolean cuda)
{
  if (priv->context && !cuda)
    return "staged (system memory: copied to or from the GPU)";
  return "staged (planes not in the kernels' layout)";
}

/* whether the kernel reaches the frames where they are or through
 * staging copies: at DEBUG when that changes, at LOG for every frame */
static void
log_layout (GstAccelFilter *self, GstVideoFrame *in, gboolean in_staged,
    gboolean out_staged)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);
  int layout = (in_staged ? 1 : 0) | (out_staged ? 2 : 0);
  const gchar *where = priv->context ? "GPU" : "host";

  if (layout)
    g_atomic_int_inc (&priv->staged_frames);
  if (layout != priv->layout)
    GST_CAT_DEBUG_OBJECT (CAT (self), self, "on the %s: input %s, output %s",
        where, in_staged ? staged_why (priv, priv->in_cuda) : "read in place",
        out_staged ? staged_why (priv, priv->out_cuda) : "written in place");
  priv->layout = layout;
  GST_CAT_LOG_OBJECT (CAT (self), self,
      "frame %" GST_TIME_FORMAT " on the %s, input %s, output %s",
      GST_TIME_ARGS (GST_BUFFER_PTS (in->buffer)), where,
      in_staged ? "staged" : "in place", out_staged ? "staged" : "in place");
}

/* the input and output images, the kernel, the output back in place */
static int
filter_frames (GstAccelFilter *self, GstVideoFrame *in, GstVideoFrame *out)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);
  GstAccelImage in_image, out_image;
  gboolean in_staged, out_staged;
  int ret;

  if ((ret = prepare_image (self, in, 0, TRUE, &in_image, &in_staged))
      || (ret = prepare_image (self, out, 1, FALSE, &out_image, &out_staged)))
    return ret;
  log_layout (self, in, in_staged, out_staged);
  if ((ret = run_kernel (self, priv->stream, &in_image, &out_image)))
    return ret;
  if (out_staged)
    return gst_accel_image_unstage (
        &out_image, &priv->staging[1], out, priv->stream);
  return ACCEL_IMAGE_OK;
}

/**
 * gst_accel_filter_hold_input:
 * @self: an accel element
 * @inbuf: its input, still read by the work enqueued on its stream
 *
 * Keeps @inbuf until the next frame (or the end of the stream, a flush or
 * a drain) instead of the host waiting for the reads before the push: for
 * a frame from a GStreamer CUDA element, and for one in page-locked memory
 * whose copy to the GPU is DMA alone (gst_accel_transfer_upload()). Call
 * with the element's CUDA context current.
 *
 * Returns: a cudaError_t; on error nothing is held and the host must wait.
 */
int
gst_accel_filter_hold_input (GstAccelFilter *self, GstBuffer *inbuf)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  return gst_accel_foreign_hold (&priv->held, inbuf, priv->stream);
}

/* an input from a GStreamer CUDA element is held until the kernel has
 * read it, instead of the host waiting for the kernel before the push */
static int
hold_foreign_input (
    GstAccelFilter *self, GstAccelFrameSync *sync, GstBuffer *inbuf)
{
  int err = gst_accel_filter_hold_input (self, inbuf);

  if (err == cudaSuccess)
    sync->host_wait = sync->out_wait;
  return err;
}

static const gchar *
frame_story (GstAccelFilterPrivate *priv, GstAccelFrameSync *sync)
{
  if (!priv->out_cuda)
    return "system memory out: the host waits for the GPU";
  if (sync->host_wait)
    return "the host waits for the GPU before the push";
  if (sync->foreign_in)
    return "pushed with its GPU work in flight; the input (no sync meta) is "
           "held until the next frame";
  return "pushed with its GPU work in flight, downstream waits on the sync "
         "meta";
}

/* a buffer that marks a gap and holds no frame (flagged GAP, smaller than
 * a frame): there is nothing to filter, and downstream is told of the gap
 * by an event, as of one announced upstream by an event. Filtered as a
 * frame, it went on as a frame of whatever its output buffer held before
 * (an earlier frame) on the host, and failed the stream on a GPU */
gboolean
gst_accel_filter_pass_gap (GstAccelFilter *self, GstBuffer *inbuf)
{
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstClockTime pts = GST_BUFFER_PTS (inbuf);

  if (!GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP)
      || gst_buffer_get_size (inbuf) >= GST_VIDEO_INFO_SIZE (info))
    return FALSE;
  GST_CAT_LOG_OBJECT (CAT (self), self,
      "gap at %" GST_TIME_FORMAT ": passed on as a gap event",
      GST_TIME_ARGS (pts));
  if (GST_CLOCK_TIME_IS_VALID (pts))
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (self),
        gst_event_new_gap (pts, GST_BUFFER_DURATION (inbuf)));
  return TRUE;
}

static GstFlowReturn gst_accel_filter_transform_frame (
    GstVideoFilter *filter, GstVideoFrame *in_frame, GstVideoFrame *out_frame);

static GstFlowReturn
gst_accel_filter_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstAccelFilter *self = GST_ACCEL_FILTER (trans);
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);
  GstAccelFrameSync sync;
  GstVideoFrame in, out;
  GstFlowReturn flow;
  int ret = ACCEL_IMAGE_OK, err = cudaSuccess;

  if (gst_accel_filter_pass_gap (self, inbuf))
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  if (GST_ACCEL_FILTER_GET_CLASS (self)->neighbourhood
      && GST_BUFFER_FLAG_IS_SET (inbuf, GST_VIDEO_BUFFER_FLAG_INTERLACED))
    {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("%s filters progressive frames; this frame of a mixed stream is "
           "interlaced, and its two fields would mix: put deinterlace "
           "before it",
              element_kind (GST_ELEMENT (self))));
      return GST_FLOW_ERROR;
    }
  /* the host implementation, mapped as on the GPU: a frame that does not
   * map is an error there too (GstVideoFilter warned and pushed the output
   * buffer as it was) */
  if (!priv->context)
    {
      if (!gst_accel_filter_map_frames (self, inbuf, 0, outbuf, 0, &in, &out))
        return GST_FLOW_ERROR;
      flow = gst_accel_filter_transform_frame (
          GST_VIDEO_FILTER (self), &in, &out);
      gst_video_frame_unmap (&out);
      gst_video_frame_unmap (&in);
      return flow;
    }

  if (!gst_accel_filter_map_frames (self, inbuf,
          priv->in_cuda ? GST_MAP_CUDA : 0, outbuf,
          priv->out_cuda ? GST_MAP_CUDA : 0, &in, &out))
    return GST_FLOW_ERROR;
  gst_accel_cuda_scope_enter (priv->context);
  ret = gst_accel_frame_sync_begin (&sync, &inbuf, priv->in_cuda ? 1 : 0,
      priv->out_cuda ? outbuf : NULL, priv->downstream_waits,
      priv->sync_stream);
  if (sync.foreign_in)
    gst_accel_foreign_enter (inbuf);
  priv->input_in_flight = FALSE;
  if (ret == ACCEL_IMAGE_OK)
    ret = filter_frames (self, &in, &out);
  if (ret == ACCEL_IMAGE_OK && sync.foreign_in)
    ret = hold_foreign_input (self, &sync, inbuf);
  /* a page-locked input: its DMA runs on; the host waits for it anyway
   * when the output must be complete */
  if (ret == ACCEL_IMAGE_OK && priv->input_in_flight && !sync.host_wait)
    ret = gst_accel_filter_hold_input (self, inbuf);
  GST_CAT_LOG_OBJECT (CAT (self), self, "frame %" GST_TIME_FORMAT ": %s",
      GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)), frame_story (priv, &sync));
  err = gst_accel_frame_sync_end (&sync, priv->sync_stream);
  gst_accel_cuda_scope_leave ();
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  if (ret != ACCEL_IMAGE_OK || err != cudaSuccess)
    goto failed;
  return GST_FLOW_OK;

  /* ERRORS */
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("GPU kernel failed: %s",
            cudaGetErrorString (
                (cudaError_t)(ret != ACCEL_IMAGE_OK ? ret : err))));
    return GST_FLOW_ERROR;
  }
}

/* the host implementation, for system memory without a GPU (also keeps
 * GstVideoFilter from making the element work in place) */
static GstFlowReturn
gst_accel_filter_transform_frame (
    GstVideoFilter *filter, GstVideoFrame *in_frame, GstVideoFrame *out_frame)
{
  int ret = filter_frames (GST_ACCEL_FILTER (filter), in_frame, out_frame);

  if (ret != ACCEL_IMAGE_OK)
    {
      GST_ELEMENT_ERROR (filter, STREAM, FAILED, (NULL),
          ("image kernel failed: %s (code %d)",
              ret == ACCEL_IMAGE_NO_MEMORY       ? "out of host memory"
              : ret == ACCEL_IMAGE_INVALID_VALUE ? "invalid value"
                                                 : "error",
              ret));
      return GST_FLOW_ERROR;
    }
  return GST_FLOW_OK;
}

/* the subclass's properties are parameters the base class keeps */
static gboolean
is_param (GParamSpec *pspec)
{
  return pspec->owner_type != GST_TYPE_ACCEL_FILTER;
}

static void
gst_accel_filter_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (object));

  if (is_param (pspec))
    {
      g_autofree gchar *contents = g_strdup_value_contents (value);

      GST_OBJECT_LOCK (object);
      g_value_copy (value, &priv->params[prop_id]);
      GST_OBJECT_UNLOCK (object);
      GST_CAT_DEBUG_OBJECT (
          CAT (object), object, "%s = %s", pspec->name, contents);
      return;
    }
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
gst_accel_filter_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (object));

  if (is_param (pspec))
    {
      GST_OBJECT_LOCK (object);
      g_value_copy (&priv->params[prop_id], value);
      GST_OBJECT_UNLOCK (object);
      return;
    }
  switch (prop_id)
    {
    case PROP_SYNC_META:
      g_value_set_boolean (value, priv->sync_meta);
      break;
    case PROP_STAGED_FRAMES:
      g_value_set_uint (value, g_atomic_int_get (&priv->staged_frames));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

/* here, not in init: during the base class's instance init the instance
 * still has the base class, not the subclass whose parameters these are */
static void
gst_accel_filter_constructed (GObject *object)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (object));
  GstAccelFilterClass *klass = GST_ACCEL_FILTER_GET_CLASS (object);

  /* every parameter starts at its default */
  priv->n_params = klass->n_params;
  priv->params = g_new0 (GValue, MAX (priv->n_params, 1));
  for (guint i = 0; i < priv->n_params; i++)
    if (klass->params[i])
      {
        g_value_init (&priv->params[i], klass->params[i]->value_type);
        g_param_value_set_default (klass->params[i], &priv->params[i]);
      }
  G_OBJECT_CLASS (gst_accel_filter_parent_class)->constructed (object);
}

static void
gst_accel_filter_finalize (GObject *object)
{
  GstAccelFilterPrivate *priv
      = gst_accel_filter_get_instance_private (GST_ACCEL_FILTER (object));

  for (guint i = 0; i < priv->n_params; i++)
    if (G_IS_VALUE (&priv->params[i]))
      g_value_unset (&priv->params[i]);
  g_free (priv->params);
  /* made when a neighbour asked for it, the element never started */
  gst_clear_object (&priv->context);
  G_OBJECT_CLASS (gst_accel_filter_parent_class)->finalize (object);
}

/**
 * gst_accel_filter_class_install_param:
 * @klass: a subclass, from its class_init
 * @prop_id: the property's id in the subclass, from 1
 * @pspec: (transfer floating): a boolean, int, float, double or enum
 *   property, readable and writable
 *
 * Installs @pspec as a property whose value the base class keeps under the
 * object lock; the subclass reads it with gst_accel_filter_get_param()
 * while it filters, so a change in PLAYING takes effect at the next frame.
 */
void
gst_accel_filter_class_install_param (
    GstAccelFilterClass *klass, guint prop_id, GParamSpec *pspec)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  /* a class that installs properties needs its own accessors */
  gobject_class->set_property = gst_accel_filter_set_property;
  gobject_class->get_property = gst_accel_filter_get_property;
  g_object_class_install_property (gobject_class, prop_id, pspec);
  if (prop_id >= klass->n_params)
    {
      klass->params = g_renew (GParamSpec *, klass->params, prop_id + 1);
      for (guint i = klass->n_params; i <= prop_id; i++)
        klass->params[i] = NULL;
      klass->n_params = prop_id + 1;
    }
  klass->params[prop_id] = pspec;
}

/**
 * gst_accel_filter_get_param:
 * @self: an accel element
 * @prop_id: the subclass's property id
 * @value: (out caller-allocates): an uninitialized value
 *
 * Copies the parameter's current value into @value. MT safe.
 */
void
gst_accel_filter_get_param (GstAccelFilter *self, guint prop_id, GValue *value)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  g_return_if_fail (prop_id < priv->n_params);
  GST_OBJECT_LOCK (self);
  g_value_init (value, G_VALUE_TYPE (&priv->params[prop_id]));
  g_value_copy (&priv->params[prop_id], value);
  GST_OBJECT_UNLOCK (self);
}

/**
 * gst_accel_filter_get_float:
 * @self: an accel element
 * @prop_id: the subclass's property id of a float or int parameter
 *
 * Returns: the parameter's current value as a float (an enum's value for an
 *   enum). MT safe.
 */
gfloat
gst_accel_filter_get_float (GstAccelFilter *self, guint prop_id)
{
  GValue value = G_VALUE_INIT, as_float = G_VALUE_INIT;
  gfloat f;

  gst_accel_filter_get_param (self, prop_id, &value);
  if (G_VALUE_HOLDS_ENUM (&value))
    f = g_value_get_enum (&value);
  else
    {
      g_value_init (&as_float, G_TYPE_FLOAT);
      g_value_transform (&value, &as_float);
      f = g_value_get_float (&as_float);
    }
  g_value_unset (&value);
  return f;
}

/**
 * gst_accel_filter_get_stream:
 * @self: an accel element
 *
 * Returns: its CUDA stream (a cudaStream_t) once caps are set on a GPU,
 *   %NULL on the host implementation.
 */
gpointer
gst_accel_filter_get_stream (GstAccelFilter *self)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  return priv->stream;
}

/**
 * gst_accel_filter_get_sync_stream:
 * @self: an accel element
 *
 * Returns: (transfer none) (nullable): the same stream as libaccel's
 *   AccelStream, for the sync meta's fences; %NULL on the host
 *   implementation.
 */
AccelStream *
gst_accel_filter_get_sync_stream (GstAccelFilter *self)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  return priv->sync_stream;
}

/**
 * gst_accel_filter_get_context:
 * @self: an accel element
 *
 * Returns: (transfer none) (nullable): the CUDA context it shares with the
 *   pipeline, %NULL on the host implementation.
 */
GstCudaContext *
gst_accel_filter_get_context (GstAccelFilter *self)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  return priv->context;
}

/**
 * gst_accel_filter_get_downstream_waits:
 * @self: an accel element
 *
 * Returns: whether downstream takes GstAccelSyncMeta, so that a frame in
 *   CUDA memory may be pushed before the GPU has written it.
 */
gboolean
gst_accel_filter_get_downstream_waits (GstAccelFilter *self)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  return priv->downstream_waits;
}

static void
gst_accel_filter_class_init (GstAccelFilterClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vfilter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_accel_filter_set_property;
  gobject_class->get_property = gst_accel_filter_get_property;
  gobject_class->constructed = gst_accel_filter_constructed;
  gobject_class->finalize = gst_accel_filter_finalize;
  /* each element sets its own */
  klass->debug_category = gst_accel_filter_debug;
  g_object_class_install_property (gobject_class, PROP_SYNC_META,
      gst_accel_sync_meta_param_spec_new (DEFAULT_SYNC_META));
  g_object_class_install_property (gobject_class, PROP_STAGED_FRAMES,
      g_param_spec_uint ("staged-frames", "Staged frames",
          "Frames whose input or output the element copied through its own "
          "staging memory (system memory on a GPU, or planes not in the "
          "kernels' layout); frames in CUDA memory in and out are read and "
          "written in place",
          0, G_MAXUINT, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  element_class->set_context = gst_accel_filter_set_context;
  trans_class->start = gst_accel_filter_start;
  trans_class->stop = gst_accel_filter_stop;
  trans_class->query = gst_accel_filter_query;
  trans_class->transform_caps = gst_accel_filter_transform_caps;
  trans_class->fixate_caps = gst_accel_filter_fixate_caps;
  trans_class->sink_event = gst_accel_filter_sink_event;
  trans_class->propose_allocation = gst_accel_filter_propose_allocation;
  trans_class->decide_allocation = gst_accel_filter_decide_allocation;
  trans_class->transform = gst_accel_filter_transform;
  vfilter_class->set_info = gst_accel_filter_set_info;
  vfilter_class->transform_frame = gst_accel_filter_transform_frame;
  gst_type_mark_as_plugin_api (GST_TYPE_ACCEL_FILTER, 0);
}

static void
gst_accel_filter_init (GstAccelFilter *self)
{
  GstAccelFilterPrivate *priv = gst_accel_filter_get_instance_private (self);

  priv->sync_meta = DEFAULT_SYNC_META;
  priv->layout = -1;
}
