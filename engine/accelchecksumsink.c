/* accel: core.checksum-sink, a SHA-256 of every buffer that arrives */
#define G_LOG_DOMAIN "accel-checksum-sink"

#include "accel-private.h"

struct _AccelChecksumSink
{
  AccelStage parent;

  AccelBuffer *staging; /* pinned copy of a device buffer */
  GMutex lock;
  GArray *sequences;    /* guint64 */
  GPtrArray *checksums; /* gchar* */
};

G_DEFINE_FINAL_TYPE (AccelChecksumSink, accel_checksum_sink, ACCEL_TYPE_STAGE)

static gboolean
accel_checksum_sink_start (AccelStage *stage, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);
  const AccelType *in = accel_stage_get_input_type (stage, 0);
  AccelType bytes;

  if (accel_stage_is_host (stage))
    return TRUE;
  accel_type_init_bytes (
      &bytes, ACCEL_MEMORY_PINNED, (gint64)accel_type_get_size (in));
  self->staging
      = accel_buffer_new (accel_stage_get_device (stage), &bytes, error);
  return self->staging != NULL;
}

static void
accel_checksum_sink_stop (AccelStage *stage)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);

  g_clear_pointer (&self->staging, accel_buffer_unref);
}

/* the GPU part: copy the data out; render() runs once the copy is done */
static AccelFlow
accel_checksum_sink_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);
  AccelBuffer *in = frame->inputs[0];

  if (!self->staging)
    return ACCEL_FLOW_OK;
  if (!accel_cuda_check (
          cudaMemcpyAsync (accel_buffer_get_data (self->staging),
              accel_buffer_get_data (in), accel_buffer_get_size (in),
              cudaMemcpyDefault, accel_stream_get_cuda (frame->stream)),
          error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static AccelFlow
accel_checksum_sink_render (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (stage);
  AccelBuffer *in = frame->inputs[0];
  AccelBuffer *data = self->staging ? self->staging : in;
  gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
      accel_buffer_get_data (data), accel_buffer_get_size (in));

  g_mutex_lock (&self->lock);
  g_array_append_val (self->sequences, frame->sequence);
  g_ptr_array_add (self->checksums, sum);
  g_mutex_unlock (&self->lock);
  return ACCEL_FLOW_OK;
}

/**
 * accel_checksum_sink_get_n_received:
 * @sink: a checksum sink
 *
 * Returns: buffers checksummed so far. MT safe.
 */
guint64
accel_checksum_sink_get_n_received (AccelChecksumSink *sink)
{
  guint64 n;

  g_return_val_if_fail (ACCEL_IS_CHECKSUM_SINK (sink), 0);
  g_mutex_lock (&sink->lock);
  n = sink->sequences->len;
  g_mutex_unlock (&sink->lock);
  return n;
}

/**
 * accel_checksum_sink_get_sequences:
 * @sink: a checksum sink
 *
 * Returns: (transfer full) (element-type guint64): the sequence numbers, in
 * arrival order. MT safe.
 */
GArray *
accel_checksum_sink_get_sequences (AccelChecksumSink *sink)
{
  GArray *copy;

  g_return_val_if_fail (ACCEL_IS_CHECKSUM_SINK (sink), NULL);
  g_mutex_lock (&sink->lock);
  copy = g_array_copy (sink->sequences);
  g_mutex_unlock (&sink->lock);
  return copy;
}

/**
 * accel_checksum_sink_dup_checksums:
 * @sink: a checksum sink
 *
 * Returns: (transfer full): the SHA-256 of each buffer, in arrival order.
 * MT safe.
 */
GStrv
accel_checksum_sink_dup_checksums (AccelChecksumSink *sink)
{
  GStrv sums;

  g_return_val_if_fail (ACCEL_IS_CHECKSUM_SINK (sink), NULL);
  g_mutex_lock (&sink->lock);
  sums = g_new0 (gchar *, sink->checksums->len + 1);
  for (guint i = 0; i < sink->checksums->len; i++)
    sums[i] = g_strdup (sink->checksums->pdata[i]);
  g_mutex_unlock (&sink->lock);
  return sums;
}

/**
 * accel_checksum_sink_dup_digest:
 * @sink: a checksum sink
 *
 * Returns: (transfer full): one SHA-256 over every buffer's sequence number
 * and checksum, in arrival order: equal digests mean equal runs. MT safe.
 */
gchar *
accel_checksum_sink_dup_digest (AccelChecksumSink *sink)
{
  g_autoptr (GChecksum) all = g_checksum_new (G_CHECKSUM_SHA256);

  g_return_val_if_fail (ACCEL_IS_CHECKSUM_SINK (sink), NULL);
  g_mutex_lock (&sink->lock);
  for (guint i = 0; i < sink->checksums->len; i++)
    {
      g_autofree gchar *line = g_strdup_printf ("%" G_GUINT64_FORMAT " %s\n",
          g_array_index (sink->sequences, guint64, i),
          (gchar *)sink->checksums->pdata[i]);
      g_checksum_update (all, (const guchar *)line, -1);
    }
  g_mutex_unlock (&sink->lock);
  return g_strdup (g_checksum_get_string (all));
}

static void
accel_checksum_sink_finalize (GObject *object)
{
  AccelChecksumSink *self = ACCEL_CHECKSUM_SINK (object);

  g_array_unref (self->sequences);
  g_ptr_array_unref (self->checksums);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (accel_checksum_sink_parent_class)->finalize (object);
}

static void
accel_checksum_sink_class_init (AccelChecksumSinkClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType in;

  G_OBJECT_CLASS (klass)->finalize = accel_checksum_sink_finalize;
  stage_class->start = accel_checksum_sink_start;
  stage_class->stop = accel_checksum_sink_stop;
  stage_class->process = accel_checksum_sink_process;
  stage_class->render = accel_checksum_sink_render;

  accel_stage_class_set_metadata (stage_class, "core.checksum-sink",
      "Record a SHA-256 of every buffer, for tests and run comparisons");
  accel_type_init_any (&in);
  accel_stage_class_add_port (
      stage_class, ACCEL_PORT_INPUT, "in", &in, "any data");
}

static void
accel_checksum_sink_init (AccelChecksumSink *self)
{
  g_mutex_init (&self->lock);
  self->sequences = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->checksums = g_ptr_array_new_with_free_func (g_free);
}
