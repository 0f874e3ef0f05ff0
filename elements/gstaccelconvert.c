/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: accelconvert, colour conversion between RGBA, BGRA, GRAY8, NV12
 * and I420 and bilinear scaling, in one element, on CUDA or system memory;
 * formats and sizes are negotiated like videoconvertscale's */
#include "gstaccelconvert.h"

#include "gstaccelcuda.h"
#include "gstacceltransfer.h"

#include "image/convert.h"
#include "image/resize.h"

GST_DEBUG_CATEGORY_STATIC (gst_accel_convert_debug);
#define GST_CAT_DEFAULT gst_accel_convert_debug

/* the formats of accelupload and acceldownload */
#define CONVERT_CAPS                                                           \
  GST_ACCEL_TRANSFER_CUDA_CAPS ";" GST_ACCEL_TRANSFER_SYSTEM_CAPS

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CONVERT_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CONVERT_CAPS));

struct _GstAccelConvert
{
  GstAccelFilter parent;

  /* the steps' intermediate images, streaming thread only */
  GstAccelStaging scratch[2];
  /* how a 4:2:0 input is decoded (set_info) */
  int yuv_matrix;
  gboolean yuv_full_range;
  /* a mixed stream's frame flagged interlaced (before_transform) */
  gboolean frame_interlaced;
};

G_DEFINE_TYPE_WITH_CODE (GstAccelConvert, gst_accel_convert,
    GST_TYPE_ACCEL_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_accel_convert_debug, "accelconvert", 0,
        "accel colour conversion and scaling"));
GST_ELEMENT_REGISTER_DEFINE (
    accelconvert, "accelconvert", GST_RANK_NONE, GST_TYPE_ACCEL_CONVERT);

/* the formats an interlaced frame of @format converts into, either way,
 * at its own size (refused_when_interlaced ()): 4:2:0 and full colour stay
 * apart, GRAY8 has no colour to mix; NULL for any */
static const char *const *
interlaced_formats (const GstStructure *s)
{
  static const char *const yuv[] = { "NV12", "I420", "GRAY8", NULL };
  static const char *const packed[] = { "RGBA", "BGRA", "GRAY8", NULL };
  const char *format = gst_structure_get_string (s, "format");

  if (!format || g_str_equal (format, "GRAY8"))
    return NULL;
  return g_str_equal (format, "NV12") || g_str_equal (format, "I420") ? yuv
                                                                      : packed;
}

/* the 4:2:0 formats, into which YUV of a colorimetry it cannot decode is
 * copied */
static const char *const yuv_formats[] = { "NV12", "I420", NULL };

/* whether @s is no 4:2:0 YUV, or YUV of a matrix accelconvert decodes
 * (BT.601, BT.709, BT.2020), or one not fixed yet */
static gboolean
decodes_colorimetry (const GstStructure *s)
{
  const char *c = gst_structure_get_string (s, "colorimetry");
  const char *format = gst_structure_get_string (s, "format");
  GstVideoColorimetry colorimetry;

  if (!c || !format || !g_strv_contains (yuv_formats, format)
      || !gst_video_colorimetry_from_string (&colorimetry, c))
    return TRUE;
  return colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT601
         || colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_UNKNOWN
         || colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709
         || colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT2020;
}

/* any size and format, the same memory; an interlaced stream at its own
 * size, into the formats it converts into, and YUV of a colorimetry it
 * cannot decode at its own size into 4:2:0 (its planes copied): refused
 * as caps, so that a link or a negotiation fails at once, where a refusal
 * in set_caps () posted an error at each try and gst-launch-1.0 could
 * wait for good (one run in three) */
static GstCaps *
gst_accel_convert_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCaps *res = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    {
      GstStructure *s = gst_caps_get_structure (caps, i);
      GstCapsFeatures *f = gst_caps_get_features (caps, i);
      const char *mode = gst_structure_get_string (s, "interlace-mode");
      gboolean interlaced = mode && !g_str_equal (mode, "progressive")
                            && !g_str_equal (mode, "mixed");
      gboolean undecodable
          = direction == GST_PAD_SINK && !decodes_colorimetry (s);
      const char *const *formats = interlaced    ? interlaced_formats (s)
                                   : undecodable ? yuv_formats
                                                 : NULL;

      if (i > 0 && gst_caps_is_subset_structure_full (res, s, f))
        continue;
      s = gst_structure_copy (s);
      if (!interlaced && !undecodable)
        {
          gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
              "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
          if (gst_structure_has_field (s, "pixel-aspect-ratio"))
            gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE,
                1, G_MAXINT, G_MAXINT, 1, NULL);
        }
      /* YUV it cannot decode is only copied, with its colorimetry */
      gst_structure_remove_fields (s, "format", NULL);
      if (!undecodable)
        gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
      if (formats)
        {
          GValue list = G_VALUE_INIT, one = G_VALUE_INIT;

          gst_value_list_init (&list, 3);
          g_value_init (&one, G_TYPE_STRING);
          for (guint k = 0; formats[k]; k++)
            {
              g_value_set_static_string (&one, formats[k]);
              gst_value_list_append_value (&list, &one);
            }
          g_value_unset (&one);
          gst_structure_take_value (s, "format", &list);
        }
      gst_caps_append_structure_full (res, s, gst_caps_features_copy (f));
    }
  if (filter)
    {
      GstCaps *tmp
          = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);

      gst_caps_unref (res);
      res = tmp;
    }
  GST_DEBUG_OBJECT (
      trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, res);
  return res;
}

/* what the encoders write: BT.601 at full range (JFIF), chroma at the
 * centre of each 2 x 2 block */
#define ENCODED_COLORIMETRY "1:4:0:0"
#define ENCODED_CHROMA_SITE "jpeg"

static gboolean
is_yuv_structure (const GstStructure *s)
{
  const gchar *format = gst_structure_get_string (s, "format");

  return format
         && (g_str_equal (format, "NV12") || g_str_equal (format, "I420"));
}

/* @field of @outs set to @value where it is free, or the nearest where it
 * is a list; one fixed otherwise is checked in set_info */
static void
fixate_string (GstStructure *outs, const char *field, const char *value)
{
  if (!value)
    return;
  if (!gst_structure_has_field (outs, field))
    gst_structure_set (outs, field, G_TYPE_STRING, value, NULL);
  else
    gst_structure_fixate_field_string (outs, field, value);
}

/* a 4:2:0 output's colorimetry and chroma siting: the input's where its
 * planes are only copied (4:2:0 in at the same size), the encoders'
 * otherwise */
static void
fixate_colorimetry (
    const GstStructure *ins, GstStructure *outs, gint in_w, gint in_h)
{
  gint out_w = 0, out_h = 0;

  if (!is_yuv_structure (outs))
    return;
  gst_structure_get_int (outs, "width", &out_w);
  gst_structure_get_int (outs, "height", &out_h);
  if (is_yuv_structure (ins) && out_w == in_w && out_h == in_h)
    {
      fixate_string (
          outs, "colorimetry", gst_structure_get_string (ins, "colorimetry"));
      fixate_string (
          outs, "chroma-site", gst_structure_get_string (ins, "chroma-site"));
      return;
    }
  fixate_string (outs, "colorimetry", ENCODED_COLORIMETRY);
  fixate_string (outs, "chroma-site", ENCODED_CHROMA_SITE);
}

/* whether @s leaves its colorimetry free or allows @c */
static gboolean
takes_colorimetry (const GstStructure *s, const gchar *c)
{
  const GValue *have = gst_structure_get_value (s, "colorimetry");
  GValue want = G_VALUE_INIT;
  gboolean takes;

  if (!have)
    return TRUE;
  if (!c)
    return FALSE;
  g_value_init (&want, G_TYPE_STRING);
  g_value_set_string (&want, c);
  takes = gst_value_intersect (NULL, have, &want);
  g_value_unset (&want);
  return takes;
}

/* the first of @othercaps' structures that takes a colorimetry this
 * element writes (the encoders', or the input's where planes are copied):
 * videoconvert offers its passthrough caps first, with the colorimetry
 * of what follows it fixed, and any other after them */
static guint
first_taking_colorimetry (const GstStructure *ins, GstCaps *othercaps)
{
  const gchar *in_c = is_yuv_structure (ins)
                          ? gst_structure_get_string (ins, "colorimetry")
                          : NULL;

  for (guint i = 0; i < gst_caps_get_size (othercaps); i++)
    {
      const GstStructure *s = gst_caps_get_structure (othercaps, i);

      /* RGB out takes any colorimetry: it is not checked */
      if (!is_yuv_structure (s) || takes_colorimetry (s, ENCODED_COLORIMETRY)
          || takes_colorimetry (s, in_c))
        return i;
    }
  return 0;
}

/* @side x @num / @den rounded, as a size caps can hold */
static gint
scale_side (gint side, guint64 num, guint64 den)
{
  guint64 v = gst_util_uint64_scale_round ((guint64)side, num, den);

  return (gint)CLAMP (v, 1, G_MAXINT);
}

/* the input's format, size and pixel shape where the other side allows
 * them, with the input's display aspect ratio kept as videoconvertscale
 * keeps it: the pixel aspect ratio first (the input's where allowed), then
 * a side the other side leaves free from the one it fixes, or from the
 * input's height where it fixes neither; where it fixes both, the pixel
 * aspect ratio that shows them at the input's shape */
static GstCaps *
gst_accel_convert_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  GstStructure *ins = gst_caps_get_structure (caps, 0), *outs;
  const gchar *format = gst_structure_get_string (ins, "format");
  gint in_w = 0, in_h = 0, out_w, out_h, par_n = 1, par_d = 1;
  gint dar_n, dar_d, opar_n = 1, opar_d = 1;
  guint first = first_taking_colorimetry (ins, othercaps);

  if (first > 0)
    {
      GstCaps *taken = gst_caps_copy_nth (othercaps, first);

      gst_caps_unref (othercaps);
      othercaps = taken;
    }
  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  outs = gst_caps_get_structure (othercaps, 0);
  gst_structure_get_int (ins, "width", &in_w);
  gst_structure_get_int (ins, "height", &in_h);
  gst_structure_get_fraction (ins, "pixel-aspect-ratio", &par_n, &par_d);
  if (format)
    gst_structure_fixate_field_string (outs, "format", format);

  if (in_w > 0 && in_h > 0 && par_n > 0 && par_d > 0
      && gst_util_fraction_multiply (in_w, in_h, par_n, par_d, &dar_n, &dar_d))
    {
      gboolean w_fixed = gst_structure_get_int (outs, "width", &out_w);
      gboolean h_fixed = gst_structure_get_int (outs, "height", &out_h);
      gboolean has_par = gst_structure_has_field (outs, "pixel-aspect-ratio");

      if (has_par && !(w_fixed && h_fixed))
        gst_structure_fixate_field_nearest_fraction (
            outs, "pixel-aspect-ratio", par_n, par_d);
      if (has_par)
        gst_structure_get_fraction (
            outs, "pixel-aspect-ratio", &opar_n, &opar_d);
      if (opar_n <= 0 || opar_d <= 0)
        opar_n = opar_d = 1;

      /* the input's height, unless the width that keeps the shape there
       * is out of downstream's range: then the width it allows */
      if (!w_fixed && !h_fixed)
        {
          GstStructure *trial = gst_structure_copy (outs);
          gint want_w, got_w = 0;

          gst_structure_fixate_field_nearest_int (trial, "height", in_h);
          gst_structure_get_int (trial, "height", &out_h);
          want_w = scale_side (
              out_h, (guint64)dar_n * opar_d, (guint64)dar_d * opar_n);
          gst_structure_fixate_field_nearest_int (trial, "width", want_w);
          gst_structure_get_int (trial, "width", &got_w);
          gst_structure_free (trial);
          if (got_w == want_w)
            {
              gst_structure_fixate_field_nearest_int (outs, "height", out_h);
              h_fixed = TRUE;
            }
          else
            {
              gst_structure_fixate_field_nearest_int (outs, "width", got_w);
              gst_structure_get_int (outs, "width", &out_w);
              w_fixed = TRUE;
            }
        }
      /* width / height = dar x opar_d / opar_n */
      if (w_fixed && !h_fixed)
        gst_structure_fixate_field_nearest_int (outs, "height",
            scale_side (
                out_w, (guint64)dar_d * opar_n, (guint64)dar_n * opar_d));
      else if (h_fixed && !w_fixed)
        gst_structure_fixate_field_nearest_int (outs, "width",
            scale_side (
                out_h, (guint64)dar_n * opar_d, (guint64)dar_d * opar_n));
      gst_structure_get_int (outs, "width", &out_w);
      gst_structure_get_int (outs, "height", &out_h);
      /* both sides fixed downstream: pixels stretched to keep the shape */
      if (has_par && out_w > 0 && out_h > 0)
        {
          gint n, d;

          if (gst_util_fraction_multiply (dar_n, dar_d, out_h, out_w, &n, &d))
            gst_structure_fixate_field_nearest_fraction (
                outs, "pixel-aspect-ratio", n, d);
        }
    }
  fixate_colorimetry (ins, outs, in_w, in_h);
  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (trans, "fixated %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}

/* pointer positions from downstream's frame into upstream's */
static gboolean
gst_accel_convert_src_event (GstBaseTransform *trans, GstEvent *event)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  gdouble x, y;

  if (GST_EVENT_TYPE (event) == GST_EVENT_NAVIGATION
      && GST_VIDEO_INFO_WIDTH (&filter->out_info) > 0
      && GST_VIDEO_INFO_HEIGHT (&filter->out_info) > 0
      && gst_navigation_event_get_coordinates (event, &x, &y))
    {
      event = gst_event_make_writable (event);
      gst_navigation_event_set_coordinates (event,
          x * GST_VIDEO_INFO_WIDTH (&filter->in_info)
              / GST_VIDEO_INFO_WIDTH (&filter->out_info),
          y * GST_VIDEO_INFO_HEIGHT (&filter->in_info)
              / GST_VIDEO_INFO_HEIGHT (&filter->out_info));
    }
  return GST_BASE_TRANSFORM_CLASS (gst_accel_convert_parent_class)
      ->src_event (trans, event);
}

/* a 4:2:0 @in decoded as the input's caps say */
static int
convert (GstAccelConvert *self, gpointer stream, const GstAccelImage *in,
    const GstAccelImage *out)
{
  if (stream)
    return accel_convert_yuv (stream, self->yuv_matrix, self->yuv_full_range,
        in->format, in->data, in->pitch, out->format, out->data, out->pitch,
        in->width, in->height);
  return accel_convert_yuv_host (self->yuv_matrix, self->yuv_full_range,
      in->format, in->data, in->pitch, out->format, out->data, out->pitch,
      in->width, in->height);
}

static int
resize (gpointer stream, const GstAccelImage *in, const GstAccelImage *out)
{
  if (stream)
    return accel_resize (stream, in->format, in->data, in->pitch, in->width,
        in->height, out->data, out->pitch, out->width, out->height);
  return accel_resize_host (in->format, in->data, in->pitch, in->width,
      in->height, out->data, out->pitch, out->width, out->height);
}

static gboolean
resizable (int format)
{
  return format == ACCEL_IMAGE_RGBA8 || format == ACCEL_IMAGE_BGRA8
         || format == ACCEL_IMAGE_GRAY8;
}

static gboolean
is_yuv_format (int format)
{
  return format == ACCEL_IMAGE_NV12 || format == ACCEL_IMAGE_I420;
}

/* a frame's colour: a pixel's own (RGBA, BGRA), 4:2:0 or none (GRAY8) */
typedef enum
{
  CHROMA_FULL,
  CHROMA_420,
  CHROMA_NONE,
} Chroma;

static Chroma
chroma_of_format (int format)
{
  return is_yuv_format (format)        ? CHROMA_420
         : format == ACCEL_IMAGE_GRAY8 ? CHROMA_NONE
                                       : CHROMA_FULL;
}

/* what an interlaced frame cannot have done as one frame: a scale blends
 * its two fields, and a 4:2:0 chroma row spans a row of each field, so
 * decoding or encoding the colours of 4:2:0 mixes them (a copy between
 * NV12 and I420 keeps its rows, and GRAY8 has no colour); NULL if @in
 * converts into @out as it is */
static const char *
refused_when_interlaced (
    gint in_w, gint in_h, Chroma in, gint out_w, gint out_h, Chroma out)
{
  if (in_w != out_w || in_h != out_h)
    return "accelconvert scales progressive frames";
  if ((in == CHROMA_420 && out == CHROMA_FULL)
      || (in == CHROMA_FULL && out == CHROMA_420))
    return "accelconvert decodes and encodes 4:2:0 in progressive frames "
           "(its chroma rows would mix the two fields)";
  return NULL;
}

/* a mixed stream says per frame whether it is interlaced */
static void
gst_accel_convert_before_transform (GstBaseTransform *trans, GstBuffer *buffer)
{
  GST_ACCEL_CONVERT (trans)->frame_interlaced
      = GST_BUFFER_FLAG_IS_SET (buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED);
}

/* one conversion at the same size; otherwise the resize runs in a packed
 * format (the input's, or GRAY8 or RGBA8), with conversions around it */
static int
gst_accel_convert_filter_images (GstAccelFilter *filter, void *stream,
    const GstAccelImage *in, const GstAccelImage *out)
{
  GstAccelConvert *self = GST_ACCEL_CONVERT (filter);
  gboolean device = stream != NULL;
  const GstAccelImage *src = in, *dst = out;
  const char *refused;
  GstAccelImage a, b;
  int mid, ret;

  if (self->frame_interlaced
      && (refused = refused_when_interlaced (in->width, in->height,
              chroma_of_format (in->format), out->width, out->height,
              chroma_of_format (out->format))))
    {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("%s; this frame of a mixed stream is interlaced: put deinterlace "
           "before it",
              refused));
      return ACCEL_IMAGE_INVALID_VALUE;
    }
  if (in->width == out->width && in->height == out->height)
    {
      GST_LOG_OBJECT (self, "%s -> %s at %dx%d",
          gst_accel_image_format_name (in->format),
          gst_accel_image_format_name (out->format), in->width, in->height);
      return convert (self, stream, in, out);
    }

  mid = resizable (in->format)             ? in->format
        : out->format == ACCEL_IMAGE_GRAY8 ? ACCEL_IMAGE_GRAY8
                                           : ACCEL_IMAGE_RGBA8;
  GST_LOG_OBJECT (self, "%s %dx%d -> %s %dx%d, resized in %s%s%s",
      gst_accel_image_format_name (in->format), in->width, in->height,
      gst_accel_image_format_name (out->format), out->width, out->height,
      gst_accel_image_format_name (mid),
      in->format != mid ? ", converted before" : "",
      out->format != mid ? ", converted after" : "");
  if (in->format != mid)
    {
      if ((ret = gst_accel_image_alloc (
               &a, &self->scratch[0], device, mid, in->width, in->height))
          || (ret = convert (self, stream, in, &a)))
        return ret;
      src = &a;
    }
  if (out->format != mid
      && (ret = gst_accel_image_alloc (
              &b, &self->scratch[1], device, mid, out->width, out->height)))
    return ret;
  if (out->format != mid)
    dst = &b;
  if ((ret = resize (stream, src, dst)) || dst == out)
    return ret;
  return convert (self, stream, dst, out);
}

/* the decoding of a 4:2:0 frame of @info; FALSE for a matrix without
 * coefficients here. Only 16-235 is limited range, as GStreamer's own
 * converter takes it */
static gboolean
yuv_decoding (const GstVideoInfo *info, int *matrix, gboolean *full_range)
{
  switch (info->colorimetry.matrix)
    {
    case GST_VIDEO_COLOR_MATRIX_BT601:
    case GST_VIDEO_COLOR_MATRIX_UNKNOWN:
      *matrix = ACCEL_YUV_BT601;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT709:
      *matrix = ACCEL_YUV_BT709;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      *matrix = ACCEL_YUV_BT2020;
      break;
    default:
      return FALSE;
    }
  *full_range = info->colorimetry.range != GST_VIDEO_COLOR_RANGE_16_235;
  return TRUE;
}

static gboolean
is_yuv_info (const GstVideoInfo *info)
{
  GstVideoFormat f = GST_VIDEO_INFO_FORMAT (info);

  return f == GST_VIDEO_FORMAT_NV12 || f == GST_VIDEO_FORMAT_I420;
}

static Chroma
chroma_of_info (const GstVideoInfo *info)
{
  return is_yuv_info (info)                                       ? CHROMA_420
         : GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_GRAY8 ? CHROMA_NONE
                                                                  : CHROMA_FULL;
}

/* the input's decoding, and an output 4:2:0 frame labelled as what it
 * holds: the input's planes copied, or the encoders' BT.601 at full range.
 * Anything else is refused by name rather than converted to the wrong
 * colours */
static gboolean
gst_accel_convert_set_info (GstVideoFilter *filter, GstCaps *incaps,
    GstVideoInfo *in_info, GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstAccelConvert *self = GST_ACCEL_CONVERT (filter);
  const char *refused;
  gboolean copies
      = is_yuv_info (in_info) && is_yuv_info (out_info)
        && GST_VIDEO_INFO_WIDTH (in_info) == GST_VIDEO_INFO_WIDTH (out_info)
        && GST_VIDEO_INFO_HEIGHT (in_info) == GST_VIDEO_INFO_HEIGHT (out_info);

  /* a mixed stream's frames are looked at one by one (before_transform) */
  if (GST_VIDEO_INFO_IS_INTERLACED (in_info)
      && GST_VIDEO_INFO_INTERLACE_MODE (in_info)
             != GST_VIDEO_INTERLACE_MODE_MIXED
      && (refused = refused_when_interlaced (GST_VIDEO_INFO_WIDTH (in_info),
              GST_VIDEO_INFO_HEIGHT (in_info), chroma_of_info (in_info),
              GST_VIDEO_INFO_WIDTH (out_info), GST_VIDEO_INFO_HEIGHT (out_info),
              chroma_of_info (out_info))))
    {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("%s; the input is interlaced (%s): put deinterlace before it",
              refused,
              gst_video_interlace_mode_to_string (
                  GST_VIDEO_INFO_INTERLACE_MODE (in_info))));
      return FALSE;
    }
  self->yuv_matrix = ACCEL_YUV_BT601;
  self->yuv_full_range = TRUE;
  if (is_yuv_info (in_info) && !copies
      && !yuv_decoding (in_info, &self->yuv_matrix, &self->yuv_full_range))
    {
      g_autofree gchar *c
          = gst_video_colorimetry_to_string (&in_info->colorimetry);

      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("accelconvert decodes BT.601, BT.709 and BT.2020 YUV; the input "
           "has colorimetry %s: put videoconvert or cudaconvertscale "
           "before it",
              c));
      return FALSE;
    }
  if (is_yuv_info (out_info))
    {
      GstVideoColorimetry want;
      const GstVideoColorimetry *got = &out_info->colorimetry;

      if (copies)
        want = in_info->colorimetry;
      else
        gst_video_colorimetry_from_string (&want, ENCODED_COLORIMETRY);
      if (got->matrix != want.matrix || got->range != want.range)
        {
          g_autofree gchar *g = gst_video_colorimetry_to_string (got);
          g_autofree gchar *w = gst_video_colorimetry_to_string (&want);

          GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
              ("accelconvert writes YUV of colorimetry %s here (BT.601 at "
               "full range, or the input's where its planes are copied); "
               "downstream asked for %s: put videoconvert or "
               "cudaconvertscale after it",
                  w, g));
          return FALSE;
        }
    }
  if (is_yuv_info (in_info))
    GST_DEBUG_OBJECT (self, "4:2:0 input decoded with matrix %d, %s range",
        self->yuv_matrix, self->yuv_full_range ? "full" : "limited");
  return GST_VIDEO_FILTER_CLASS (gst_accel_convert_parent_class)
      ->set_info (filter, incaps, in_info, outcaps, out_info);
}

static gboolean
gst_accel_convert_stop (GstBaseTransform *trans)
{
  GstAccelConvert *self = GST_ACCEL_CONVERT (trans);
  GstCudaContext *context
      = gst_accel_filter_get_context (GST_ACCEL_FILTER (trans));

  if (context)
    gst_accel_cuda_scope_enter (context);
  for (int i = 0; i < 2; i++)
    gst_accel_staging_clear (&self->scratch[i]);
  if (context)
    gst_accel_cuda_scope_leave ();
  return GST_BASE_TRANSFORM_CLASS (gst_accel_convert_parent_class)
      ->stop (trans);
}

static void
gst_accel_convert_class_init (GstAccelConvertClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAccelFilterClass *filter_class = GST_ACCEL_FILTER_CLASS (klass);

  /* the same names replace the filter base class's templates */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "accel colour conversion and scaling", "Filter/Converter/Video/Scaler",
      "Converts between RGBA, BGRA, GRAY8, NV12 and I420 (decodes BT.601, "
      "BT.709 and BT.2020 YUV at full or limited range, encodes BT.601 at "
      "full range) and scales (bilinear), on the GPU in CUDA memory",
      ACCEL_ELEMENT_AUTHOR);

  trans_class->passthrough_on_same_caps = TRUE;
  /* a frame passed through is checked as one converted is */
  trans_class->prepare_output_buffer = gst_accel_filter_prepare_transfer_buffer;
  trans_class->transform_caps = gst_accel_convert_transform_caps;
  trans_class->fixate_caps = gst_accel_convert_fixate_caps;
  trans_class->src_event = gst_accel_convert_src_event;
  trans_class->stop = gst_accel_convert_stop;
  trans_class->before_transform = gst_accel_convert_before_transform;
  GST_VIDEO_FILTER_CLASS (klass)->set_info = gst_accel_convert_set_info;
  filter_class->filter_images = gst_accel_convert_filter_images;
  filter_class->debug_category = gst_accel_convert_debug;
}

static void
gst_accel_convert_init (GstAccelConvert *self)
{
}
