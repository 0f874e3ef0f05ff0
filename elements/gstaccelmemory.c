/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: which memory a filter's frames travel in on a GPU. A filter reads
 * and writes either memory, so either goes to either; a frame comes in
 * system memory only once per chain of accel elements (the first uploads
 * it), and otherwise stays in the memory it came in. */
#include "gstaccelmemory.h"

#include "gstaccelcudacontext.h"
#include "gstacceltransfer.h"

/* whether downstream names CUDA memory of @cuda's format and size (not
 * merely takes anything, as fakesink and appsink do) */
static gboolean
downstream_names_cuda (GstBaseTransform *trans, GstCaps *cuda)
{
  GstCaps *peer
      = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), NULL);
  gboolean named
      = !gst_caps_is_any (peer) && gst_caps_can_intersect (peer, cuda);

  gst_caps_unref (peer);
  return named;
}

/* whether the element downstream of @trans is GStreamer's cudadownload,
 * whose only work is the copy out of CUDA memory: given system memory it
 * passes it through */
static gboolean
downstream_is_cudadownload (GstBaseTransform *trans)
{
  GstPad *peer = gst_pad_get_peer (GST_BASE_TRANSFORM_SRC_PAD (trans));
  GstElement *element = peer ? gst_pad_get_parent_element (peer) : NULL;
  GstElementFactory *factory
      = element ? gst_element_get_factory (element) : NULL;
  gboolean is
      = factory
        && g_strcmp0 (gst_plugin_feature_get_name (factory), "cudadownload")
               == 0;

  gst_clear_object (&element);
  gst_clear_object (&peer);
  return is;
}

/**
 * gst_accel_memory_transform_caps:
 * @trans: a filter on a GPU
 * @direction: the direction of the pad @caps are on
 * @caps: caps, not ANY
 *
 * The other pad's caps: @caps in CUDA memory, then in system memory. A
 * frame in system memory goes out in CUDA memory alone where downstream
 * names it: were system memory offered too, GStreamer would keep it there
 * (cudaupload passes it through), and every accel element downstream
 * would copy the frame to the GPU and back again; so the first one uploads
 * it, once. Not into cudadownload, which only copies CUDA memory out
 * (gst_accel_memory_keep ()).
 *
 * Returns: (transfer full): the caps, not filtered by the other pad's
 *   template.
 */
GstCaps *
gst_accel_memory_transform_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
  GstCaps *cuda = gst_accel_caps_set_memory (caps, TRUE);
  GstCaps *templ;
  gboolean upload;

  if (direction != GST_PAD_SINK || !gst_caps_is_fixed (caps)
      || gst_accel_cuda_caps_are_cuda (caps))
    return gst_caps_merge (cuda, gst_accel_caps_set_memory (caps, FALSE));
  templ = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SRC_PAD (trans));
  upload = gst_caps_can_intersect (cuda, templ)
           && downstream_names_cuda (trans, cuda)
           && !downstream_is_cudadownload (trans);
  gst_caps_unref (templ);
  if (upload)
    return cuda;
  return gst_caps_merge (cuda, gst_accel_caps_set_memory (caps, FALSE));
}

/* the structures of @caps in CUDA memory (@cuda) or in system memory */
static GstCaps *
caps_in_memory (GstCaps *caps, gboolean cuda)
{
  GstCaps *res = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    {
      GstCapsFeatures *f = gst_caps_get_features (caps, i);
      gboolean is_cuda = f && !gst_caps_features_is_any (f)
                         && gst_caps_features_contains (
                             f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);

      if (is_cuda == cuda)
        gst_caps_append_structure_full (res,
            gst_structure_copy (gst_caps_get_structure (caps, i)),
            gst_caps_features_copy (f));
    }
  return res;
}

/**
 * gst_accel_memory_keep:
 * @trans: a filter on a GPU
 * @direction: the direction of the pad @caps are on
 * @caps: the fixed caps of one pad
 * @othercaps: (transfer full): what the other pad could take, before
 *   fixation
 *
 * Where either memory would do, a frame stays in the memory it came in:
 * GStreamer lists the peer's preference first, and a sink that takes
 * anything would otherwise decide. One exception: out of the source pad
 * into GStreamer's cudadownload, where its own downstream takes system
 * memory, the frame leaves in system memory. The one copy out of the GPU is
 * then made here, and cudadownload passes the frame through: into
 * page-locked memory where nobody downstream offers a pool, by DMA alone,
 * where cudadownload would copy into pageable memory of its own pool (158
 * against 914 us at 1080p on an H200, bench-transfer).
 *
 * Returns: (transfer full): the structures of @othercaps in the chosen
 *   memory, or @othercaps where it has none.
 */
GstCaps *
gst_accel_memory_keep (GstBaseTransform *trans, GstPadDirection direction,
    GstCaps *caps, GstCaps *othercaps)
{
  gboolean cuda
      = gst_accel_cuda_caps_are_cuda (caps)
        && !(direction == GST_PAD_SINK && downstream_is_cudadownload (trans));
  GstCaps *same = caps_in_memory (othercaps, cuda);

  if (gst_caps_is_empty (same))
    {
      gst_caps_unref (same);
      return othercaps;
    }
  gst_caps_unref (othercaps);
  return same;
}
