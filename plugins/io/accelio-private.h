/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: helpers its stages share (not installed) */
#pragma once

#include <accel/accel.h>

G_BEGIN_DECLS

/* how long a stage that waits for data or room sleeps before it looks
 * whether its thread is wanted elsewhere */
#define ACCEL_IO_WAIT_SLICE_US (20 * G_TIME_SPAN_MILLISECOND)

/**
 * AccelIoTypeProps:
 * @shape: tensor dimensions such as "480x640"; empty for an image
 * @dtype: tensor element type
 * @format: image format
 * @width: image width
 * @height: image height
 *
 * The properties a stage that reads untyped data (files, pushed buffers)
 * takes its output type from.
 */
typedef struct
{
  gchar *shape;
  gchar *dtype;
  gchar *format;
  gint width;
  gint height;
  /* the properties set since construction, 1 << ACCEL_IO_TYPE_PROP_* (a
   * format beside a shape was ignored without a word) */
  guint given;
} AccelIoTypeProps;

/* property ids, relative to the first id given to _install() */
enum
{
  ACCEL_IO_TYPE_PROP_SHAPE,
  ACCEL_IO_TYPE_PROP_DTYPE,
  ACCEL_IO_TYPE_PROP_FORMAT,
  ACCEL_IO_TYPE_PROP_WIDTH,
  ACCEL_IO_TYPE_PROP_HEIGHT,
  ACCEL_IO_TYPE_N_PROPS,
};

void accel_io_type_props_install (GObjectClass *klass, guint first_prop_id);
void accel_io_type_props_constructed (AccelIoTypeProps *props);
gboolean accel_io_type_props_set (
    AccelIoTypeProps *props, guint prop_id, const GValue *value);
gboolean accel_io_type_props_get (
    const AccelIoTypeProps *props, guint prop_id, GValue *value);
void accel_io_type_props_clear (AccelIoTypeProps *props);
gboolean accel_io_type_props_to_type (const AccelIoTypeProps *props,
    AccelStage *stage, AccelType *type, GError **error);

gboolean accel_io_types_match (const AccelType *a, const AccelType *b);

gboolean accel_io_parse_framerate (
    const char *text, gint *num, gint *den, GError **error);
gint64 accel_io_frame_duration (gint num, gint den);
gint64 accel_io_frame_pts (guint64 sequence, gint num, gint den);

/**
 * AccelIoNumbers:
 * @next: the number of the source's next frame
 * @started: whether @next was set from a frame yet
 *
 * A source's own frame numbers. A source that gives its thread back while
 * it waits (%ACCEL_FLOW_SKIP) has used up the engine's sequence number of
 * that frame; its frames are numbered on from the first one's sequence
 * instead, so that a yield leaves no gap. Zero it (or call
 * accel_io_numbers_reset()) when the stage starts.
 */
typedef struct
{
  guint64 next;
  gboolean started;
} AccelIoNumbers;

void accel_io_numbers_reset (AccelIoNumbers *numbers);
guint64 accel_io_numbers_peek (AccelIoNumbers *numbers, guint64 sequence);
guint64 accel_io_numbers_take (AccelIoNumbers *numbers, guint64 sequence);

gboolean accel_io_check_format (AccelStage *stage, const AccelType *type,
    const AccelFormat *formats, guint n_formats, GError **error);

gboolean accel_io_copy_async (AccelStream *stream, gpointer dst,
    gconstpointer src, gsize size, GError **error);

gboolean accel_io_write_all (
    int fd, gconstpointer data, gsize size, GError **error);
gssize accel_io_read_all (int fd, gpointer data, gsize size, GError **error);

/**
 * AccelIoRing:
 *
 * A ring of slots, each with an event: the host reuses a slot only once
 * the GPU work recorded in it is done. A slot may own a pinned staging
 * buffer (host data on its way to the device) and may hold a reference to
 * a buffer the GPU still reads.
 */
typedef struct _AccelIoRing AccelIoRing;

AccelIoRing *accel_io_ring_new (
    AccelDevice *device, guint n_slots, gsize staging_size, GError **error);
gboolean accel_io_ring_acquire (
    AccelIoRing *ring, gpointer *staging, GError **error);
gboolean accel_io_ring_commit (
    AccelIoRing *ring, AccelStream *stream, AccelBuffer *hold, GError **error);
void accel_io_ring_hold (
    AccelIoRing *ring, gpointer data, GDestroyNotify notify);
void accel_io_ring_free (AccelIoRing *ring);

/* acceliodigests.c: a digest of the last bytes of each frame a file sink
 * wrote, beside its commit log */
gboolean accel_io_frame_digests_write (AccelCommitLog *log, guint64 sequence,
    guint64 end, gconstpointer frame, gsize size, GError **error);
gboolean accel_io_frame_digests_check (AccelCommitLog *log,
    const char *location, gsize frame_size, guint64 n_whole, guint64 *n_kept,
    gchar **what, GError **error);

/* accelio.c: now + @timeout_us on the monotonic clock, or the farthest
 * time where that would overflow */

G_END_DECLS
