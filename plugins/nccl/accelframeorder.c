/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: the order of a communicator's frames (see
 * accelframeorder.h) */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelframeorder.h"

#include <string.h>

/* where @member of the communicator @key says that its stream ended */
static gchar *
end_key (const char *key, guint member)
{
  return g_strdup_printf ("%s/end/%u", key, member);
}

/* "frame 3" or "frames 3 to 5": those before @sequence, from @next */
static gchar *
missing_text (guint64 next, guint64 sequence)
{
  if (sequence - next == 1)
    return g_strdup_printf ("frame %" G_GUINT64_FORMAT, next);
  return g_strdup_printf (
      "frames %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT, next, sequence - 1);
}

/**
 * accel_frame_order_collective:
 * @order: the communicator's order
 * @who: the stage, as errors name it ("stage 'name' (kind)")
 * @rank: this rank's place in the world
 * @sequence: the frame about to be reduced, gathered or broadcast
 * @first_low: at the first frame, the least first frame over the members
 * @first_high: at the first frame, the greatest
 * @error: return location for a #GError, or %NULL
 *
 * Checks that every member gives the collective the same frames: the
 * first against the other members' (@first_low and @first_high, which the
 * caller exchanged when accel_frame_order_started() was %FALSE), each
 * later one against the one before.
 *
 * Returns: %FALSE with @error set to %ACCEL_ERROR_CONTEXT_POISONED when
 * they differ: the communicator is lost. Stage thread.
 */
gboolean
accel_frame_order_collective (AccelFrameOrder *order, const char *who,
    guint rank, guint64 sequence, guint64 first_low, guint64 first_high,
    GError **error)
{
  g_autofree gchar *missing = NULL;

  if (order->started && sequence == order->next)
    {
      order->next++;
      return TRUE;
    }
  if (!order->started && first_low == sequence && first_high == sequence)
    {
      order->started = TRUE;
      order->next = sequence + 1;
      return TRUE;
    }
  if (!order->started)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
        "%s: its first frame is %" G_GUINT64_FORMAT " on rank %u of the "
        "world, and from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
        " over the ranks: a rank skipped or dropped frames before it, and a "
        "collective pairs the ranks' frames in order; the world is rebuilt "
        "to resume where its sinks stopped",
        who, sequence, rank, first_low, first_high);
  else if (sequence < order->next)
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
        "%s: frame %" G_GUINT64_FORMAT " came after frame %" G_GUINT64_FORMAT
        " on rank %u of the world: a collective takes its frames in order",
        who, sequence, order->next - 1, rank);
  else
    {
      missing = missing_text (order->next, sequence);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
          "%s: %s did not reach it on rank %u of the world (skipped or "
          "dropped before it): a collective pairs the ranks' frames in "
          "order, so the world is rebuilt to resume where its sinks stopped",
          who, missing, rank);
    }
  return FALSE;
}

/**
 * accel_frame_order_started:
 * @order: a communicator's order
 *
 * Returns: whether a frame came: if not, a collective exchanges the first
 * frame's number before accel_frame_order_collective(). Stage thread.
 */
gboolean
accel_frame_order_started (AccelFrameOrder *order)
{
  return order->started;
}

/**
 * accel_frame_order_received:
 * @order: the receiving communicator's order
 * @who: the nccl.recv stage, as messages name it
 * @peer: the sender's rank in the world
 * @sequence: the number the sender gave the frame just received
 * @error: return location for a #GError, or %NULL
 *
 * Says on stderr which frames of the sender's stream never came (its rank
 * skipped or dropped them, and says so itself): the frame received keeps
 * its number, so nothing after the gap is paired wrong.
 *
 * Returns: %FALSE when @sequence goes back (the sender's stream started
 * over without this receiver): the communicator is lost. Stage thread.
 */
gboolean
accel_frame_order_received (AccelFrameOrder *order, const char *who, guint peer,
    guint64 sequence, GError **error)
{
  g_autofree gchar *missing = NULL;

  if (order->started && sequence < order->next)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
          "%s: rank %u sent frame %" G_GUINT64_FORMAT
          " after frame %" G_GUINT64_FORMAT ": a pair's frames go in order",
          who, peer, sequence, order->next - 1);
      return FALSE;
    }
  if (order->started && sequence > order->next)
    {
      missing = missing_text (order->next, sequence);
      g_message ("%s: rank %u skipped or dropped %s before sending; "
                 "frame %" G_GUINT64_FORMAT " keeps its number",
          who, peer, missing, sequence);
    }
  order->started = TRUE;
  order->next = sequence + 1;
  return TRUE;
}

/**
 * accel_frame_order_mark_end:
 * @order: the communicator's order
 * @stage: the stage whose stream ended (named to the other members)
 * @world: the joined world
 * @key: the communicator's name in the store
 * @member: this rank's place in the communicator
 * @error: return location for a #GError, or %NULL
 *
 * Tells the other members, through the store, that this one takes no
 * frame from its order's next on ("-": it took none), and whether its
 * graph was asked to end (an interrupt stops each rank where it is, which
 * is no mismatch of the ranks' frames).
 *
 * Returns: %TRUE when stored. Stage thread, at the end of its stream.
 */
gboolean
accel_frame_order_mark_end (AccelFrameOrder *order, AccelStage *stage,
    AccelWorld *world, const char *key, guint member, GError **error)
{
  g_autofree gchar *member_key = end_key (key, member);
  g_autofree gchar *next
      = order->started ? g_strdup_printf ("%" G_GUINT64_FORMAT, order->next)
                       : g_strdup ("-");
  g_autofree gchar *text
      = g_strdup_printf ("%s %u %s %s", next, accel_world_get_rank (world),
          accel_stage_graph_is_ending (stage) ? "interrupted" : "ended",
          accel_stage_get_name (stage));
  g_autoptr (GBytes) value = g_bytes_new (text, strlen (text));

  return accel_world_set (world, member_key, value, error);
}

/**
 * accel_frame_order_peer_ended:
 * @stage: the stage that waits
 * @world: the joined world
 * @key: the communicator's name in the store
 * @member: this rank's place in the communicator
 * @size: the number of members
 * @frame: the frame this rank gave the communicator last
 * @while_ending: whether to look while @stage's own graph is ending, where
 *   each rank ends its stream where it is: TRUE where the frame can be
 *   given up, FALSE where it went on already (a GPU's pending operation)
 *
 * Asks the store, once for each other member, whether its stream ended
 * before @frame, not for an interrupt: an operation on @frame (on a GPU,
 * the last one enqueued) then waits for a member that will never come,
 * which is no lost peer but ranks given different frames. Stops at the
 * first request the store does not answer.
 *
 * Returns: (transfer full) (nullable): what ended where, naming the first
 * frame that member did not take, or %NULL. MT safe; blocks for a request
 * a member.
 */
gchar *
accel_frame_order_peer_ended (AccelStage *stage, AccelWorld *world,
    const char *key, guint member, guint size, guint64 frame,
    gboolean while_ending)
{
  gboolean ending = accel_stage_graph_is_ending (stage);

  if (ending && !while_ending)
    return NULL;
  for (guint m = 0; m < size; m++)
    {
      g_autofree gchar *member_key = end_key (key, m);
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) value = NULL;
      g_autofree gchar *text = NULL;
      g_auto (GStrv) fields = NULL;
      guint64 end = 0, rank;
      const char *why;
      gboolean none;

      if (m == member)
        continue;
      if (!(value = accel_world_peek (world, member_key, &error)))
        {
          if (error)
            return NULL;
          continue;
        }
      text = g_strndup (
          g_bytes_get_data (value, NULL), g_bytes_get_size (value));
      fields = g_strsplit (text, " ", 4);
      if (g_strv_length (fields) != 4
          || !g_ascii_string_to_unsigned (
              fields[1], 10, 0, G_MAXUINT, &rank, NULL))
        continue;
      none = g_str_equal (fields[0], "-");
      if (!none
          && (!g_ascii_string_to_unsigned (
                  fields[0], 10, 0, G_MAXUINT64, &end, NULL)
              || end > frame))
        continue;
      why = ending ? "this rank's stream ends there too (interrupted)"
            : g_str_equal (fields[2], "interrupted")
                ? "that rank alone was interrupted (a terminal's Ctrl-C "
                  "reaches every rank)"
                : "every rank must give it the same frames";
      if (none)
        return g_strdup_printf ("rank %u ended its stream at stage '%s' "
                                "before taking a frame, while this rank "
                                "gave it frame %" G_GUINT64_FORMAT ": %s",
            (guint)rank, fields[3], frame, why);
      return g_strdup_printf ("rank %u ended its stream at stage '%s' before "
                              "frame %" G_GUINT64_FORMAT
                              ", which this rank gave it: %s",
          (guint)rank, fields[3], end, why);
    }
  return NULL;
}

/**
 * accel_frame_order_sent:
 * @order: a sender's order
 * @sequence: the frame just sent
 *
 * A sender's frames need no check (they carry their numbers), but its end
 * says where they ended. Stage thread.
 */
void
accel_frame_order_sent (AccelFrameOrder *order, guint64 sequence)
{
  order->started = TRUE;
  order->next = sequence + 1;
}

/**
 * accel_frame_order_wait_for_end:
 * @stage: the stage that waits (a sender, at its end)
 * @world: the joined world
 * @key: the communicator's name in the store
 * @member: the member whose end it waits for
 * @timeout_ms: how long at most
 *
 * Waits until @member said that its stream ended, the world moved on, or
 * this rank's graph is ending (an interrupt ends each rank where it is);
 * no further than the store answers or @timeout_ms, after which the check
 * it allows is not made. Stage thread.
 */
void
accel_frame_order_wait_for_end (AccelStage *stage, AccelWorld *world,
    const char *key, guint member, guint timeout_ms)
{
  g_autofree gchar *member_key = end_key (key, member);
  gint64 deadline
      = g_get_monotonic_time () + (gint64)timeout_ms * G_TIME_SPAN_MILLISECOND;
  gulong pause_us = 1000;

  while (g_get_monotonic_time () < deadline
         && !accel_stage_graph_is_ending (stage))
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) end = accel_world_peek (world, member_key, &error);

      if (end || error || accel_world_is_left (world))
        return;
      g_usleep (pause_us);
      pause_us = MIN (pause_us * 2, 100000);
    }
  if (!accel_stage_graph_is_ending (stage))
    g_debug ("%s: no end of stream from member %u within %u ms",
        accel_stage_get_name (stage), member, timeout_ms);
}
