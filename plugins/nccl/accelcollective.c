/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: the collective stages' base class (see
 * accelcollective.h). Its stages block their thread on the host backend
 * (Gloo waits for the other ranks), so each has a thread of its own */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelcollective.h"
#include "accelwatchdog.h"

typedef struct
{
  gchar *group;
  AccelCommunicator *comm;
  gchar *key; /* held in the process's keys while started */
} AccelCollectivePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (
    AccelCollective, accel_collective, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_GROUP,
};

/**
 * accel_collective_get_group:
 * @self: a collective stage
 *
 * Returns: (transfer none): the communicator's name: the `group`
 * parameter, or the stage's name. Stage thread.
 */
const char *
accel_collective_get_group (AccelCollective *self)
{
  AccelCollectivePrivate *priv = accel_collective_get_instance_private (self);

  return priv->group && *priv->group
             ? priv->group
             : accel_stage_get_name (ACCEL_STAGE (self));
}

static gboolean
default_members (AccelCollective *self, AccelWorld *world, guint *rank,
    guint *size, gchar **key, GError **error)
{
  *rank = accel_world_get_rank (world);
  *size = accel_world_get_size (world);
  *key = g_strdup_printf ("comm/%s", accel_collective_get_group (self));
  return TRUE;
}

/* the output is of the input's type: most collectives */
static gboolean
accel_collective_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  if (!accel_collective_check_input (stage, &in_types[0], error))
    return FALSE;
  out_types[0] = in_types[0];
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  return TRUE;
}

/* what this rank gives the collective (its input, or what a receiver
 * declares) as the store keeps it: "DTYPE BYTES WORLD-RANK TYPE" */
static gchar *
given_type (AccelStage *stage, AccelWorld *world)
{
  const AccelType *t = accel_stage_get_n_inputs (stage) > 0
                           ? accel_stage_get_input_type (stage, 0)
                           : accel_stage_get_output_type (stage, 0);
  g_autofree gchar *text = accel_type_to_string (t);

  return g_strdup_printf ("%s %" G_GSIZE_FORMAT " %u %s",
      accel_dtype_to_string (t->dtype), accel_type_get_size (t),
      accel_world_get_rank (world), text);
}

/* what every member of a communicator in @world must run alike: its
 * kind (a pair: the direction its frames go, a send at one end and a
 * receive at the other) and its op and root where it has them. Ranks whose
 * files differ there ran, with exit 0, a sum on one and a max on the other
 * (the frames half summed, half the max), or waited out the timeout in
 * every generation with roots that differ, or two sends to each other */
static gchar *
run_terms (AccelStage *stage, AccelWorld *world)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (stage);
  GString *s = g_string_new (NULL);
  static const char *const terms[] = { "op", "root" };

  if (g_object_class_find_property (klass, "peer"))
    {
      guint me = accel_world_get_rank (world), peer;
      gboolean sends = accel_stage_get_n_inputs (stage) > 0;

      g_object_get (stage, "peer", &peer, NULL);
      g_string_append_printf (s, "frames from rank %u to rank %u",
          sends ? me : peer, sends ? peer : me);
      return g_string_free (s, FALSE);
    }
  g_string_append (s, accel_stage_get_kind_name (stage));
  for (guint i = 0; i < G_N_ELEMENTS (terms); i++)
    {
      GParamSpec *pspec = g_object_class_find_property (klass, terms[i]);
      GValue v = G_VALUE_INIT;

      if (!pspec)
        continue;
      g_value_init (&v, pspec->value_type);
      g_object_get_property (G_OBJECT (stage), terms[i], &v);
      if (G_VALUE_HOLDS_ENUM (&v))
        g_string_append_printf (s, " %s %s", terms[i],
            g_enum_get_value (
                g_type_class_peek (pspec->value_type), g_value_get_enum (&v))
                ->value_nick);
      else if (G_VALUE_HOLDS_UINT (&v))
        g_string_append_printf (s, " %s %u", terms[i], g_value_get_uint (&v));
      g_value_unset (&v);
    }
  return g_string_free (s, FALSE);
}

/* the world rank of @member of the stage's communicator: a pair's other
 * end is its peer, a group's members are the world's ranks */
static guint
member_rank (AccelStage *stage, guint member)
{
  guint peer = member;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (stage), "peer"))
    g_object_get (stage, "peer", &peer, NULL);
  return peer;
}

/* @member's word on what it gives the collective; NULL when it never came:
 * a later generation of the world began (a peer started again: the rank
 * goes with it), or the member's graph has no such stage */
static gchar *
member_type (AccelStage *stage, AccelWorld *world, const char *key,
    guint member, GError **error)
{
  g_autofree gchar *member_key = g_strdup_printf ("%s/type/%u", key, member);
  g_autoptr (GError) got_error = NULL;
  g_autoptr (GBytes) got = accel_world_get (world, member_key, &got_error);

  if (got)
    return g_strndup (g_bytes_get_data (got, NULL), g_bytes_get_size (got));
  /* interrupted, or no coordinator to ask: not the member's doing */
  if (!g_error_matches (got_error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT))
    g_propagate_prefixed_error (error, g_steal_pointer (&got_error),
        "stage '%s' (%s), waiting for rank %u: ", accel_stage_get_name (stage),
        accel_stage_get_kind_name (stage), member_rank (stage, member));
  else if (accel_world_is_left (world))
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
        "stage '%s' (%s): %s", accel_stage_get_name (stage),
        accel_stage_get_kind_name (stage), ACCEL_WATCHDOG_WORLD_LEFT);
  else
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
        "stage '%s' (%s): rank %u did not reach it within %u ms (%s): does "
        "its graph leave it out? A collective runs on every rank of its "
        "group, so its 'ranks' may leave none out",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
        member_rank (stage, member), accel_world_get_timeout_ms (world),
        got_error->message);
  return NULL;
}

/* every member must give the collective the same element type and size,
 * or NCCL reads past a buffer or waits forever and Gloo aborts the process;
 * run it alike (run_terms ()); and have the stage at all. Member 0 waits for
 * every other member's word and the others for member 0's, through the store,
 * before any communicator is made */
static gboolean
agree_on_type (AccelStage *stage, AccelWorld *world, const char *key,
    guint member, guint size, GError **error)
{
  g_autofree gchar *type = given_type (stage, world);
  g_autofree gchar *terms = run_terms (stage, world);
  /* the type's line, then the terms' */
  g_autofree gchar *mine = g_strdup_printf ("%s\n%s", type, terms);
  g_autofree gchar *mine_key = g_strdup_printf ("%s/type/%u", key, member);
  g_autoptr (GBytes) value = g_bytes_new (mine, strlen (mine));
  g_auto (GStrv) ours = g_strsplit (type, " ", 4);

  if (!accel_world_set (world, mine_key, value, error))
    return FALSE;
  for (guint m = member == 0 ? 1 : 0; m < (member == 0 ? size : 1); m++)
    {
      g_autofree gchar *text = member_type (stage, world, key, m, error);
      g_auto (GStrv) lines = NULL, theirs = NULL;
      gchar **first, **second;

      if (!text)
        return FALSE;
      lines = g_strsplit (text, "\n", 2);
      theirs = g_strsplit (lines[0], " ", 4);
      if (g_strv_length (theirs) != 4 || g_strv_length (lines) != 2)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
              "stage '%s' (%s): the store holds '%s' for %s, which no rank "
              "of accel's wrote",
              accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
              text, key);
          return FALSE;
        }
      if (!g_str_equal (terms, lines[1]))
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
              "stage '%s' (%s): rank %s runs it as %s, rank %s as %s: every "
              "rank must run a collective alike",
              accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
              m == 0 ? theirs[2] : ours[2], m == 0 ? lines[1] : terms,
              m == 0 ? ours[2] : theirs[2], m == 0 ? terms : lines[1]);
          return FALSE;
        }
      if (g_str_equal (ours[0], theirs[0]) && g_str_equal (ours[1], theirs[1]))
        continue;
      /* member 0's first */
      first = m == 0 ? theirs : ours;
      second = m == 0 ? ours : theirs;
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
          "stage '%s' (%s): rank %s gives it %s, rank %s gives it %s: every "
          "rank must give a collective the same element type and size",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          first[2], first[3], second[2], second[3]);
      return FALSE;
    }
  return TRUE;
}

/* the store keys of the collectives started in this process, each with the
 * name of its stage: two stages on one key (two pairs between the same
 * ranks, two collectives in one group) would meet each other's peers, and
 * their streams cross */
static GMutex keys_lock;
static GHashTable *keys_in_use;

static gboolean
hold_key (AccelStage *stage, const char *key, GError **error)
{
  const char *holder;

  g_mutex_lock (&keys_lock);
  if (!keys_in_use)
    keys_in_use
        = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  holder = g_hash_table_lookup (keys_in_use, key);
  if (holder)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s) would connect as stage '%s' does on this rank "
          "(%s): their frames would cross; give one of them a 'group' of "
          "its own",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          holder, key);
      g_mutex_unlock (&keys_lock);
      return FALSE;
    }
  g_hash_table_insert (
      keys_in_use, g_strdup (key), g_strdup (accel_stage_get_name (stage)));
  g_mutex_unlock (&keys_lock);
  return TRUE;
}

static void
release_key (const char *key)
{
  g_mutex_lock (&keys_lock);
  if (keys_in_use)
    g_hash_table_remove (keys_in_use, key);
  g_mutex_unlock (&keys_lock);
}

static void
set_needs_world (AccelStage *stage, AccelError code, GError **error)
{
  g_set_error (error, ACCEL_ERROR, code,
      "stage '%s' (%s) runs in a world of processes: start it with "
      "accel-run --ranks N, or --coordinator HOST:PORT --rank R --world W",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage));
}

static gboolean
accel_collective_start (AccelStage *stage, GError **error)
{
  AccelCollective *self = ACCEL_COLLECTIVE (stage);
  AccelCollectivePrivate *priv = accel_collective_get_instance_private (self);
  AccelWorld *world = accel_world_get_default ();
  g_autofree gchar *key = NULL;
  guint rank, size;

  if (!world || accel_world_get_generation (world) == 0)
    {
      set_needs_world (stage, ACCEL_ERROR_NOT_SUPPORTED, error);
      return FALSE;
    }
  /* its peers hold the communicator it would make again, and would not
   * meet it: the world is rebuilt instead, every rank's together */
  if (accel_stage_is_restarting (stage))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
          "a collective cannot restart alone: its communicator is every "
          "rank's; the world is rebuilt instead");
      return FALSE;
    }
  if (!ACCEL_COLLECTIVE_GET_CLASS (self)->members (
          self, world, &rank, &size, &key, error)
      || !hold_key (stage, key, error))
    return FALSE;
  if (!agree_on_type (stage, world, key, rank, size, error)
      || !(priv->comm
           = accel_communicator_new (stage, world, key, rank, size, error)))
    {
      release_key (key);
      return FALSE;
    }
  priv->key = g_steal_pointer (&key);
  return TRUE;
}

static void
accel_collective_stop (AccelStage *stage)
{
  AccelCollectivePrivate *priv
      = accel_collective_get_instance_private (ACCEL_COLLECTIVE (stage));

  /* a restart fails (see start ()): nothing waits for the peers */
  if (priv->comm && accel_stage_is_restarting (stage))
    accel_communicator_abandon (priv->comm);
  g_clear_pointer (&priv->comm, accel_communicator_free);
  if (priv->key)
    release_key (priv->key);
  g_clear_pointer (&priv->key, g_free);
}

/* the other members learn that this one's stream ended */
static gboolean
accel_collective_eos (AccelStage *stage, GError **error)
{
  AccelCollectivePrivate *priv
      = accel_collective_get_instance_private (ACCEL_COLLECTIVE (stage));

  return !priv->comm || accel_communicator_end (priv->comm, error);
}

/**
 * accel_collective_get_communicator:
 * @self: a started collective stage
 *
 * Returns: (transfer none): its communicator. Stage thread.
 */
AccelCommunicator *
accel_collective_get_communicator (AccelCollective *self)
{
  AccelCollectivePrivate *priv = accel_collective_get_instance_private (self);

  return priv->comm;
}

/* a group names the communicator in the world's store's keys, made of
 * words between '/': a word of at most 128 bytes with no space or control
 * character (one with a space failed at start, naming the store's key
 * rather than the parameter) */
static gboolean
check_group (AccelStage *stage, GError **error)
{
  AccelCollectivePrivate *priv
      = accel_collective_get_instance_private (ACCEL_COLLECTIVE (stage));
  const char *group = priv->group;
  gboolean ok = !group || strlen (group) <= 128;

  for (const char *c = group; ok && c && *c; c++)
    ok = !g_ascii_isspace (*c) && !g_ascii_iscntrl (*c) && *c != '/';
  if (ok)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s): parameter 'group' must be a word of at most 128 "
      "bytes, with no '/', space or control character",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage));
  return FALSE;
}

/* alone, the stage would fail as it starts: refused as the graph is
 * prepared, so that --validate and the YAML loader find it, at the stage
 * (a world is set before its graph is loaded: accel_world_set_default ()) */
static gboolean
check_world (AccelStage *stage, GError **error)
{
  if (accel_world_get_default ())
    return TRUE;
  set_needs_world (stage, ACCEL_ERROR_INVALID_PIPELINE, error);
  return FALSE;
}

/**
 * accel_collective_check_input:
 * @stage: a collective stage
 * @in: its input's type
 * @error: return location for a #GError, or %NULL
 *
 * Returns: whether the stage takes @in: a tensor of f32, f64, f16, bf16,
 * i32, u32 or u8 (an image counts as its bytes, u8), and its `group`, a
 * word the world's store can hold, in a world of processes. Thread that
 * prepares the graph.
 */
gboolean
accel_collective_check_input (
    AccelStage *stage, const AccelType *in, GError **error)
{
  if (!check_world (stage, error) || !check_group (stage, error))
    return FALSE;
  if (accel_reduce_dtype_supported (in->dtype))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (%s) takes f32, f64, f16, bf16, i32, u32 or u8 data, not "
      "%s",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
      accel_dtype_to_string (in->dtype));
  return FALSE;
}

/**
 * accel_collective_check_root:
 * @stage: a collective stage with a root (broadcast, reduce)
 * @root: its root rank
 * @error: return location for a #GError, or %NULL
 *
 * Returns: whether @root is a rank of the world (any root outside one: a
 * file checked before its world is joined); otherwise sets @error to
 * %ACCEL_ERROR_INVALID_PIPELINE naming the stage and the world's ranks, at
 * prepare, before any rank waits for the others. Thread that prepares the
 * graph.
 */
gboolean
accel_collective_check_root (AccelStage *stage, guint root, GError **error)
{
  AccelWorld *world = accel_world_get_default ();
  guint size = world ? accel_world_get_size (world) : 0;

  if (!world || root < size)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s): root %u is not a rank of the world (0 to %u)",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage), root,
      size - 1);
  return FALSE;
}

/**
 * accel_collective_class_add_ports:
 * @klass: a collective stage's class
 * @input: whether it has the input `in`
 * @output: whether it has the output `out`
 * @out_description: what `out` holds
 *
 * Called from class_init.
 */
void
accel_collective_class_add_ports (AccelStageClass *klass, gboolean input,
    gboolean output, const char *out_description)
{
  AccelType any;

  accel_type_init_any (&any);
  any.memory = ACCEL_MEMORY_DEVICE;
  if (input)
    accel_stage_class_add_port (klass, ACCEL_PORT_INPUT, "in", &any,
        "f32, f64, f16, bf16, i32, u32 or u8 data");
  if (output)
    accel_stage_class_add_port (
        klass, ACCEL_PORT_OUTPUT, "out", &any, out_description);
}

/**
 * accel_collective_class_install_op:
 * @klass: a reducing collective stage's class
 * @prop_id: the id its `op` parameter gets
 *
 * Installs `op`, the reduction (an #AccelReduceOp, sum by default). Called
 * from class_init.
 */
void
accel_collective_class_install_op (GObjectClass *klass, guint prop_id)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_enum ("op", "Operation",
          "The reduction: sum, prod, min, max or avg", ACCEL_TYPE_REDUCE_OP,
          ACCEL_REDUCE_SUM,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
}

static void
accel_collective_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelCollectivePrivate *priv
      = accel_collective_get_instance_private (ACCEL_COLLECTIVE (object));

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_GROUP:
      g_free (priv->group);
      priv->group = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_collective_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelCollectivePrivate *priv
      = accel_collective_get_instance_private (ACCEL_COLLECTIVE (object));

  switch (prop_id)
    {
    case PROP_GROUP:
      g_value_set_string (value, priv->group);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_collective_finalize (GObject *object)
{
  AccelCollectivePrivate *priv
      = accel_collective_get_instance_private (ACCEL_COLLECTIVE (object));

  g_clear_pointer (&priv->comm, accel_communicator_free);
  g_free (priv->group);
  G_OBJECT_CLASS (accel_collective_parent_class)->finalize (object);
}

/* the meeting a loader checks every rank's stages against (see
 * accel_stage_meet ()): the communicator's key, its members' world ranks
 * (a pair's two ends, or every rank) and how this rank runs it */
static gboolean
accel_collective_meet (AccelStage *stage, AccelWorld *world, gchar **key,
    guint **members, guint *n_members, gchar **terms, GError **error)
{
  AccelCollective *self = ACCEL_COLLECTIVE (stage);
  guint rank, size;

  if (!ACCEL_COLLECTIVE_GET_CLASS (self)->members (
          self, world, &rank, &size, key, error))
    return FALSE;
  /* a pair: its two ends, the lower rank first; a group: every rank */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (stage), "peer"))
    {
      guint me = accel_world_get_rank (world), peer = member_rank (stage, 0);

      *n_members = 2;
      *members = g_new (guint, 2);
      (*members)[0] = MIN (me, peer);
      (*members)[1] = MAX (me, peer);
    }
  *terms = run_terms (stage, world);
  return TRUE;
}

static void
accel_collective_class_init (AccelCollectiveClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);

  gobject_class->set_property = accel_collective_set_property;
  gobject_class->get_property = accel_collective_get_property;
  gobject_class->finalize = accel_collective_finalize;
  stage_class->negotiate = accel_collective_negotiate;
  stage_class->start = accel_collective_start;
  stage_class->stop = accel_collective_stop;
  stage_class->eos = accel_collective_eos;
  klass->members = default_members;
  /* Gloo waits for the other ranks on the stage's thread */
  accel_stage_class_set_blocking (stage_class, TRUE);
  /* a rank's collectives and pairs wait for their peers as they start */
  accel_stage_class_set_start_waits (stage_class, TRUE);
  accel_stage_class_set_meet_func (stage_class, accel_collective_meet);

  g_object_class_install_property (gobject_class, PROP_GROUP,
      g_param_spec_string ("group", "Group",
          "Name of the communicator, the same on every rank (empty: the "
          "stage's name)",
          "",
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
}

static void
accel_collective_init (AccelCollective *self)
{
}
