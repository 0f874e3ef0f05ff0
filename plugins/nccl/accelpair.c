/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: a sender and its receiver make a communicator of two,
 * the lower rank first, named by their group (default "p2p") and their
 * ranks, so both ends find the same one */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelpair.h"

/**
 * accel_pair_members:
 * @self: a nccl.send or nccl.recv stage
 * @world: the joined world
 * @peer: the other end's rank
 * @rank: (out): this end's place in the pair
 * @size: (out): 2
 * @key: (out) (transfer full): the pair's name in the store
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE when @peer is this rank or not in the world. Stage
 * thread, in start().
 */
gboolean
accel_pair_members (AccelCollective *self, AccelWorld *world, guint peer,
    guint *rank, guint *size, gchar **key, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  guint me = accel_world_get_rank (world);
  g_autofree gchar *group = NULL;

  if (peer == me || peer >= accel_world_get_size (world))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): peer %u is %s", accel_stage_get_name (stage),
          accel_stage_get_kind_name (stage), peer,
          peer == me ? "this rank itself"
                     : "not a rank of the world (see --ranks/--world)");
      return FALSE;
    }
  g_object_get (self, "group", &group, NULL);
  *rank = me < peer ? 0 : 1;
  *size = 2;
  *key = g_strdup_printf ("p2p/%s/%u-%u", group && *group ? group : "p2p",
      MIN (me, peer), MAX (me, peer));
  return TRUE;
}

/**
 * accel_pair_peer_index:
 * @world: the joined world
 * @peer: the other end's rank
 *
 * Returns: the other end's place in the pair. MT safe.
 */
guint
accel_pair_peer_index (AccelWorld *world, guint peer)
{
  return accel_world_get_rank (world) < peer ? 1 : 0;
}

/**
 * accel_pair_class_install_peer:
 * @klass: the stage's class
 * @prop_id: the property's id
 * @blurb: what the peer is
 *
 * Installs the `peer` parameter. Called from class_init.
 */
void
accel_pair_class_install_peer (
    GObjectClass *klass, guint prop_id, const char *blurb)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_uint ("peer", "Peer", blurb, 0, 65535, 0,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
}
