/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the meetings of a world's stages (a collective's communicator, a
 * send and its receive), checked across every rank's stages of a file:
 * each member there once, each running it alike. A file that fails here
 * had its ranks wait for each other until the world's timeout */
#define G_LOG_DOMAIN "accel-yaml"

#include "accelyaml-private.h"

typedef struct
{
  gchar *key;
  guint *ranks; /* its members', or NULL for every rank of the world */
  guint n_ranks;
  gchar *terms; /* how its first member runs it */
  const AccelYamlMember *first;
  GHashTable *by_rank; /* rank -> AccelYamlMember* */
} Meeting;

static void
meeting_free (gpointer data)
{
  Meeting *m = data;

  g_free (m->key);
  g_free (m->ranks);
  g_free (m->terms);
  g_hash_table_unref (m->by_rank);
  g_free (m);
}

static void
world_unref (gpointer world)
{
  if (world)
    g_object_unref (world);
}

static const char *
name_of (const AccelYamlMember *m)
{
  return accel_stage_get_name (m->stage);
}

static const char *
kind_of (const AccelYamlMember *m)
{
  return accel_stage_get_kind_name (m->stage);
}

/* @member's place in its meeting, or a problem with it */
static void
join (GHashTable *by_key, GPtrArray *order, const AccelYamlMember *member,
    AccelWorld *world, AccelYamlReport report, gpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *key = NULL, *terms = NULL, *problem = NULL;
  g_autofree guint *ranks = NULL;
  guint n_ranks;
  Meeting *m;
  const AccelYamlMember *there;

  if (!accel_stage_meet (
          member->stage, world, &key, &ranks, &n_ranks, &terms, &error))
    {
      problem
          = g_strdup_printf ("on rank %u, %s", member->rank, error->message);
      report (member->decl, problem, data);
      return;
    }
  if (!key)
    return;
  m = g_hash_table_lookup (by_key, key);
  if (!m)
    {
      m = g_new0 (Meeting, 1);
      m->key = g_steal_pointer (&key);
      m->ranks = g_steal_pointer (&ranks);
      m->n_ranks = n_ranks;
      m->terms = g_steal_pointer (&terms);
      m->first = member;
      m->by_rank = g_hash_table_new (NULL, NULL);
      g_hash_table_insert (by_key, m->key, m);
      g_ptr_array_add (order, m);
    }
  else if ((there = g_hash_table_lookup (
                m->by_rank, GUINT_TO_POINTER (member->rank))))
    {
      problem = g_strdup_printf (
          "stage '%s' (%s) would connect as stage '%s' does on rank %u (%s): "
          "their frames would cross; give one of them a 'group' of its own",
          name_of (member), kind_of (member), name_of (there), member->rank,
          m->key);
      report (member->decl, problem, data);
      return;
    }
  else if (!g_str_equal (terms, m->terms))
    {
      problem = g_strdup_printf ("stage '%s' (%s): rank %u runs it as %s, "
                                 "rank %u as %s: every rank must run a "
                                 "collective alike",
          name_of (member), kind_of (member), m->first->rank, m->terms,
          member->rank, terms);
      report (member->decl, problem, data);
    }
  /* there, if otherwise: not a member missing too */
  g_hash_table_insert (
      m->by_rank, GUINT_TO_POINTER (member->rank), (gpointer)member);
}

/**
 * accel_yaml_check_meetings:
 * @members: (element-type AccelYamlMember): every rank's stages that may
 *   meet others, each set as its rank sets it
 * @size: the world's size
 * @every_rank: whether @members are every rank's (else one rank's, whose
 *   meetings' other members are not known here)
 * @report: called with each problem and the declaration it is about
 * @data: for @report
 *
 * Reports each stage whose parameters name no meeting (a peer outside the
 * world), each meeting some member rank runs no stage of, each rank with
 * two stages on one meeting and each member that runs it otherwise than
 * the first.
 */
void
accel_yaml_check_meetings (GArray *members, guint size, gboolean every_rank,
    AccelYamlReport report, gpointer data)
{
  g_autoptr (GHashTable) by_key
      = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, meeting_free);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  g_autoptr (GPtrArray) worlds = g_ptr_array_new_with_free_func (world_unref);

  g_ptr_array_set_size (worlds, size);
  for (guint i = 0; i < members->len; i++)
    {
      const AccelYamlMember *member
          = &g_array_index (members, AccelYamlMember, i);

      /* the rank's own world, not joined: accel_stage_meet () reads its
       * rank and size only */
      if (!worlds->pdata[member->rank])
        worlds->pdata[member->rank]
            = accel_world_new ("127.0.0.1:1", member->rank, size);
      join (by_key, order, member, worlds->pdata[member->rank], report, data);
    }
  for (guint i = 0; i < order->len && every_rank; i++)
    {
      Meeting *m = order->pdata[i];
      guint n = m->ranks ? m->n_ranks : size;

      for (guint r = 0; r < n; r++)
        {
          guint rank = m->ranks ? m->ranks[r] : r;
          g_autofree gchar *problem = NULL;

          if (g_hash_table_contains (m->by_rank, GUINT_TO_POINTER (rank)))
            continue;
          problem = g_strdup_printf (
              "stage '%s' (%s) on rank %u meets rank %u in '%s' (%s), but "
              "no stage of rank %u does: every member runs it, in the same "
              "group (a collective's 'ranks' leave none out; a pair's two "
              "ends name each other as 'peer')",
              name_of (m->first), kind_of (m->first), m->first->rank, rank,
              m->key, m->terms, rank);
          report (m->first->decl, problem, data);
        }
    }
}
