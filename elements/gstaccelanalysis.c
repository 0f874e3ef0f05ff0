/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the analysis element: the passes of kernels/effects/analysis.h
 * over each frame, their statistics (and histograms) posted as element
 * messages every `interval` frames, and the frame passed through or
 * equalised. Passing through, the element works in place on the input;
 * equalising, it is an accel filter with an output frame of its own */
#include "gstaccelanalysis.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>
#include <string.h>

#include "effects/analysis.h"
#include "gstaccelcuda.h"
#include "gstaccelimage.h"
#include "gstaccelsyncmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_analysis_debug);
#define GST_CAT_DEFAULT gst_accel_analysis_debug
/* logs go to the element's category: accelhistogram has its own */
#define CAT(obj) GST_ACCEL_FILTER_CAT (obj)

#define ANALYSIS_CAPS                                                          \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (                                          \
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, "{ RGBA, BGRA }")                   \
  ";" GST_VIDEO_CAPS_MAKE ("{ RGBA, BGRA }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (ANALYSIS_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (ANALYSIS_CAPS));

#define DEFAULT_INTERVAL 1
#define DEFAULT_HISTOGRAM FALSE
#define DEFAULT_LUMA FALSE
#define DEFAULT_EQUALIZE ACCEL_EQUALIZE_NONE

enum
{
  PROP_0,
  PROP_INTERVAL,
  PROP_HISTOGRAM,
  PROP_LUMA,
  PROP_EQUALIZE,
};

/* what one accumulate and stats give, in one block so that a posted frame
 * costs one small copy from the device */
typedef struct
{
  uint32_t histogram[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
  uint64_t motion[ACCEL_ANALYSIS_CHANNELS];
  float stats[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS];
} AnalysisSums;

/* the bytes of AnalysisSums that the passes write: not its tail padding,
 * which a copy of the whole struct would read uninitialised */
#define ANALYSIS_SUMS_WRITTEN                                                  \
  (G_STRUCT_OFFSET (AnalysisSums, stats)                                       \
      + G_SIZEOF_MEMBER (AnalysisSums, stats))

typedef struct
{
  guint interval;
  gboolean histogram;
  gboolean luma;
  AccelEqualizeMode equalize;
} AnalysisSettings;

typedef struct
{
  AnalysisSettings props; /* under the object lock */

  /* streaming thread */
  AnalysisSettings frame; /* the properties for the frame at hand */
  gboolean cuda_memory;   /* the negotiated caps are in CUDA memory */
  guint64 frames;         /* since start or the last flush */
  gboolean post;          /* the frame at hand is posted */
  gboolean analysed;      /* analyse () ran on it: a frame the base class
                             could not map (a GAP, one cut short) is not */

  /* on the GPU: the sums in device memory, their copy in pinned memory
   * and the event after the copy; on the host: both the same */
  gboolean on_gpu;
  AnalysisSums *sums;
  AnalysisSums *host_sums;
  cudaEvent_t copied;
  /* the previous frame, for the motion energy */
  GstAccelStaging previous_staging;
  GstAccelImage previous;
  gboolean previous_valid;
} GstAccelAnalysisPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (
    GstAccelAnalysis, gst_accel_analysis, GST_TYPE_ACCEL_FILTER);
GST_ELEMENT_REGISTER_DEFINE (
    accelanalysis, "accelanalysis", GST_RANK_NONE, GST_TYPE_ACCEL_ANALYSIS);

GType
gst_accel_equalize_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { ACCEL_EQUALIZE_NONE, "Frames pass through unchanged", "none" },
    { ACCEL_EQUALIZE_LUMA, "The luma histogram is equalised; hues are kept",
        "luma" },
    { ACCEL_EQUALIZE_CHANNELS,
        "R, G and B are equalised each on its own; colours shift", "channels" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    {
      GType t = g_enum_register_static ("GstAccelEqualizeMode", values);
      g_once_init_leave (&type, t);
    }
  return type;
}

#define PRIV(self) gst_accel_analysis_get_instance_private (self)

static void
free_state (GstAccelAnalysis *self)
{
  GstAccelAnalysisPrivate *priv = PRIV (self);
  GstCudaContext *context
      = gst_accel_filter_get_context (GST_ACCEL_FILTER (self));

  if (priv->on_gpu && context)
    {
      gst_accel_cuda_scope_enter (context);
      cudaFree (priv->sums);
      cudaFreeHost (priv->host_sums);
      if (priv->copied)
        cudaEventDestroy (priv->copied);
      gst_accel_staging_clear (&priv->previous_staging);
      gst_accel_cuda_scope_leave ();
    }
  else
    {
      g_free (priv->sums);
      gst_accel_staging_clear (&priv->previous_staging);
    }
  priv->sums = priv->host_sums = NULL;
  priv->copied = NULL;
  memset (&priv->previous, 0, sizeof priv->previous);
  priv->on_gpu = FALSE;
  priv->previous_valid = FALSE;
}

/* the sums and the previous frame where this frame is analysed (on the GPU
 * with its context current), the previous one forgotten when it does not
 * match. Returns a cudaError_t */
static int
ensure_state (
    GstAccelAnalysis *self, gboolean gpu, int format, int width, int height)
{
  GstAccelAnalysisPrivate *priv = PRIV (self);
  GstAccelImage *prev = &priv->previous;
  int err;

  if (priv->sums && priv->on_gpu != gpu)
    free_state (self);
  if (!priv->sums && !gpu)
    priv->sums = priv->host_sums = g_new0 (AnalysisSums, 1);
  else if (!priv->sums)
    {
      priv->on_gpu = TRUE;
      if ((err = cudaMalloc ((void **)&priv->sums, sizeof (AnalysisSums)))
          || (err = cudaMallocHost (
                  (void **)&priv->host_sums, sizeof (AnalysisSums)))
          || (err = cudaEventCreateWithFlags (
                  &priv->copied, cudaEventDisableTiming)))
        return err;
    }
  if (prev->data && prev->format == format && prev->width == width
      && prev->height == height)
    return cudaSuccess;
  GST_CAT_DEBUG_OBJECT (CAT (self), self,
      "sums and the previous %dx%d frame kept on the %s", width, height,
      gpu ? "GPU" : "host");
  priv->previous_valid = FALSE;
  return gst_accel_image_alloc (
      prev, &priv->previous_staging, gpu, format, width, height);
}

/* the frame kept for the next one's motion, where no accumulate does it */
static int
keep_frame (gpointer stream, const GstAccelImage *prev, const void *src,
    size_t src_pitch)
{
  gsize row = (gsize)prev->width * 4;

  if (stream)
    return cudaMemcpy2DAsync (prev->data, prev->pitch, src, src_pitch, row,
        prev->height, cudaMemcpyDeviceToDevice, stream);
  for (int y = 0; y < prev->height; y++)
    memcpy ((guint8 *)prev->data + (gsize)y * prev->pitch,
        (const guint8 *)src + (gsize)y * src_pitch, row);
  return ACCEL_IMAGE_OK;
}

/* the passes over one frame, on the GPU with @stream (device pointers, the
 * context current) or on the host: the sums where they are needed (a
 * posted frame, an equalised one), otherwise only the frame kept; the
 * sums of a posted frame copied to the host (one small copy, waited for
 * in finish_frame() only); @dst, when given, the equalised frame. Returns
 * an ACCEL_IMAGE_* code or a cudaError_t */
static int
analyse (GstAccelAnalysis *self, gpointer stream, int format, const void *src,
    size_t src_pitch, int width, int height, void *dst, size_t dst_pitch)
{
  GstAccelAnalysisPrivate *priv = PRIV (self);
  const AnalysisSettings *s = &priv->frame;
  GstAccelImage *prev = &priv->previous;
  uint32_t *hist;
  uint64_t *motion;
  int flags, ret;

  if ((ret = ensure_state (self, stream != NULL, format, width, height)))
    return ret;
  hist = priv->sums->histogram;
  motion = priv->sums->motion;
  flags = ACCEL_ANALYSIS_KEEP
          | (priv->previous_valid ? ACCEL_ANALYSIS_MOTION : 0)
          | (s->luma || s->equalize == ACCEL_EQUALIZE_LUMA ? ACCEL_ANALYSIS_LUMA
                                                           : 0);

  if (!priv->post && s->equalize == ACCEL_EQUALIZE_NONE)
    ret = keep_frame (stream, prev, src, src_pitch);
  else if (stream)
    {
      ret = accel_analysis_accumulate (stream, format, src, src_pitch, width,
          height, flags, prev->data, prev->pitch, hist, motion);
      if (ret == cudaSuccess && priv->post
          && !(ret
               = accel_analysis_stats (stream, hist, motion, priv->sums->stats))
          && !(ret = cudaMemcpyAsync (priv->host_sums, priv->sums,
                   ANALYSIS_SUMS_WRITTEN, cudaMemcpyDeviceToHost, stream)))
        ret = cudaEventRecord (priv->copied, stream);
    }
  else
    {
      ret = accel_analysis_accumulate_host (format, src, src_pitch, width,
          height, flags, prev->data, prev->pitch, hist, motion);
      if (ret == ACCEL_IMAGE_OK && priv->post)
        ret = accel_analysis_stats_host (hist, motion, priv->sums->stats);
    }
  priv->previous_valid = ret == ACCEL_IMAGE_OK;

  if (ret == ACCEL_IMAGE_OK && dst)
    ret = stream ? accel_equalize (stream, format, src, src_pitch, dst,
              dst_pitch, width, height, hist, s->equalize)
                 : accel_equalize_host (format, src, src_pitch, dst, dst_pitch,
                     width, height, hist, s->equalize);
  priv->analysed = ret == ACCEL_IMAGE_OK;
  return ret;
}

static void
take_array (GstStructure *s, const gchar *field, GValue *array)
{
  gst_structure_take_value (s, field, array);
}

static void
append_value (GValue *array, GType type, gconstpointer v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, type);
  if (type == G_TYPE_DOUBLE)
    g_value_set_double (&value, *(const gfloat *)v);
  else if (type == G_TYPE_UINT)
    g_value_set_uint (&value, *(const guint32 *)v);
  else
    g_value_set_static_string (&value, v);
  gst_value_array_append_and_take_value (array, &value);
}

/* the message of the frame at hand: see docs/elements.md */
static void
post_results (GstAccelAnalysis *self, GstBuffer *buffer)
{
  static const gchar *channels[] = { "red", "green", "blue", "alpha", "luma" };
  static const gchar *stats[] = { "min", "max", "mean", "stddev", "motion" };
  GstAccelAnalysisPrivate *priv = PRIV (self);
  const AnalysisSums *sums = priv->host_sums;
  guint n = priv->frame.luma ? ACCEL_ANALYSIS_CHANNELS : 4;
  GstStructure *s = gst_structure_new ("accel-analysis", "frame", G_TYPE_UINT64,
      priv->frames, "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (buffer), NULL);
  GValue array = G_VALUE_INIT;

  g_value_init (&array, GST_TYPE_ARRAY);
  for (guint c = 0; c < n; c++)
    append_value (&array, G_TYPE_STRING, channels[c]);
  take_array (s, "channels", &array);
  for (guint k = 0; k < ACCEL_ANALYSIS_STATS; k++)
    {
      g_value_init (&array, GST_TYPE_ARRAY);
      for (guint c = 0; c < n; c++)
        append_value (
            &array, G_TYPE_DOUBLE, &sums->stats[c * ACCEL_ANALYSIS_STATS + k]);
      take_array (s, stats[k], &array);
    }
  if (priv->frame.histogram)
    {
      g_value_init (&array, GST_TYPE_ARRAY);
      for (guint c = 0; c < n; c++)
        {
          GValue bins = G_VALUE_INIT;

          g_value_init (&bins, GST_TYPE_ARRAY);
          for (guint v = 0; v < ACCEL_ANALYSIS_BINS; v++)
            append_value (&bins, G_TYPE_UINT,
                &sums->histogram[c * ACCEL_ANALYSIS_BINS + v]);
          gst_value_array_append_and_take_value (&array, &bins);
        }
      take_array (s, "histograms", &array);
    }
  GST_CAT_LOG_OBJECT (CAT (self), self, "posting %" GST_PTR_FORMAT, s);
  gst_element_post_message (
      GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

/* the properties for this frame, and whether it is posted */
static void
begin_frame (GstAccelAnalysis *self)
{
  GstAccelAnalysisPrivate *priv = PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->frame = priv->props;
  GST_OBJECT_UNLOCK (self);
  priv->post
      = priv->frame.interval > 0 && priv->frames % priv->frame.interval == 0;
  priv->analysed = FALSE;
  GST_CAT_LOG_OBJECT (CAT (self), self, "frame %" G_GUINT64_FORMAT "%s",
      priv->frames, priv->post ? ", posted" : "");
}

/* posts the results once they are on the host: on the GPU the host waits
 * for the copy of the sums here, on posted frames only */
static GstFlowReturn
finish_frame (GstAccelAnalysis *self, GstBuffer *buffer, GstFlowReturn ret)
{
  GstAccelAnalysisPrivate *priv = PRIV (self);
  cudaError_t err = cudaSuccess;

  /* a frame that did not map (a gap, one cut short) was passed on
   * unanalysed: its results would be the last frame's, or none yet */
  if (ret == GST_FLOW_OK && priv->post && !priv->analysed)
    {
      GST_CAT_WARNING_OBJECT (CAT (self), self,
          "frame %" G_GUINT64_FORMAT " was not analysed: nothing posted",
          priv->frames);
      priv->post = FALSE;
    }
  if (ret == GST_FLOW_OK && priv->post && priv->on_gpu)
    {
      GST_CAT_LOG_OBJECT (
          CAT (self), self, "the host waits for the copy of the sums");
      gst_accel_cuda_scope_enter (
          gst_accel_filter_get_context (GST_ACCEL_FILTER (self)));
      err = cudaEventSynchronize (priv->copied);
      gst_accel_cuda_scope_leave ();
      if (err != cudaSuccess)
        goto failed;
    }
  if (ret == GST_FLOW_OK && priv->post)
    post_results (self, buffer);
  priv->frames++;
  return ret;

  /* ERRORS */
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("the analysis's copy to the host failed: %s",
            cudaGetErrorString (err)));
    return GST_FLOW_ERROR;
  }
}

/* equalising: the filter base class maps (or stages) the frames and calls
 * this with the GPU's stream, or with none on the host */
static int
gst_accel_analysis_filter (GstAccelFilter *filter, void *stream, int format,
    const void *src, size_t src_pitch, void *dst, size_t dst_pitch, int width,
    int height)
{
  return analyse (GST_ACCEL_ANALYSIS (filter), stream, format, src, src_pitch,
      width, height, dst, dst_pitch);
}

static GstFlowReturn
gst_accel_analysis_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstAccelAnalysis *self = GST_ACCEL_ANALYSIS (trans);
  GstFlowReturn ret;

  begin_frame (self);
  ret = GST_BASE_TRANSFORM_CLASS (gst_accel_analysis_parent_class)
            ->transform (trans, inbuf, outbuf);
  return finish_frame (self, inbuf, ret);
}

/* passing through on the host (no GPU, or system memory: the analysis
 * reads each byte once, so a copy to the GPU would cost more than it) */
static GstFlowReturn
gst_accel_analysis_transform_frame_ip (
    GstVideoFilter *filter, GstVideoFrame *frame)
{
  int ret = analyse (GST_ACCEL_ANALYSIS (filter), NULL,
      gst_accel_filter_format_from_video (GST_VIDEO_FRAME_FORMAT (frame)),
      GST_VIDEO_FRAME_PLANE_DATA (frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0), GST_VIDEO_FRAME_WIDTH (frame),
      GST_VIDEO_FRAME_HEIGHT (frame), NULL, 0);

  if (ret != ACCEL_IMAGE_OK)
    {
      GST_ELEMENT_ERROR (filter, STREAM, FAILED, (NULL),
          ("analysis failed with code %d", ret));
      return GST_FLOW_ERROR;
    }
  return GST_FLOW_OK;
}

/* passing a frame in CUDA memory through: read in place after its writer,
 * the read recorded for its next writer; without the meta its writer
 * takes it back when it is released, so the host waits for the reads */
static GstFlowReturn
analyse_cuda_frame (GstAccelAnalysis *self, GstBuffer *buffer)
{
  GstAccelFilter *filter = GST_ACCEL_FILTER (self);
  gpointer stream = gst_accel_filter_get_stream (filter);
  AccelStream *sync_stream = gst_accel_filter_get_sync_stream (filter);
  GstAccelFrameSync sync;
  GstVideoFrame frame;
  int ret, err;

  if (!gst_video_frame_map (&frame, &GST_VIDEO_FILTER (self)->in_info, buffer,
          GST_MAP_READ | GST_MAP_CUDA | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))
    goto map_failed;
  gst_accel_cuda_scope_enter (gst_accel_filter_get_context (filter));
  ret = gst_accel_frame_sync_begin (
      &sync, &buffer, 1, NULL, FALSE, sync_stream);
  /* the frame goes on as it is: the host waits only where no meta records
   * the read for the next writer */
  sync.host_wait = sync.in[0] == NULL;
  GST_CAT_LOG_OBJECT (CAT (self), self, "read in place on the GPU, %s",
      sync.host_wait ? "no sync meta: the host waits for the reads"
                     : "after its writer's event (sync meta)");
  if (ret == cudaSuccess)
    ret = analyse (self, stream,
        gst_accel_filter_format_from_video (GST_VIDEO_FRAME_FORMAT (&frame)),
        GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        GST_VIDEO_FRAME_WIDTH (&frame), GST_VIDEO_FRAME_HEIGHT (&frame), NULL,
        0);
  err = gst_accel_frame_sync_end (&sync, sync_stream);
  gst_accel_cuda_scope_leave ();
  gst_video_frame_unmap (&frame);
  if (ret == cudaSuccess)
    ret = err;
  if (ret != cudaSuccess)
    goto failed;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    GST_ELEMENT_ERROR (
        self, STREAM, FAILED, (NULL), ("cannot map the frame in CUDA memory"));
    return GST_FLOW_ERROR;
  }
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("GPU analysis failed: %s", cudaGetErrorString ((cudaError_t)ret)));
    return GST_FLOW_ERROR;
  }
}

/* passing a frame in system memory through: analysed on the host. One
 * that does not map goes on as it is, unanalysed: a gap (an empty buffer
 * flagged GAP) quietly, any other with a warning that gives its size and
 * the frame's (GstVideoFilter's warning said "code not implemented",
 * for gaps too) */
static GstFlowReturn
analyse_system_frame (GstAccelAnalysis *self, GstBuffer *buffer)
{
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstVideoFrame frame;
  GstFlowReturn ret;

  if (gst_video_frame_map (&frame, info, buffer, GST_MAP_READ))
    {
      ret = gst_accel_analysis_transform_frame_ip (
          GST_VIDEO_FILTER (self), &frame);
      gst_video_frame_unmap (&frame);
      return ret;
    }
  if (GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_GAP)
      && gst_buffer_get_size (buffer) == 0)
    GST_CAT_LOG_OBJECT (CAT (self), self,
        "gap at %" GST_TIME_FORMAT ": passed on, nothing to analyse",
        GST_TIME_ARGS (GST_BUFFER_PTS (buffer)));
  else
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("frame at %" GST_TIME_FORMAT " passed on unanalysed: %" G_GSIZE_FORMAT
         " bytes, where a %dx%d %s frame takes %" G_GSIZE_FORMAT,
            GST_TIME_ARGS (GST_BUFFER_PTS (buffer)),
            gst_buffer_get_size (buffer), GST_VIDEO_INFO_WIDTH (info),
            GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info),
            GST_VIDEO_INFO_SIZE (info)));
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_accel_analysis_transform_ip (GstBaseTransform *trans, GstBuffer *buffer)
{
  GstAccelAnalysis *self = GST_ACCEL_ANALYSIS (trans);
  GstAccelAnalysisPrivate *priv = PRIV (self);
  GstFlowReturn ret;

  begin_frame (self);
  if (priv->cuda_memory)
    ret = analyse_cuda_frame (self, buffer);
  else
    ret = analyse_system_frame (self, buffer);
  return finish_frame (self, buffer, ret);
}

/* passing through, downstream's answer is the one that counts: frames go
 * there as they come. But for crop meta: a crop left to downstream would
 * have this element measure the whole uncropped frame */
static gboolean
gst_accel_analysis_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  guint index;

  if (decide_query)
    return GST_BASE_TRANSFORM_CLASS (gst_accel_analysis_parent_class)
        ->propose_allocation (trans, decide_query, query);
  if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SRC_PAD (trans), query))
    return FALSE;
  while (gst_query_find_allocation_meta (
      query, GST_VIDEO_CROP_META_API_TYPE, &index))
    gst_query_remove_nth_allocation_meta (query, index);
  return TRUE;
}

static gboolean
gst_accel_analysis_set_info (GstVideoFilter *filter, GstCaps *incaps,
    GstVideoInfo *in_info, GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstAccelAnalysis *self = GST_ACCEL_ANALYSIS (filter);
  GstAccelAnalysisPrivate *priv = PRIV (self);
  AccelEqualizeMode equalize;

  if (!GST_VIDEO_FILTER_CLASS (gst_accel_analysis_parent_class)
           ->set_info (filter, incaps, in_info, outcaps, out_info))
    return FALSE;
  priv->cuda_memory = gst_accel_cuda_caps_are_cuda (incaps);
  priv->previous_valid = FALSE;
  GST_OBJECT_LOCK (self);
  equalize = priv->props.equalize;
  GST_OBJECT_UNLOCK (self);
  gst_base_transform_set_passthrough (
      GST_BASE_TRANSFORM (filter), equalize == ACCEL_EQUALIZE_NONE);
  GST_CAT_INFO_OBJECT (CAT (self), self, "%s",
      equalize != ACCEL_EQUALIZE_NONE ? "equalising: an output frame of its own"
      : priv->cuda_memory
          ? "frames pass through, analysed in place on the GPU"
          : "frames pass through, analysed in place on the host");
  return TRUE;
}

/* a seek or flush starts the frame count and the motion afresh */
static gboolean
gst_accel_analysis_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstAccelAnalysisPrivate *priv = PRIV (GST_ACCEL_ANALYSIS (trans));

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    {
      GST_CAT_DEBUG_OBJECT (CAT (trans), trans,
          "flushed: the frame count and the motion start over");
      priv->frames = 0;
      priv->previous_valid = FALSE;
    }
  return GST_BASE_TRANSFORM_CLASS (gst_accel_analysis_parent_class)
      ->sink_event (trans, event);
}

static gboolean
gst_accel_analysis_start (GstBaseTransform *trans)
{
  GstAccelAnalysisPrivate *priv = PRIV (GST_ACCEL_ANALYSIS (trans));

  priv->frames = 0;
  priv->previous_valid = FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_accel_analysis_parent_class)
      ->start (trans);
}

/* before the base class lets the context go */
static gboolean
gst_accel_analysis_stop (GstBaseTransform *trans)
{
  free_state (GST_ACCEL_ANALYSIS (trans));
  return GST_BASE_TRANSFORM_CLASS (gst_accel_analysis_parent_class)
      ->stop (trans);
}

static void
gst_accel_analysis_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstAccelAnalysisPrivate *priv = PRIV (GST_ACCEL_ANALYSIS (object));
  g_autofree gchar *contents = g_strdup_value_contents (value);

  GST_CAT_DEBUG_OBJECT (CAT (object), object, "%s = %s", pspec->name, contents);
  GST_OBJECT_LOCK (object);
  switch (prop_id)
    {
    case PROP_INTERVAL:
      priv->props.interval = g_value_get_uint (value);
      break;
    case PROP_HISTOGRAM:
      priv->props.histogram = g_value_get_boolean (value);
      break;
    case PROP_LUMA:
      priv->props.luma = g_value_get_boolean (value);
      break;
    case PROP_EQUALIZE:
      priv->props.equalize = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_accel_analysis_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAccelAnalysisPrivate *priv = PRIV (GST_ACCEL_ANALYSIS (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id)
    {
    case PROP_INTERVAL:
      g_value_set_uint (value, priv->props.interval);
      break;
    case PROP_HISTOGRAM:
      g_value_set_boolean (value, priv->props.histogram);
      break;
    case PROP_LUMA:
      g_value_set_boolean (value, priv->props.luma);
      break;
    case PROP_EQUALIZE:
      g_value_set_enum (value, priv->props.equalize);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_accel_analysis_class_init (GstAccelAnalysisClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vfilter_class = GST_VIDEO_FILTER_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_accel_analysis_set_property;
  gobject_class->get_property = gst_accel_analysis_get_property;

  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint ("interval", "Interval",
          "Post an \"accel-analysis\" message every this many frames, from "
          "the first (0: none)",
          0, G_MAXUINT, DEFAULT_INTERVAL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_HISTOGRAM,
      g_param_spec_boolean ("histogram", "Histogram",
          "Include the 256-bin histogram of each channel in the messages",
          DEFAULT_HISTOGRAM,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LUMA,
      g_param_spec_boolean ("luma", "Luma",
          "Include the BT.601 luma as a fifth channel in the messages",
          DEFAULT_LUMA,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_EQUALIZE,
      g_param_spec_enum ("equalize", "Equalize",
          "Histogram equalisation of the output frames (none: they pass "
          "through unchanged)",
          GST_TYPE_ACCEL_EQUALIZE_MODE, DEFAULT_EQUALIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  /* the same names replace the filter base class's templates */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "accel analysis",
      "Filter/Analyzer/Video",
      "Posts the statistics, motion energy and histograms of RGBA or BGRA "
      "frames as element messages, and equalises the frames' histograms",
      ACCEL_ELEMENT_AUTHOR);

  trans_class->transform_ip_on_passthrough = TRUE;
  /* frames pass through: the same memory on both sides, as GstBaseTransform
   * has it, not the filters' upload of system memory */
  trans_class->transform_caps
      = GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM))
            ->transform_caps;
  trans_class->start = gst_accel_analysis_start;
  trans_class->stop = gst_accel_analysis_stop;
  trans_class->sink_event = gst_accel_analysis_sink_event;
  trans_class->propose_allocation = gst_accel_analysis_propose_allocation;
  trans_class->transform = gst_accel_analysis_transform;
  trans_class->transform_ip = gst_accel_analysis_transform_ip;
  vfilter_class->set_info = gst_accel_analysis_set_info;
  vfilter_class->transform_frame_ip = gst_accel_analysis_transform_frame_ip;
  filter_class->filter = gst_accel_analysis_filter;
  GST_DEBUG_CATEGORY_INIT (
      gst_accel_analysis_debug, "accelanalysis", 0, "accel analysis");
  filter_class->debug_category = gst_accel_analysis_debug;
  gst_type_mark_as_plugin_api (GST_TYPE_ACCEL_EQUALIZE_MODE, 0);
}

static void
gst_accel_analysis_init (GstAccelAnalysis *self)
{
  GstAccelAnalysisPrivate *priv = PRIV (self);

  priv->props.interval = DEFAULT_INTERVAL;
  priv->props.histogram = DEFAULT_HISTOGRAM;
  priv->props.luma = DEFAULT_LUMA;
  priv->props.equalize = DEFAULT_EQUALIZE;
}
