/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel realtime plugin: what its stages share */
#define G_LOG_DOMAIN "accel-realtime"

#include "accelrealtime-private.h"

#include <cuda_runtime_api.h>
#include <string.h>

#include "image/image.h"

/* stages hand their AccelFormat to the kernels as it is */
G_STATIC_ASSERT ((int)ACCEL_FORMAT_RGBA8 == ACCEL_IMAGE_RGBA8);
G_STATIC_ASSERT ((int)ACCEL_FORMAT_BGRA8 == ACCEL_IMAGE_BGRA8);
G_STATIC_ASSERT ((int)ACCEL_FORMAT_GRAY8 == ACCEL_IMAGE_GRAY8);
G_STATIC_ASSERT ((int)ACCEL_FORMAT_NV12 == ACCEL_IMAGE_NV12);
G_STATIC_ASSERT ((int)ACCEL_FORMAT_I420 == ACCEL_IMAGE_I420);
G_STATIC_ASSERT ((int)ACCEL_FORMAT_RGBAF32 == ACCEL_IMAGE_RGBAF32);

/**
 * accel_realtime_image_init:
 * @image: (out caller-allocates): the image to fill
 * @buffer: a buffer of a fixed image type
 *
 * Describes @buffer, tightly packed as the engine allocates it.
 */
void
accel_realtime_image_init (AccelRealtimeImage *image, AccelBuffer *buffer)
{
  const AccelType *type = accel_buffer_peek_type (buffer);

  image->format = (int)type->format;
  image->data = accel_buffer_get_data (buffer);
  image->height = (int)type->dims[0];
  image->width = (int)type->dims[1];
  image->pitch
      = (gsize)image->width * accel_image_bytes_per_pixel (image->format);
}

static gchar *
format_list (guint formats)
{
  GString *s = g_string_new (NULL);
  guint n = 0, total = 0;

  for (guint f = ACCEL_FORMAT_RGBA8; f <= ACCEL_FORMAT_RGBAF32; f++)
    total += (formats & ACCEL_REALTIME_FORMAT_BIT (f)) != 0;
  for (guint f = ACCEL_FORMAT_RGBA8; f <= ACCEL_FORMAT_RGBAF32; f++)
    {
      if (!(formats & ACCEL_REALTIME_FORMAT_BIT (f)))
        continue;
      if (n > 0)
        g_string_append (s, n + 1 == total ? " or " : ", ");
      g_string_append (s, accel_format_to_string ((AccelFormat)f));
      n++;
    }
  return g_string_free (s, FALSE);
}

/**
 * accel_realtime_check_format:
 * @stage: the negotiating stage
 * @type: the type offered to its input
 * @formats: the formats it takes, a set of ACCEL_REALTIME_FORMAT_BIT()
 * @error: return location for a #GError, or %NULL
 *
 * Called from negotiate().
 *
 * Returns: %TRUE when @type is an image in one of @formats; otherwise
 * %FALSE with %ACCEL_ERROR_TYPE_MISMATCH naming the stage, its kind, the
 * formats it takes and the type it was offered.
 */
gboolean
accel_realtime_check_format (
    AccelStage *stage, const AccelType *type, guint formats, GError **error)
{
  g_autofree gchar *list = NULL;
  g_autofree gchar *offered = NULL;

  if (type->kind == ACCEL_KIND_IMAGE && type->format > ACCEL_FORMAT_ANY
      && type->format <= ACCEL_FORMAT_RGBAF32
      && (formats & ACCEL_REALTIME_FORMAT_BIT (type->format)))
    return TRUE;

  list = format_list (formats);
  offered = accel_type_to_string (type);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (%s) takes %s images, not %s", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), list, offered);
  return FALSE;
}

/**
 * accel_realtime_host_check:
 * @stage: the processing stage
 * @status: what a host reference returned
 * @error: return location for a #GError, or %NULL
 *
 * Called from process().
 *
 * Returns: %TRUE when @status is 0; otherwise %FALSE with the reason.
 */
gboolean
accel_realtime_host_check (AccelStage *stage, int status, GError **error)
{
  if (status == ACCEL_IMAGE_OK)
    return TRUE;
  if (status == ACCEL_IMAGE_NO_MEMORY)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
        "stage '%s' (%s): out of host memory", accel_stage_get_name (stage),
        accel_stage_get_kind_name (stage));
  else
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
        "stage '%s' (%s): the parameters do not suit this frame",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage));
  return FALSE;
}

/**
 * accel_realtime_class_add_image_ports:
 * @klass: a stage class, from its class_init
 * @in_description: one line about the input
 * @out_description: one line about the output
 *
 * Adds an input "in" and an output "out", images of any format and size in
 * device memory; negotiate() narrows them.
 */
void
accel_realtime_class_add_image_ports (AccelStageClass *klass,
    const char *in_description, const char *out_description)
{
  AccelType image;

  accel_type_init_image (&image, ACCEL_FORMAT_ANY, ACCEL_MEMORY_DEVICE,
      ACCEL_DIM_ANY, ACCEL_DIM_ANY);
  accel_stage_class_add_port (
      klass, ACCEL_PORT_INPUT, "in", &image, in_description);
  accel_stage_class_add_port (
      klass, ACCEL_PORT_OUTPUT, "out", &image, out_description);
}

/* page-locked host memory a GPU stage's snapshots reuse: a copy into it
 * runs at the link's speed, where a fresh malloc'd block costs page faults
 * and a bounce through the driver's staging (measured on an H100: 28 ms
 * for a 40 MB state). The engine drops a stage's previous snapshot before
 * it takes the next, so one block is enough; while it is held, the copy
 * goes to ordinary memory. */
typedef struct
{
  gpointer data;
  gsize size;
  gint held; /* atomic: a GBytes points into it */
} PinnedSnapshot;

#define PINNED_SNAPSHOT_KEY "accel-realtime-pinned-snapshot"

/* the block lives while the stage or a snapshot in it does */
static void
pinned_snapshot_clear (gpointer data)
{
  PinnedSnapshot *pinned = data;

  if (pinned->data)
    {
      accel_device_global_call_begin ();
      cudaFreeHost (pinned->data);
      accel_device_global_call_end ();
    }
}

static void
pinned_snapshot_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, pinned_snapshot_clear);
}

static void
pinned_snapshot_release (gpointer data)
{
  PinnedSnapshot *pinned = data;

  g_atomic_int_set (&pinned->held, 0);
  pinned_snapshot_unref (pinned);
}

/* @stage's pinned block of at least @size bytes, marked held, with a
 * reference for the snapshot; NULL when it is held already or cannot be
 * made */
static PinnedSnapshot *
pinned_snapshot_take (AccelStage *stage, gsize size)
{
  PinnedSnapshot *pinned
      = g_object_get_data (G_OBJECT (stage), PINNED_SNAPSHOT_KEY);

  if (!pinned)
    {
      pinned = g_atomic_rc_box_new0 (PinnedSnapshot);
      g_object_set_data_full (
          G_OBJECT (stage), PINNED_SNAPSHOT_KEY, pinned, pinned_snapshot_unref);
    }
  if (!g_atomic_int_compare_and_exchange (&pinned->held, 0, 1))
    return NULL;
  if (pinned->size < size)
    {
      cudaError_t status;

      accel_device_global_call_begin ();
      g_clear_pointer (&pinned->data, cudaFreeHost);
      pinned->size = 0;
      status = cudaMallocHost (&pinned->data, size);
      accel_device_global_call_end ();
      if (status != cudaSuccess)
        {
          pinned->data = NULL;
          g_atomic_int_set (&pinned->held, 0);
          return NULL;
        }
      pinned->size = size;
    }
  return g_atomic_rc_box_acquire (pinned);
}

/**
 * accel_realtime_snapshot_block:
 * @stage: a stateful stage, from its snapshot()
 * @block: its state: device memory, or host memory on the host backend
 * @size: the bytes of it to keep, from its start
 *
 * Copies the state to the host; on a GPU the copy runs on the stage's
 * stream, after the work enqueued on it, into page-locked memory the stage
 * keeps for its snapshots, and is waited for.
 *
 * Returns: (transfer full) (nullable): the copy, %NULL when it failed.
 */
GBytes *
accel_realtime_snapshot_block (
    AccelStage *stage, AccelBuffer *block, gsize size)
{
  AccelStream *stream = accel_stage_get_stream (stage);
  PinnedSnapshot *pinned;
  gpointer copy;

  if (accel_stage_is_host (stage))
    return g_bytes_new (accel_buffer_get_data (block), size);
  pinned = pinned_snapshot_take (stage, size);
  copy = pinned ? pinned->data : g_malloc (size);
  if (!accel_cuda_check (
          cudaMemcpyAsync (copy, accel_buffer_get_data (block), size,
              cudaMemcpyDeviceToHost, accel_stream_get_handle (stream)),
          NULL)
      || !accel_stream_synchronize (stream, NULL))
    {
      if (pinned)
        pinned_snapshot_release (pinned);
      else
        g_free (copy);
      return NULL;
    }
  if (pinned)
    return g_bytes_new_with_free_func (
        copy, size, pinned_snapshot_release, pinned);
  return g_bytes_new_take (copy, size);
}

/**
 * accel_realtime_restore_block:
 * @stage: a stateful stage, from its restore()
 * @block: its state
 * @size: the bytes a snapshot keeps
 * @state: a snapshot
 * @what: what differs when the sizes do ("grid size", "capacity")
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when @state was of @size bytes and is copied into @block
 *   (synchronously: @state is the caller's memory).
 */
gboolean
accel_realtime_restore_block (AccelStage *stage, AccelBuffer *block, gsize size,
    GBytes *state, const char *what, GError **error)
{
  gsize got;
  gconstpointer data = g_bytes_get_data (state, &got);

  if (got != size)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "stage '%s': the saved state is of another %s",
          accel_stage_get_name (stage), what);
      return FALSE;
    }
  if (accel_stage_is_host (stage))
    {
      memcpy (accel_buffer_get_data (block), data, size);
      return TRUE;
    }
  return accel_cuda_check (
             cudaMemcpyAsync (accel_buffer_get_data (block), data, size,
                 cudaMemcpyHostToDevice,
                 accel_stream_get_handle (accel_stage_get_stream (stage))),
             error)
         && accel_stream_synchronize (accel_stage_get_stream (stage), error);
}
