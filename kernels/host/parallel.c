/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* row bands of the host references on a GLib thread pool.
 *
 * A GLib pool rather than OpenMP: every stage of a graph runs on a thread
 * of its own and may split a frame at the same time as the others; OpenMP
 * would give each calling thread a team of its own (stages x cores threads,
 * spinning between frames), while one pool of cores - 1 threads bounds the
 * whole process, and its threads sleep when idle. */
#define G_LOG_DOMAIN "accel-host"

#include <glib.h>

#include "parallel.h"

/* a band finer than this costs more in wake-ups than it saves */
#define MIN_BAND_BYTES (64 * 1024)
/* bands per thread: spare bands even out threads slowed by other stages */
#define BANDS_PER_THREAD 3
/* what ACCEL_HOST_THREADS may ask for */
#define MAX_THREADS 1024

typedef struct
{
  gatomicrefcount ref;
  AccelHostRowsFunc fn;
  void *data;
  int rows;
  int bands;
  gint next; /* the next band to take, atomic */
  GMutex lock;
  GCond finished;
  int done; /* bands finished, under lock */
} Job;

static GThreadPool *pool;
static int threads;

static void
job_unref (Job *job)
{
  if (!g_atomic_ref_count_dec (&job->ref))
    return;
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->finished);
  g_free (job);
}

static int
band_start (const Job *job, int band)
{
  return (int)((gint64)job->rows * band / job->bands);
}

/* takes bands until none is left; the caller and every pool thread run
 * this, so a band is run once, by whoever comes first */
static void
job_run_bands (Job *job)
{
  int band, ran = 0;

  while ((band = g_atomic_int_add (&job->next, 1)) < job->bands)
    {
      job->fn (job->data, band_start (job, band), band_start (job, band + 1));
      ran++;
    }
  if (ran == 0)
    return;
  g_mutex_lock (&job->lock);
  job->done += ran;
  if (job->done == job->bands)
    g_cond_signal (&job->finished);
  g_mutex_unlock (&job->lock);
}

static void
pool_run (gpointer job, gpointer unused)
{
  (void)unused;
  job_run_bands (job);
  job_unref (job);
}

static void
pool_init (void)
{
  static gsize initialized;

  if (!g_once_init_enter (&initialized))
    return;
  {
    const char *env = g_getenv ("ACCEL_HOST_THREADS");
    gint64 n = 0;

    threads = (int)g_get_num_processors ();
    if (env && !g_ascii_string_to_signed (env, 10, 1, MAX_THREADS, &n, NULL))
      g_warning ("ACCEL_HOST_THREADS=%s is not a count from 1 to %d: the "
                 "host backend uses the %d cores",
          env, MAX_THREADS, threads);
    if (n >= 1)
      threads = (int)n;
    /* not exclusive: the threads sleep, and go, when no frame needs them */
    if (threads > 1)
      pool = g_thread_pool_new (pool_run, NULL, threads - 1, FALSE, NULL);
    if (!pool)
      threads = 1;
  }
  g_once_init_leave (&initialized, 1);
}

int
accel_host_threads (void)
{
  pool_init ();
  return threads;
}

int
accel_host_min_rows (size_t row_bytes)
{
  size_t rows = MIN_BAND_BYTES / (row_bytes ? row_bytes : 1);

  return rows < 1 ? 1 : (int)MIN (rows, (size_t)G_MAXINT);
}

void
accel_host_parallel_rows (
    int rows, int min_rows, AccelHostRowsFunc fn, void *data)
{
  int bands, helpers;
  Job *job;

  if (rows <= 0)
    return;
  pool_init ();
  bands = rows / MAX (min_rows, 1);
  bands = CLAMP (bands, 1, threads * BANDS_PER_THREAD);
  if (bands == 1)
    {
      fn (data, 0, rows);
      return;
    }

  job = g_new0 (Job, 1);
  g_atomic_ref_count_init (&job->ref);
  job->fn = fn;
  job->data = data;
  job->rows = rows;
  job->bands = bands;
  g_mutex_init (&job->lock);
  g_cond_init (&job->finished);

  /* a push that fails leaves its bands to the caller */
  helpers = MIN (bands - 1, threads - 1);
  for (int i = 0; i < helpers; i++)
    {
      g_atomic_ref_count_inc (&job->ref);
      if (!g_thread_pool_push (pool, job, NULL))
        job_unref (job);
    }

  job_run_bands (job);
  /* what is left runs on pool threads that took a band: bounded by that
   * band's work, never by the pool's queue */
  g_mutex_lock (&job->lock);
  while (job->done < job->bands)
    g_cond_wait (&job->finished, &job->lock);
  g_mutex_unlock (&job->lock);
  job_unref (job);
}
