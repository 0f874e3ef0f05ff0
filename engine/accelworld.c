/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a world of processes. A rank knows its number, the world's size
 * and its coordinator (rank 0's supervisor, which serves the rendezvous
 * store); joining tells it the world's generation, and every key it keeps
 * in the store is scoped to that generation, so a world rebuilt after a
 * crash never reads what the last one left (a communicator's unique id).
 * G_MESSAGES_DEBUG=accel-world tells joins and what the ranks agree on */
#define G_LOG_DOMAIN "accel-world"

#include "accel-private.h"

struct _AccelWorld
{
  GObject parent;

  gchar *coordinator;
  guint rank, size;
  guint generation; /* 0 until joined */
  gchar *local_host;
  guint timeout_ms;
  gboolean same_pipeline; /* every rank loads this process's file */
};

G_DEFINE_FINAL_TYPE (AccelWorld, accel_world, G_TYPE_OBJECT)

static GMutex default_lock;
static AccelWorld *default_world;
static gboolean default_read;

static void
accel_world_finalize (GObject *object)
{
  AccelWorld *self = ACCEL_WORLD (object);

  g_free (self->coordinator);
  g_free (self->local_host);
  G_OBJECT_CLASS (accel_world_parent_class)->finalize (object);
}

static void
accel_world_class_init (AccelWorldClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = accel_world_finalize;
}

static void
accel_world_init (AccelWorld *self)
{
  static gsize warned;
  g_autoptr (GError) error = NULL;

  /* said once: a process makes worlds of its own (one per rank its
   * --validate checks), each read it */
  if (!accel_world_timeout_from_env (&self->timeout_ms, &error)
      && g_once_init_enter (&warned))
    {
      g_warning (
          "%s; waiting %u ms", error->message, ACCEL_WORLD_DEFAULT_TIMEOUT_MS);
      g_once_init_leave (&warned, 1);
    }
}

/**
 * accel_world_timeout_from_env:
 * @timeout_ms: (out): the world's timeout in ms: `ACCEL_WORLD_TIMEOUT`'s,
 *   or %ACCEL_WORLD_DEFAULT_TIMEOUT_MS where it is unset or no timeout
 * @error: return location for a #GError, or %NULL
 *
 * Reads `ACCEL_WORLD_TIMEOUT`, which every world made in this process
 * takes. A program that starts a world checks it first with this, so that
 * a value that is no timeout is refused, not waited out as the default.
 *
 * Returns: %FALSE with %ACCEL_ERROR_INVALID_PIPELINE when it is set to
 * anything but milliseconds from 1 to %G_MAXINT. MT safe.
 */
gboolean
accel_world_timeout_from_env (guint *timeout_ms, GError **error)
{
  guint64 ms = ACCEL_WORLD_DEFAULT_TIMEOUT_MS;
  const char *env = g_getenv ("ACCEL_WORLD_TIMEOUT");

  *timeout_ms = ACCEL_WORLD_DEFAULT_TIMEOUT_MS;
  /* at most G_MAXINT: Gloo takes an int, and from 2^31 refused every
   * collective as a negative timeout */
  if (env && !g_ascii_string_to_unsigned (env, 10, 1, G_MAXINT, &ms, NULL))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "ACCEL_WORLD_TIMEOUT must be milliseconds from 1 to %d, not '%s'",
          G_MAXINT, env);
      return FALSE;
    }
  *timeout_ms = (guint)ms;
  return TRUE;
}

/**
 * accel_world_new:
 * @coordinator: `HOST:PORT` of the world's store
 * @rank: this process's rank, below @size
 * @size: the number of ranks
 *
 * Returns: (transfer full): a world this process is rank @rank of; it
 * joins with accel_world_join(). MT safe.
 */
AccelWorld *
accel_world_new (const char *coordinator, guint rank, guint size)
{
  AccelWorld *world;

  g_return_val_if_fail (coordinator != NULL, NULL);
  g_return_val_if_fail (rank < size, NULL);
  world = g_object_new (ACCEL_TYPE_WORLD, NULL);
  world->coordinator = g_strdup (coordinator);
  world->rank = rank;
  world->size = size;
  return world;
}

/* ACCEL_COORDINATOR, ACCEL_RANK and ACCEL_WORLD_SIZE, as a world's
 * supervisor sets them for its workers */
static AccelWorld *
world_from_environment (void)
{
  const char *coordinator = g_getenv ("ACCEL_COORDINATOR");
  const char *rank = g_getenv ("ACCEL_RANK");
  const char *size = g_getenv ("ACCEL_WORLD_SIZE");
  guint64 r, n;

  if (!coordinator || !rank || !size)
    return NULL;
  if (!g_ascii_string_to_unsigned (size, 10, 1, 65536, &n, NULL)
      || !g_ascii_string_to_unsigned (rank, 10, 0, n - 1, &r, NULL))
    {
      g_warning ("ACCEL_RANK=%s and ACCEL_WORLD_SIZE=%s are no rank of a "
                 "world; running alone",
          rank, size);
      return NULL;
    }
  return accel_world_new (coordinator, (guint)r, (guint)n);
}

/**
 * accel_world_get_default:
 *
 * The world this process is a rank of: the one set with
 * accel_world_set_default(), else the one the environment of a world's
 * worker names (`ACCEL_COORDINATOR`, `ACCEL_RANK`, `ACCEL_WORLD_SIZE`).
 *
 * Returns: (transfer none) (nullable): the world, or %NULL for a process
 * that runs alone. MT safe.
 */
AccelWorld *
accel_world_get_default (void)
{
  AccelWorld *world;

  g_mutex_lock (&default_lock);
  if (!default_read)
    {
      default_read = TRUE;
      if (!default_world)
        default_world = world_from_environment ();
    }
  world = default_world;
  g_mutex_unlock (&default_lock);
  return world;
}

/**
 * accel_world_set_default:
 * @world: (nullable) (transfer none): the world, or %NULL to run alone
 *
 * Makes @world the one accel_world_get_default() returns: the collective
 * stages and the YAML loader (`ranks`, `{rank}`) use it. MT safe; set it
 * before the graph is loaded.
 */
void
accel_world_set_default (AccelWorld *world)
{
  g_mutex_lock (&default_lock);
  g_clear_object (&default_world);
  default_world = world ? g_object_ref (world) : NULL;
  default_read = TRUE;
  g_mutex_unlock (&default_lock);
}

/**
 * accel_world_get_rank:
 * @world: a world
 *
 * Returns: this process's rank. MT safe.
 */
guint
accel_world_get_rank (AccelWorld *world)
{
  g_return_val_if_fail (ACCEL_IS_WORLD (world), 0);
  return world->rank;
}

/**
 * accel_world_get_size:
 * @world: a world
 *
 * Returns: the number of ranks. MT safe.
 */
guint
accel_world_get_size (AccelWorld *world)
{
  g_return_val_if_fail (ACCEL_IS_WORLD (world), 1);
  return world->size;
}

/**
 * accel_world_get_generation:
 * @world: a world
 *
 * Returns: the generation joined (1 for the first world, one more each
 * time the world is rebuilt), or 0 before accel_world_join(). MT safe.
 */
guint
accel_world_get_generation (AccelWorld *world)
{
  g_return_val_if_fail (ACCEL_IS_WORLD (world), 0);
  return world->generation;
}

/**
 * accel_world_get_coordinator:
 * @world: a world
 *
 * Returns: (transfer none): `HOST:PORT` of the world's store. MT safe.
 */
const char *
accel_world_get_coordinator (AccelWorld *world)
{
  g_return_val_if_fail (ACCEL_IS_WORLD (world), NULL);
  return world->coordinator;
}

/**
 * accel_world_get_local_host:
 * @world: a world
 *
 * Returns: (transfer none): this machine's address as the coordinator
 * sees it (where the other ranks reach this one), known once joined; else
 * 127.0.0.1. MT safe.
 */
const char *
accel_world_get_local_host (AccelWorld *world)
{
  g_return_val_if_fail (ACCEL_IS_WORLD (world), NULL);
  return world->local_host ? world->local_host : "127.0.0.1";
}

/**
 * accel_world_get_timeout_ms:
 * @world: a world
 *
 * Returns: how long a rank waits for the coordinator, the other ranks and
 * the keys they set (`ACCEL_WORLD_TIMEOUT`, default 60 000 ms). MT safe.
 */
guint
accel_world_get_timeout_ms (AccelWorld *world)
{
  g_return_val_if_fail (ACCEL_IS_WORLD (world), 0);
  return world->timeout_ms;
}

/**
 * accel_world_set_same_pipeline:
 * @world: a world
 * @same: whether every rank loads the pipeline file this process loads,
 *   with the same settings (accel-run --ranks N starts every rank so)
 *
 * A loader that knows every rank's stages then checks them against each
 * other as it loads (a collective some rank leaves out, a send whose
 * receiver names another group): see accel_stage_meet (). Ranks that each
 * load their own file (--coordinator, --rank, --world) find such problems
 * as their stages start. Called before the pipeline is loaded, from the
 * thread that made @world.
 */
void
accel_world_set_same_pipeline (AccelWorld *world, gboolean same)
{
  g_return_if_fail (ACCEL_IS_WORLD (world));
  world->same_pipeline = same;
}

/**
 * accel_world_get_same_pipeline:
 * @world: a world
 *
 * Returns: whether every rank loads the pipeline this process loads
 * (accel_world_set_same_pipeline ()). MT safe.
 */
gboolean
accel_world_get_same_pipeline (AccelWorld *world)
{
  g_return_val_if_fail (ACCEL_IS_WORLD (world), FALSE);
  return world->same_pipeline;
}

/**
 * accel_world_set_timeout_ms:
 * @world: a world
 * @timeout_ms: how long a rank waits for the others, from 1 to %G_MAXINT
 *   (the host backend's Gloo takes an int)
 *
 * Called before accel_world_join(), from the thread that made @world.
 */
void
accel_world_set_timeout_ms (AccelWorld *world, guint timeout_ms)
{
  g_return_if_fail (ACCEL_IS_WORLD (world));
  g_return_if_fail (timeout_ms > 0 && timeout_ms <= G_MAXINT);
  world->timeout_ms = timeout_ms;
}

/**
 * accel_world_join:
 * @world: a world
 * @pipeline: the pipeline's name, the same on every rank
 * @error: return location for a #GError, or %NULL
 *
 * Waits until every rank has joined, and takes the world's generation.
 *
 * Returns: %TRUE when joined; %FALSE when the coordinator cannot be
 * reached or a rank did not join within the world's timeout (both
 * %ACCEL_ERROR_TIMEOUT), or the coordinator's world is another one (size,
 * pipeline). Called from the thread that starts the graph, before it
 * starts; blocks up to the world's timeout.
 */
gboolean
accel_world_join (AccelWorld *world, const char *pipeline, GError **error)
{
  g_autofree gchar *host = NULL;
  guint generation;

  g_return_val_if_fail (ACCEL_IS_WORLD (world), FALSE);
  g_debug ("rank %u of %u joins the world at %s", world->rank, world->size,
      world->coordinator);
  generation = accel_store_join (world->coordinator, world->rank, world->size,
      pipeline, world->timeout_ms, &host, error);
  if (!generation)
    return FALSE;
  world->generation = generation;
  g_free (world->local_host);
  world->local_host = g_steal_pointer (&host);
  g_debug ("rank %u of %u joined generation %u (reached at %s)", world->rank,
      world->size, generation, world->local_host);
  return TRUE;
}

static gchar *
scoped_key (AccelWorld *world, const char *key)
{
  return g_strdup_printf ("g%u/%s", world->generation, key);
}

/**
 * accel_world_finish:
 * @world: a world
 *
 * Tells the world's store that this rank finished its run, so that a rank
 * started again later, which waits for this one in a new generation of the
 * world, is told why it does not come: a rank started on its own leaves
 * with its supervisor once it finishes. Asks once, for up to a second: a
 * store already gone (rank 0 finished first) is no failure of this rank's.
 *
 * Called from the thread that joined, once this rank's graph finished; does
 * nothing before accel_world_join().
 */
void
accel_world_finish (AccelWorld *world)
{
  g_autofree gchar *key = NULL, *scoped = NULL;
  g_autoptr (GBytes) value = NULL;

  g_return_if_fail (ACCEL_IS_WORLD (world));
  if (world->generation == 0)
    return;
  key = g_strdup_printf ("world/finished/%u", world->rank);
  scoped = scoped_key (world, key);
  value = g_bytes_new_static ("1", 1);
  if (!accel_store_set (world->coordinator, scoped, value,
          MIN (world->timeout_ms, 1000), NULL))
    g_debug ("rank %u could not tell the store it finished", world->rank);
}

/**
 * accel_world_refuse:
 * @world: a world, joined or not
 * @why: why this rank refused its pipeline (its first line is told)
 *
 * Tells the world's store that this rank refused its pipeline (a file
 * that does not load, a stage refused as it starts), so that the other
 * ranks' joins fail at once naming this rank, its machine and @why,
 * rather than waiting out the world's timeout for a rank that does not
 * come. The refusal holds until this rank joins again. Asks once, for up
 * to a second: a coordinator not there yet is not waited for.
 *
 * Called from the thread that made @world.
 */
void
accel_world_refuse (AccelWorld *world, const char *why)
{
  g_autofree gchar *key = NULL, *line = NULL, *text = NULL;
  g_autoptr (GBytes) value = NULL;
  const char *end;

  g_return_if_fail (ACCEL_IS_WORLD (world));
  g_return_if_fail (why != NULL);
  end = strchr (why, '\n');
  line = end ? g_strndup (why, end - why) : g_strdup (why);
  text = g_strdup_printf ("rank %u on %s refused its pipeline: %s%s",
      world->rank, g_get_host_name (), line,
      end ? " (and more: see that rank's output)" : "");
  key = g_strdup_printf ("world/refused/%u", world->rank);
  value = g_bytes_new (text, strlen (text));
  if (!accel_store_set (
          world->coordinator, key, value, MIN (world->timeout_ms, 1000), NULL))
    g_debug ("rank %u could not tell the store it refused its pipeline",
        world->rank);
}

/**
 * accel_world_set:
 * @world: a joined world
 * @key: the key, scoped to the world's generation
 * @value: the value
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when stored. MT safe.
 */
gboolean
accel_world_set (
    AccelWorld *world, const char *key, GBytes *value, GError **error)
{
  g_autofree gchar *scoped = NULL;

  g_return_val_if_fail (ACCEL_IS_WORLD (world), FALSE);
  g_return_val_if_fail (world->generation > 0, FALSE);
  scoped = scoped_key (world, key);
  return accel_store_set (
      world->coordinator, scoped, value, world->timeout_ms, error);
}

/**
 * accel_world_get:
 * @world: a joined world
 * @key: the key, scoped to the world's generation
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the value, waiting up to the world's timeout
 * for a rank to set it; %NULL with %ACCEL_ERROR_TIMEOUT when none does,
 * or with %ACCEL_ERROR_STOPPED once the thread's current cancellable is
 * cancelled (a stage's start () interrupted). MT safe.
 */
GBytes *
accel_world_get (AccelWorld *world, const char *key, GError **error)
{
  g_autofree gchar *scoped = NULL;

  g_return_val_if_fail (ACCEL_IS_WORLD (world), NULL);
  g_return_val_if_fail (world->generation > 0, NULL);
  scoped = scoped_key (world, key);
  return accel_store_get (world->coordinator, scoped, world->timeout_ms, error);
}

/**
 * accel_world_peek:
 * @world: a joined world
 * @key: the key, scoped to the world's generation
 * @error: return location for a #GError, or %NULL
 *
 * Asks the coordinator once for @key, without waiting for a rank to set
 * it.
 *
 * Returns: (transfer full) (nullable): the value; %NULL with @error unset
 * when no rank set it, and with @error set when the coordinator did not
 * answer. MT safe; blocks for one request.
 */
GBytes *
accel_world_peek (AccelWorld *world, const char *key, GError **error)
{
  g_autofree gchar *scoped = NULL;
  g_autoptr (GError) got_error = NULL;
  GBytes *value;

  g_return_val_if_fail (ACCEL_IS_WORLD (world), NULL);
  g_return_val_if_fail (world->generation > 0, NULL);
  scoped = scoped_key (world, key);
  value = accel_store_get (world->coordinator, scoped, 0, &got_error);
  if (!value && !g_error_matches (got_error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT))
    g_propagate_error (error, g_steal_pointer (&got_error));
  return value;
}

/**
 * accel_world_is_left:
 * @world: a joined world
 *
 * Whether some rank has begun a later generation of the world (it was
 * started again after a fault): this generation's communicators will not
 * complete, and a collective waiting on them waits for nothing. Asks the
 * coordinator once, without waiting for it.
 *
 * Returns: %TRUE when this generation was left; %FALSE when it was not, or
 * the coordinator did not answer. MT safe; blocks for one request.
 */
gboolean
accel_world_is_left (AccelWorld *world)
{
  g_autoptr (GBytes) next = NULL;
  g_autofree gchar *scoped = NULL;

  g_return_val_if_fail (ACCEL_IS_WORLD (world), FALSE);
  g_return_val_if_fail (world->generation > 0, FALSE);
  scoped = scoped_key (world, "world/left");
  next = accel_store_get (world->coordinator, scoped, 0, NULL);
  return next != NULL;
}

/**
 * accel_world_agree_min:
 * @world: a joined world
 * @name: what is agreed on, the same on every rank
 * @value: (inout): this rank's value; the least of every rank's on return
 * @error: return location for a #GError, or %NULL
 *
 * Every rank gives its value and takes the least: where a rebuilt world
 * resumes, say (the first frame some rank's sink has not committed).
 *
 * Returns: %TRUE when every rank's value came. Called by every rank, from
 * the thread that starts the graph; blocks up to the world's timeout.
 */
gboolean
accel_world_agree_min (
    AccelWorld *world, const char *name, guint64 *value, GError **error)
{
  g_autofree gchar *mine = NULL;
  g_autoptr (GBytes) bytes = NULL;
  guint64 least = *value;

  g_return_val_if_fail (ACCEL_IS_WORLD (world), FALSE);
  mine = g_strdup_printf ("agree/%s/%u", name, world->rank);
  bytes = g_bytes_new (value, sizeof *value);
  if (!accel_world_set (world, mine, bytes, error))
    return FALSE;
  for (guint r = 0; r < world->size; r++)
    {
      g_autofree gchar *key = g_strdup_printf ("agree/%s/%u", name, r);
      g_autoptr (GBytes) theirs = accel_world_get (world, key, error);
      guint64 v;

      if (!theirs)
        return FALSE;
      if (g_bytes_get_size (theirs) != sizeof v)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
              "rank %u's value of '%s' is %zu bytes, not %zu", r, name,
              g_bytes_get_size (theirs), sizeof v);
          return FALSE;
        }
      memcpy (&v, g_bytes_get_data (theirs, NULL), sizeof v);
      least = MIN (least, v);
    }
  g_debug ("rank %u: '%s' is %" G_GUINT64_FORMAT " here, %" G_GUINT64_FORMAT
           " for the world",
      world->rank, name, *value, least);
  *value = least;
  return TRUE;
}

/**
 * accel_world_substitute:
 * @world: (nullable): a world, or %NULL for a process that runs alone
 *   (rank 0 of 1)
 * @text: a parameter's text
 *
 * Returns: (transfer full): @text with `{rank}` and `{world}` replaced by
 * the rank and the world's size (file names of each rank's own). MT safe.
 */
gchar *
accel_world_substitute (AccelWorld *world, const char *text)
{
  g_autoptr (GString) s = g_string_new (text);
  g_autofree gchar *rank = g_strdup_printf ("%u", world ? world->rank : 0);
  g_autofree gchar *size = g_strdup_printf ("%u", world ? world->size : 1);

  g_string_replace (s, "{rank}", rank, 0);
  g_string_replace (s, "{world}", size, 0);
  return g_string_free (g_steal_pointer (&s), FALSE);
}
