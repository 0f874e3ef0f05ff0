/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the effects stages' expected outputs, as the tests compute them with the
 * host references: what a core.checksum-sink reports after a graph from
 * core.test-source through realtime.effects */
#pragma once

#include <glib.h>

#include "test-image.h"
#include "core/pattern.h"
#include "effects/effects.h"

/* one frame's line of a checksum sink's digest */
static inline void
test_digest_add (GChecksum *all, guint64 seq, const void *data, gsize size)
{
  g_autofree gchar *sum
      = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);
  g_autofree gchar *line
      = g_strdup_printf ("%" G_GUINT64_FORMAT " %s\n", seq, sum);

  g_checksum_update (all, (const guchar *)line, -1);
}

/* the digest of @n_frames test-source frames of @format through
 * @description; @skip: a frame the stage never ran (G_MAXUINT64: none),
 * @restored: whether its history survived that */
static inline gchar *
test_effects_expected (const char *description, int format, int width,
    int height, guint64 n_frames, guint64 skip, gboolean restored)
{
  g_autoptr (GChecksum) all = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (TestFrame) in = test_frame_new (format, width, height, 0);
  g_autoptr (TestFrame) out = test_frame_new (format, width, height, 0);
  AccelEffectsParams p;
  g_autofree float *history = NULL;
  gboolean valid = FALSE;

  g_assert_cmpint (accel_effects_parse (description, &p, NULL, 0), ==, 0);
  history = g_malloc0 (accel_effects_history_size (&p, width, height) + 16);
  for (guint64 s = 0; s < n_frames; s++)
    {
      if (s == skip)
        {
          valid = valid && restored;
          continue;
        }
      accel_pattern_fill_u8_host (in->data, in->size, s);
      g_assert_cmpint (
          accel_effects_apply_host (format, in->data, in->pitch, out->data,
              out->pitch, width, height, &p, history, valid),
          ==, 0);
      valid = TRUE;
      test_digest_add (all, s, out->data, out->size);
    }
  return g_strdup (g_checksum_get_string (all));
}
