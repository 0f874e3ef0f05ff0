/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: what its stages share */
#define G_LOG_DOMAIN "accel-io"

#include "accelio-private.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <unistd.h>

/* output types from properties */

/**
 * accel_io_type_props_install:
 * @klass: a stage class
 * @first_prop_id: the id of the first of %ACCEL_IO_TYPE_N_PROPS properties
 *
 * Installs "shape", "dtype", "format", "width" and "height". Called from
 * class_init.
 */
void
accel_io_type_props_install (GObjectClass *klass, guint first_prop_id)
{
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  g_object_class_install_property (klass,
      first_prop_id + ACCEL_IO_TYPE_PROP_SHAPE,
      g_param_spec_string ("shape", "Shape",
          "Tensor dimensions, outermost first, such as 1024 or 480x640; when "
          "set the data is a tensor of dtype, else an image of format",
          "", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (klass,
      first_prop_id + ACCEL_IO_TYPE_PROP_DTYPE,
      g_param_spec_string ("dtype", "Dtype",
          "Tensor element type (u8, i8, u16, i16, u32, i32, u64, i64, f16, "
          "bf16, f32, f64, c64, c128)",
          "u8", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (klass,
      first_prop_id + ACCEL_IO_TYPE_PROP_FORMAT,
      g_param_spec_string ("format", "Format",
          "Image format (RGBA8, BGRA8, GRAY8, NV12, I420, RGBAF32), used "
          "when shape is empty",
          "RGBA8", flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (klass,
      first_prop_id + ACCEL_IO_TYPE_PROP_WIDTH,
      g_param_spec_int ("width", "Width", "Image width in pixels", 1,
          G_MAXINT16, 320, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (klass,
      first_prop_id + ACCEL_IO_TYPE_PROP_HEIGHT,
      g_param_spec_int ("height", "Height", "Image height in pixels", 1,
          G_MAXINT16, 240, flags | ACCEL_PARAM_FIXED));
}

/* FALSE when @prop_id is not one of the type properties */
gboolean
accel_io_type_props_set (
    AccelIoTypeProps *props, guint prop_id, const GValue *value)
{
  if (prop_id < ACCEL_IO_TYPE_N_PROPS)
    props->given |= 1u << prop_id;
  switch (prop_id)
    {
    case ACCEL_IO_TYPE_PROP_SHAPE:
      g_free (props->shape);
      props->shape = g_value_dup_string (value);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_DTYPE:
      g_free (props->dtype);
      props->dtype = g_value_dup_string (value);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_FORMAT:
      g_free (props->format);
      props->format = g_value_dup_string (value);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_WIDTH:
      props->width = g_value_get_int (value);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_HEIGHT:
      props->height = g_value_get_int (value);
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
accel_io_type_props_get (
    const AccelIoTypeProps *props, guint prop_id, GValue *value)
{
  switch (prop_id)
    {
    case ACCEL_IO_TYPE_PROP_SHAPE:
      g_value_set_string (value, props->shape);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_DTYPE:
      g_value_set_string (value, props->dtype);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_FORMAT:
      g_value_set_string (value, props->format);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_WIDTH:
      g_value_set_int (value, props->width);
      return TRUE;
    case ACCEL_IO_TYPE_PROP_HEIGHT:
      g_value_set_int (value, props->height);
      return TRUE;
    default:
      return FALSE;
    }
}

void
accel_io_type_props_clear (AccelIoTypeProps *props)
{
  g_clear_pointer (&props->shape, g_free);
  g_clear_pointer (&props->dtype, g_free);
  g_clear_pointer (&props->format, g_free);
}

/**
 * accel_io_type_props_constructed:
 * @props: a stage's type properties
 *
 * Forgets that the construct properties' defaults were set: called from
 * the stage's constructed(), so that what is set from then on counts as
 * given (see accel_io_type_props_to_type ()).
 */
void
accel_io_type_props_constructed (AccelIoTypeProps *props)
{
  props->given = 0;
}

/**
 * accel_io_type_props_to_type:
 * @props: the properties
 * @stage: the stage they belong to, for error messages
 * @type: (out caller-allocates): the type, in device memory
 * @error: return location for a #GError, or %NULL
 *
 * A tensor when @props has a shape, else an image.
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE for a bad shape, dtype
 * or format. MT safe.
 */
gboolean
accel_io_type_props_to_type (const AccelIoTypeProps *props, AccelStage *stage,
    AccelType *type, GError **error)
{
  const guint image = (1u << ACCEL_IO_TYPE_PROP_FORMAT)
                      | (1u << ACCEL_IO_TYPE_PROP_WIDTH)
                      | (1u << ACCEL_IO_TYPE_PROP_HEIGHT);
  gboolean tensor = props->shape && *props->shape;

  /* one of the two descriptions, not parts of both: the other's were
   * ignored */
  if ((tensor && (props->given & image))
      || (!tensor && (props->given & (1u << ACCEL_IO_TYPE_PROP_DTYPE))))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): %s; give shape and dtype for a tensor, or "
          "format, width and height for an image",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          tensor ? "shape makes it a tensor, and format, width and height "
                   "describe an image"
                 : "dtype is a tensor's element type, and without a shape "
                   "it is an image");
      return FALSE;
    }
  if (tensor)
    {
      AccelDType dtype
          = accel_dtype_from_string (props->dtype ? props->dtype : "");
      if (dtype == ACCEL_DTYPE_ANY)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s' (%s): dtype '%s' is not an element type such as "
              "u8 or f32",
              accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
              props->dtype ? props->dtype : "");
          return FALSE;
        }
      accel_type_init_tensor (type, dtype, ACCEL_MEMORY_DEVICE, 0, NULL);
      return accel_type_parse_dims (type, props->shape, error);
    }
  else
    {
      AccelFormat format
          = accel_format_from_string (props->format ? props->format : "");
      if (format == ACCEL_FORMAT_ANY)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s' (%s): format '%s' is not one of RGBA8, BGRA8, "
              "GRAY8, NV12, I420, RGBAF32 (or set shape for a tensor)",
              accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
              props->format ? props->format : "");
          return FALSE;
        }
      accel_type_init_image (
          type, format, ACCEL_MEMORY_DEVICE, props->width, props->height);
      return TRUE;
    }
}

/**
 * accel_io_types_match:
 * @a: a fixed type
 * @b: another fixed type
 *
 * Returns: %TRUE when @a and @b describe the same data, wherever it lives.
 */
gboolean
accel_io_types_match (const AccelType *a, const AccelType *b)
{
  AccelType x = *a, y = *b;

  x.memory = y.memory = ACCEL_MEMORY_DEVICE;
  return accel_type_equal (&x, &y);
}

/**
 * accel_io_parse_framerate:
 * @text: "N/D" or "N" frames per second; "0/1" for none
 * @num: (out): numerator
 * @den: (out): denominator
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE for text that is no
 * frame rate.
 */
gboolean
accel_io_parse_framerate (
    const char *text, gint *num, gint *den, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text ? text : "", "/", 2);
  guint64 n, d = 1;

  if (!parts[0]
      || !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXINT, &n, NULL)
      || (parts[1]
          && !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXINT, &d, NULL)))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "framerate '%s' is not a frame rate such as '30/1', '30000/1001' "
          "or '0/1' (none)",
          text ? text : "");
      return FALSE;
    }
  *num = (gint)n;
  *den = (gint)d;
  return TRUE;
}

/* the numbering starts again at the next frame's sequence */
void
accel_io_numbers_reset (AccelIoNumbers *numbers)
{
  numbers->started = FALSE;
}

/* the number of the frame the engine gave @sequence, not taken yet */
guint64
accel_io_numbers_peek (AccelIoNumbers *numbers, guint64 sequence)
{
  if (!numbers->started)
    {
      numbers->next = sequence;
      numbers->started = TRUE;
    }
  return numbers->next;
}

/* the same, taken: the next frame gets the number after it */
guint64
accel_io_numbers_take (AccelIoNumbers *numbers, guint64 sequence)
{
  guint64 n = accel_io_numbers_peek (numbers, sequence);

  numbers->next++;
  return n;
}

/* a frame's duration in ns at @num/@den frames per second, or -1 */
gint64
accel_io_frame_duration (gint num, gint den)
{
  if (num <= 0 || den <= 0)
    return -1;
  return (gint64)((guint64)den * G_GUINT64_CONSTANT (1000000000) / (guint)num);
}

/* frame @sequence's start in ns at @num/@den frames per second, exact (not
 * @sequence durations rounded), or -1 with none or where a gint64 cannot
 * hold it (frame 9.2e6 at 1/1000: a stream of ten millennia) */
gint64
accel_io_frame_pts (guint64 sequence, gint num, gint den)
{
  unsigned __int128 ns;

  if (num <= 0 || den <= 0)
    return -1;
  ns = (unsigned __int128)sequence * (guint)den
       * G_GUINT64_CONSTANT (1000000000) / (guint)num;
  return ns > G_MAXINT64 ? -1 : (gint64)ns;
}

static gchar *
format_list (const AccelFormat *formats, guint n_formats)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n_formats; i++)
    {
      if (i > 0)
        g_string_append (s, i + 1 == n_formats ? " or " : ", ");
      g_string_append (s, accel_format_to_string (formats[i]));
    }
  return g_string_free (s, FALSE);
}

/**
 * accel_io_check_format:
 * @stage: the negotiating stage
 * @type: the type offered to its input
 * @formats: (array length=n_formats): the image formats it takes
 * @n_formats: how many
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE with %ACCEL_ERROR_TYPE_MISMATCH naming the stage and the
 * formats it takes, unless @type is an image of one of @formats.
 */
gboolean
accel_io_check_format (AccelStage *stage, const AccelType *type,
    const AccelFormat *formats, guint n_formats, GError **error)
{
  g_autofree gchar *list = NULL, *have = NULL;

  for (guint i = 0; type->kind == ACCEL_KIND_IMAGE && i < n_formats; i++)
    if (type->format == formats[i])
      return TRUE;
  list = format_list (formats, n_formats);
  have = accel_type_to_string (type);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (%s) takes %s images, not %s", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), list, have);
  return FALSE;
}

/**
 * accel_io_copy_async:
 * @stream: a stream with a CUDA handle
 * @dst: where to
 * @src: where from
 * @size: bytes
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues a copy between any two kinds of memory on @stream.
 *
 * Returns: %FALSE with the CUDA error.
 */
gboolean
accel_io_copy_async (AccelStream *stream, gpointer dst, gconstpointer src,
    gsize size, GError **error)
{
  return accel_cuda_check (cudaMemcpyAsync (dst, src, size, cudaMemcpyDefault,
                               (cudaStream_t)accel_stream_get_handle (stream)),
      error);
}

/* writes all of @data, through interruptions */
gboolean
accel_io_write_all (int fd, gconstpointer data, gsize size, GError **error)
{
  const guint8 *p = data;

  while (size > 0)
    {
      gssize n = write (fd, p, size);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (
              error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "%s", g_strerror (saved));
          return FALSE;
        }
      p += n;
      size -= (gsize)n;
    }
  return TRUE;
}

/* reads up to @size bytes, fewer only at the end of the file; -1 on error */
gssize
accel_io_read_all (int fd, gpointer data, gsize size, GError **error)
{
  guint8 *p = data;
  gsize done = 0;

  while (done < size)
    {
      gssize n = read (fd, p + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (
              error, ACCEL_ERROR, ACCEL_ERROR_FAILED, "%s", g_strerror (saved));
          return -1;
        }
      if (n == 0)
        break;
      done += (gsize)n;
    }
  return (gssize)done;
}

/* the ring */

typedef struct
{
  AccelBuffer *staging; /* owned, pinned; NULL without staging */
  AccelBuffer *held;    /* a buffer the recorded work reads */
  gpointer data;        /* anything else it reads, freed with notify */
  GDestroyNotify notify;
  cudaEvent_t event;
  gboolean busy; /* the event is recorded and may be pending */
} RingSlot;

struct _AccelIoRing
{
  AccelDevice *device;
  guint n_slots;
  guint next;
  RingSlot slots[];
};

/* the recorded work is done: let go of what it read */
static void
slot_release (RingSlot *slot)
{
  GDestroyNotify notify = slot->notify;
  gpointer data = slot->data;

  g_clear_pointer (&slot->held, accel_buffer_unref);
  slot->data = NULL;
  slot->notify = NULL;
  if (notify)
    notify (data);
}

/**
 * accel_io_ring_new:
 * @device: a CUDA device
 * @n_slots: slots in the ring: how far the host may run ahead of the GPU
 * @staging_size: bytes of pinned staging memory per slot, or 0 for none
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): a new ring, or %NULL. Called from the stage's
 * thread.
 */
AccelIoRing *
accel_io_ring_new (
    AccelDevice *device, guint n_slots, gsize staging_size, GError **error)
{
  AccelIoRing *ring;
  AccelType bytes;

  g_return_val_if_fail (!accel_device_is_host (device), NULL);
  g_return_val_if_fail (n_slots > 0, NULL);

  ring = g_malloc0 (sizeof (AccelIoRing) + n_slots * sizeof (RingSlot));
  ring->device = g_object_ref (device);
  ring->n_slots = n_slots;
  accel_type_init_bytes (&bytes, ACCEL_MEMORY_PINNED, (gint64)staging_size);
  if (!accel_device_make_current (device, error))
    goto failed;
  for (guint i = 0; i < n_slots; i++)
    {
      RingSlot *slot = &ring->slots[i];
      if (!accel_cuda_check (
              cudaEventCreateWithFlags (&slot->event, cudaEventDisableTiming),
              error))
        goto failed;
      if (staging_size > 0
          && !(slot->staging = accel_buffer_new (device, &bytes, error)))
        goto failed;
    }
  return ring;

  /* ERRORS */
failed:
  {
    accel_io_ring_free (ring);
    return NULL;
  }
}

/**
 * accel_io_ring_acquire:
 * @ring: a ring
 * @staging: (out) (optional): the slot's staging memory, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Takes the next slot: waits, on the host, for the GPU work last recorded
 * in it (already done unless the GPU is a whole ring behind) and drops the
 * buffer it held. Call accel_io_ring_commit() after enqueuing the slot's
 * work.
 *
 * Returns: %FALSE with a CUDA error. Called from the stage's thread.
 */
gboolean
accel_io_ring_acquire (AccelIoRing *ring, gpointer *staging, GError **error)
{
  RingSlot *slot = &ring->slots[ring->next];

  if (slot->busy)
    {
      if (!accel_cuda_check (cudaEventSynchronize (slot->event), error))
        return FALSE;
      slot->busy = FALSE;
    }
  slot_release (slot);
  if (staging)
    *staging = slot->staging ? accel_buffer_get_data (slot->staging) : NULL;
  return TRUE;
}

/**
 * accel_io_ring_commit:
 * @ring: a ring whose current slot was acquired
 * @stream: the stream the slot's work went on
 * @hold: (nullable): a buffer that work reads, kept until it is done
 * @error: return location for a #GError, or %NULL
 *
 * Records the slot's event after the work on @stream and moves on.
 *
 * Returns: %FALSE with a CUDA error. Called from the stage's thread.
 */
gboolean
accel_io_ring_commit (
    AccelIoRing *ring, AccelStream *stream, AccelBuffer *hold, GError **error)
{
  RingSlot *slot = &ring->slots[ring->next];

  if (hold)
    slot->held = accel_buffer_ref (hold);
  if (!accel_cuda_check (cudaEventRecord (slot->event,
                             (cudaStream_t)accel_stream_get_handle (stream)),
          error))
    {
      /* the work may be queued: wait for all of it before letting go */
      accel_cuda_check (cudaStreamSynchronize (
                            (cudaStream_t)accel_stream_get_handle (stream)),
          NULL);
      slot_release (slot);
      return FALSE;
    }
  slot->busy = TRUE;
  ring->next = (ring->next + 1) % ring->n_slots;
  return TRUE;
}

/**
 * accel_io_ring_hold:
 * @ring: a ring whose current slot was acquired
 * @data: (transfer full): what the slot's work reads, such as a
 *   GStreamer sample
 * @notify: frees @data
 *
 * Keeps @data until the work committed in the current slot is done, like
 * accel_io_ring_commit()'s @hold for anything that is not a buffer. Call
 * it before accel_io_ring_commit(). Called from the stage's thread.
 */
void
accel_io_ring_hold (AccelIoRing *ring, gpointer data, GDestroyNotify notify)
{
  RingSlot *slot = &ring->slots[ring->next];

  g_return_if_fail (slot->notify == NULL);
  slot->data = data;
  slot->notify = notify;
}

/**
 * accel_io_ring_free:
 * @ring: (transfer full) (nullable): a ring
 *
 * Waits for the work of every slot and frees the ring. Called from the
 * stage's thread.
 */
void
accel_io_ring_free (AccelIoRing *ring)
{
  if (!ring)
    return;
  accel_device_make_current (ring->device, NULL);
  for (guint i = 0; i < ring->n_slots; i++)
    {
      RingSlot *slot = &ring->slots[i];
      if (slot->busy)
        accel_cuda_check (cudaEventSynchronize (slot->event), NULL);
      slot_release (slot);
      g_clear_pointer (&slot->staging, accel_buffer_unref);
      if (slot->event)
        accel_cuda_check (cudaEventDestroy (slot->event), NULL);
    }
  g_object_unref (ring->device);
  g_free (ring);
}
