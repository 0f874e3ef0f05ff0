/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: a description's own sinks stood in for by fakesinks,
 * so io.gst-source can preroll it to learn its type without writing a
 * file or opening a window before the graph runs */
#define G_LOG_DOMAIN "accel-gst"

#include "accelgst-private.h"

/* a sink to be stood in for, and what feeds each of its sink pads */
typedef struct
{
  GstBin *parent;
  GstElement *sink;
  GPtrArray *peers; /* GstPad */
  GPtrArray *caps;  /* GstCaps: what each of its pads took, for the stand-in */
} Replaced;

static void
replaced_free (Replaced *r)
{
  g_ptr_array_unref (r->peers);
  g_ptr_array_unref (r->caps);
  gst_object_unref (r->sink);
  gst_object_unref (r->parent);
  g_free (r);
}

/* what feeds @sink's pads; NULL where a pad is not linked yet (a link
 * made once a dynamic pad appears): such a sink cannot be stood in for */
static Replaced *
replaced_new (GstBin *parent, GstElement *sink)
{
  Replaced *r = g_new0 (Replaced, 1);
  GstIterator *it = gst_element_iterate_sink_pads (sink);
  GValue item = G_VALUE_INIT;
  gboolean linked = TRUE;

  r->parent = gst_object_ref (parent);
  r->sink = gst_object_ref (sink);
  r->peers = g_ptr_array_new_with_free_func (gst_object_unref);
  r->caps = g_ptr_array_new_with_free_func ((GDestroyNotify)gst_caps_unref);
  while (linked && gst_iterator_next (it, &item) == GST_ITERATOR_OK)
    {
      GstPad *pad = g_value_get_object (&item);
      GstPad *peer = gst_pad_get_peer (pad);

      if (peer)
        {
          g_ptr_array_add (r->peers, peer);
          g_ptr_array_add (r->caps, gst_pad_query_caps (pad, NULL));
        }
      linked = peer != NULL;
      g_value_reset (&item);
    }
  g_value_unset (&item);
  gst_iterator_free (it);
  if (linked && r->peers->len > 0)
    return r;
  replaced_free (r);
  return NULL;
}

/* collects the sinks of @bin and of the plain bins in it (a description's
 * "( ... )"), but for @keep; FALSE if one cannot be stood in for */
static gboolean
collect_sinks (GstBin *bin, GstElement *keep, GPtrArray *found)
{
  GstIterator *it = gst_bin_iterate_elements (bin);
  GValue item = G_VALUE_INIT;
  gboolean ok = TRUE;

  while (ok && gst_iterator_next (it, &item) == GST_ITERATOR_OK)
    {
      GstElement *child = g_value_get_object (&item);
      GType type = G_OBJECT_TYPE (child);

      if (type == GST_TYPE_BIN || type == GST_TYPE_PIPELINE)
        ok = collect_sinks (GST_BIN (child), keep, found);
      else if (child != keep
               && GST_OBJECT_FLAG_IS_SET (child, GST_ELEMENT_FLAG_SINK))
        {
          Replaced *r = replaced_new (bin, child);
          if (r)
            g_ptr_array_add (found, r);
          ok = r != NULL;
        }
      g_value_reset (&item);
    }
  g_value_unset (&item);
  gst_iterator_free (it);
  return ok;
}

/* a fakesink behind a capsfilter of what the sink's pad took, so the
 * branch negotiates as it will with the sink itself */
static gboolean
stand_in (GstBin *parent, GstPad *peer, GstCaps *caps)
{
  GstElement *filter = gst_element_factory_make ("capsfilter", NULL);
  GstElement *fake = gst_element_factory_make ("fakesink", NULL);
  GstPad *pad;
  gboolean linked;

  if (!filter || !fake)
    {
      g_clear_pointer (&filter, gst_object_unref);
      g_clear_pointer (&fake, gst_object_unref);
      return FALSE;
    }
  if (!gst_caps_is_any (caps))
    g_object_set (filter, "caps", caps, NULL);
  gst_bin_add_many (parent, filter, fake, NULL);
  pad = gst_element_get_static_pad (filter, "sink");
  linked = gst_pad_link (peer, pad) == GST_PAD_LINK_OK
           && gst_element_link (filter, fake);
  gst_object_unref (pad);
  return linked;
}

/**
 * accel_gst_stand_in_sinks:
 * @pipeline: a pipeline from accel_gst_pipeline_new(), in the NULL state
 * @keep: the stage's own appsink
 *
 * Replaces every sink of @pipeline but @keep (a filesink on a tee's
 * branch, a display) with a fakesink that takes the same caps, so that
 * prerolling it writes nothing. A pipeline with a sink not linked yet (fed
 * from a pad that appears once it runs) is left as it is.
 *
 * Returns: the number of sinks replaced, or -1 if the pipeline was left as
 * it is although it has sinks of its own
 */
gint
accel_gst_stand_in_sinks (GstElement *pipeline, GstElement *keep)
{
  g_autoptr (GPtrArray) found
      = g_ptr_array_new_with_free_func ((GDestroyNotify)replaced_free);
  gint n = 0;

  if (!collect_sinks (GST_BIN (pipeline), keep, found))
    return -1;
  for (guint i = 0; i < found->len; i++)
    {
      Replaced *r = found->pdata[i];

      /* removing the sink unlinks its pads */
      gst_bin_remove (r->parent, r->sink);
      for (guint p = 0; p < r->peers->len; p++)
        if (!stand_in (r->parent, r->peers->pdata[p], r->caps->pdata[p]))
          return -1;
      n++;
    }
  return n;
}
