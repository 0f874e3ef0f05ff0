/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: injected faults, for the engine's own tests and chaos testing */
#define G_LOG_DOMAIN "accel-fault"

#include "accel-private.h"
#include "core/fault.h"

#include <signal.h>
#include <unistd.h>

typedef struct
{
  gchar *stage;
  AccelFaultKind kind;
  guint64 sequence;
} Fault;

static GMutex lock;
static GArray *faults; /* Fault, each fires once */
static gint n_pending; /* atomic: a fast check on the hot path */

static const char *const kind_names[] = {
  [ACCEL_FAULT_ILLEGAL_ADDRESS] = "illegal-address",
  [ACCEL_FAULT_OUT_OF_MEMORY] = "oom",
  [ACCEL_FAULT_LIBRARY] = "library",
  [ACCEL_FAULT_INVALID_INPUT] = "invalid-input",
  [ACCEL_FAULT_HANG] = "hang",
  [ACCEL_FAULT_CRASH] = "crash",
};

/**
 * accel_fault_inject:
 * @stage_name: the stage that faults
 * @kind: what goes wrong
 * @sequence: the frame it goes wrong at
 *
 * Schedules one fault: when @stage_name processes frame @sequence, the fault
 * happens instead of (or, for a hang, during) its work. MT safe.
 */
void
accel_fault_inject (
    const char *stage_name, AccelFaultKind kind, guint64 sequence)
{
  Fault f = { g_strdup (stage_name), kind, sequence };

  g_mutex_lock (&lock);
  if (!faults)
    faults = g_array_new (FALSE, FALSE, sizeof (Fault));
  g_array_append_val (faults, f);
  g_atomic_int_inc (&n_pending);
  g_mutex_unlock (&lock);
}

/**
 * accel_fault_inject_parse:
 * @spec: "stage:kind:sequence[:worker][,...]", kinds illegal-address, oom,
 *   library, invalid-input, hang, crash; the optional worker is the
 *   supervised worker's generation the fault is for (default 1, the first)
 * @error: return location for a #GError, or %NULL
 *
 * The format of the `ACCEL_FAULT` environment variable, which graphs read
 * when they start.
 *
 * Returns: %FALSE, scheduling nothing, when @spec is malformed. MT safe.
 */
gboolean
accel_fault_inject_parse (const char *spec, GError **error)
{
  g_auto (GStrv) items = g_strsplit (spec, ",", -1);
  g_autoptr (GArray) parsed = g_array_new (FALSE, FALSE, sizeof (Fault));

  for (guint i = 0; items[i]; i++)
    {
      g_auto (GStrv) parts = g_strsplit (items[i], ":", 4);
      Fault f = { NULL, 0, 0 };
      gboolean known = FALSE;
      guint64 generation = 1;

      if (!*g_strstrip (items[i]))
        continue;
      if (g_strv_length (parts) < 3
          || !g_ascii_string_to_unsigned (
              parts[2], 10, 0, G_MAXUINT64, &f.sequence, NULL)
          || (parts[3]
              && !g_ascii_string_to_unsigned (
                  parts[3], 10, 1, G_MAXUINT, &generation, NULL)))
        goto invalid;
      for (guint k = 0; k < G_N_ELEMENTS (kind_names); k++)
        if (g_str_equal (parts[1], kind_names[k]))
          {
            f.kind = (AccelFaultKind)k;
            known = TRUE;
          }
      if (!known)
        goto invalid;
      /* a supervised run's later workers get the faults meant for them */
      if (generation != accel_supervisor_get_generation ())
        continue;
      f.stage = g_strdup (parts[0]);
      g_array_append_val (parsed, f);
      continue;

    invalid:
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "fault '%s' is not stage:kind:sequence[:worker] with kind one of "
          "illegal-address, oom, library, invalid-input, hang, crash",
          items[i]);
      for (guint j = 0; j < parsed->len; j++)
        g_free (g_array_index (parsed, Fault, j).stage);
      return FALSE;
    }
  for (guint i = 0; i < parsed->len; i++)
    {
      Fault *f = &g_array_index (parsed, Fault, i);
      accel_fault_inject (f->stage, f->kind, f->sequence);
      g_free (f->stage);
    }
  return TRUE;
}

/**
 * accel_fault_clear:
 *
 * Drops every fault that has not fired yet. MT safe.
 */
void
accel_fault_clear (void)
{
  g_mutex_lock (&lock);
  for (guint i = 0; faults && i < faults->len; i++)
    g_free (g_array_index (faults, Fault, i).stage);
  if (faults)
    g_array_set_size (faults, 0);
  g_atomic_int_set (&n_pending, 0);
  g_mutex_unlock (&lock);
}

/* the stages that faults still wait for, each once */
gchar **
accel_fault_dup_stages (void)
{
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  g_mutex_lock (&lock);
  for (guint i = 0; faults && i < faults->len; i++)
    {
      const char *stage = g_array_index (faults, Fault, i).stage;
      if (g_hash_table_add (seen, (gpointer)stage))
        g_strv_builder_add (names, stage);
    }
  g_mutex_unlock (&lock);
  return g_strv_builder_end (names);
}

static gboolean
take (const char *stage, guint64 sequence, AccelFaultKind *kind)
{
  gboolean found = FALSE;

  g_mutex_lock (&lock);
  for (guint i = 0; faults && i < faults->len && !found; i++)
    {
      Fault *f = &g_array_index (faults, Fault, i);
      if (f->sequence == sequence && g_str_equal (f->stage, stage))
        {
          *kind = f->kind;
          g_free (f->stage);
          g_array_remove_index (faults, i);
          g_atomic_int_add (&n_pending, -1);
          found = TRUE;
        }
    }
  g_mutex_unlock (&lock);
  return found;
}

/* whether a hang waits to be injected into @stage */
gboolean
accel_fault_has_hang (const char *stage)
{
  gboolean found = FALSE;

  g_mutex_lock (&lock);
  for (guint i = 0; faults && i < faults->len && !found; i++)
    {
      Fault *f = &g_array_index (faults, Fault, i);
      found = f->kind == ACCEL_FAULT_HANG && g_str_equal (f->stage, stage);
    }
  g_mutex_unlock (&lock);
  return found;
}

/* called for every frame: fires the fault scheduled for it, if any; a hang
 * only delays, the others set @error. Returns FALSE when @error is set */
/* whether a fault waits to be injected: a frame that may meet it runs
 * with stream launches, where the fault can land */
gboolean
accel_fault_pending (void)
{
  return g_atomic_int_get (&n_pending) > 0;
}

gboolean
accel_fault_fire (const char *name, AccelStream *stream, guint64 sequence,
    gint64 hang_us, GError **error)
{
  AccelFaultKind kind;

  if (G_LIKELY (g_atomic_int_get (&n_pending) == 0)
      || !take (name, sequence, &kind))
    return TRUE;

  g_debug ("stage '%s': injecting %s at sequence %" G_GUINT64_FORMAT, name,
      kind_names[kind], sequence);
  switch (kind)
    {
    case ACCEL_FAULT_ILLEGAL_ADDRESS:
      if (accel_stream_get_handle (stream))
        {
          /* a real sticky error; the next CUDA call reports it */
          accel_fault_illegal_address_launch (accel_stream_get_handle (stream));
          return accel_cuda_check (
              cudaStreamSynchronize (accel_stream_get_handle (stream)), error);
        }
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
          "injected illegal address (simulated on the host)");
      return FALSE;
    case ACCEL_FAULT_OUT_OF_MEMORY:
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
          "injected allocation failure");
      return FALSE;
    case ACCEL_FAULT_LIBRARY:
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY,
          "injected library error (STATUS_INTERNAL_ERROR)");
      return FALSE;
    case ACCEL_FAULT_INVALID_INPUT:
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "injected invalid input");
      return FALSE;
    case ACCEL_FAULT_HANG:
      g_usleep ((gulong)hang_us);
      return TRUE;
    case ACCEL_FAULT_CRASH:
      kill (getpid (), SIGKILL);
      return TRUE;
    }
  return TRUE;
}

/* whether ACCEL_FAULT is this process's: ACCEL_FAULT_RANK=r keeps it to
 * rank r of the world (a process alone is rank 0), under --ranks and
 * --coordinator alike (it was kept from the other ranks' workers by the
 * supervisor of --ranks alone); a value that names no rank of the world
 * is said, and fires nothing (it fired nothing, silently) */
static gboolean
fault_is_this_ranks (void)
{
  const char *want = g_getenv ("ACCEL_FAULT_RANK");
  AccelWorld *world = accel_world_get_default ();
  guint size = world ? accel_world_get_size (world) : 1;
  guint rank = world ? accel_world_get_rank (world) : 0;
  guint64 r;

  if (!want)
    return TRUE;
  if (!g_ascii_string_to_unsigned (want, 10, 0, G_MAXUINT, &r, NULL)
      || r >= size)
    {
      g_warning ("ACCEL_FAULT_RANK=%s is no rank of this world of %u: "
                 "ACCEL_FAULT fires nowhere",
          want, size);
      return FALSE;
    }
  return r == rank;
}

/* the ACCEL_FAULT environment variable, read once */
void
accel_fault_init_from_env (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      const char *spec = g_getenv ("ACCEL_FAULT");
      g_autoptr (GError) error = NULL;
      if (spec && *spec && fault_is_this_ranks ()
          && !accel_fault_inject_parse (spec, &error))
        g_warning ("ACCEL_FAULT: %s", error->message);
      g_once_init_leave (&done, 1);
    }
}
