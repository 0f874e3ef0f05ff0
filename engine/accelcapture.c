/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: CUDA graphs of captured stage work, kept per key (the stages, their
 * parameters' generation and their buffers' addresses) and replayed with one
 * launch. A key seen before replays its graph; a new key is captured, and
 * once the cache is full it updates the least recently used executable
 * graph in place (cudaGraphExecUpdate), which costs less than a new one */
#define G_LOG_DOMAIN "accel-capture"

#include "accel-private.h"

#include <string.h>

typedef struct
{
  guint64 hash;
  guint64 *key;
  guint n_words;
  cudaGraphExec_t exec;
  guint64 used; /* the cache's clock at the last launch */
} CacheEntry;

struct _AccelCaptureCache
{
  guint capacity;
  GArray *entries; /* CacheEntry */
  guint64 clock;
  guint64 n_captures, n_updates, n_replays;
};

static void
entry_clear (CacheEntry *entry)
{
  g_clear_pointer (&entry->key, g_free);
  if (entry->exec)
    cudaGraphExecDestroy (entry->exec);
  entry->exec = NULL;
}

AccelCaptureCache *
accel_capture_cache_new (guint capacity)
{
  AccelCaptureCache *cache = g_new0 (AccelCaptureCache, 1);

  cache->capacity = MAX (capacity, 1);
  cache->entries = g_array_new (FALSE, TRUE, sizeof (CacheEntry));
  g_array_set_clear_func (cache->entries, (GDestroyNotify)entry_clear);
  return cache;
}

/* the device must be current and no graph of the cache running */
void
accel_capture_cache_free (AccelCaptureCache *cache)
{
  if (!cache)
    return;
  g_debug ("cache %p: %" G_GUINT64_FORMAT " replays, %" G_GUINT64_FORMAT
           " captures, %" G_GUINT64_FORMAT " of them updates in place",
      cache, cache->n_replays, cache->n_captures, cache->n_updates);
  g_array_unref (cache->entries);
  g_free (cache);
}

static guint64
capture_hash (const guint64 *key, guint n_words)
{
  guint64 h = 0xcbf29ce484222325ull;

  for (guint i = 0; i < n_words; i++)
    h = (h ^ key[i]) * 0x100000001b3ull;
  return h;
}

static CacheEntry *
lookup (AccelCaptureCache *cache, const guint64 *key, guint n_words)
{
  guint64 hash = capture_hash (key, n_words);

  for (guint i = 0; i < cache->entries->len; i++)
    {
      CacheEntry *e = &g_array_index (cache->entries, CacheEntry, i);
      if (e->hash == hash && e->n_words == n_words
          && memcmp (e->key, key, n_words * sizeof (guint64)) == 0)
        return e;
    }
  return NULL;
}

static gboolean
launch (AccelCaptureCache *cache, CacheEntry *entry, AccelStream *stream,
    GError **error)
{
  entry->used = ++cache->clock;
  return accel_cuda_check (
      cudaGraphLaunch (entry->exec, accel_stream_get_handle (stream)), error);
}

/**
 * accel_capture_cache_replay:
 * @cache: a cache
 * @key: (array length=n_words): what identifies the work
 * @n_words: words in @key
 * @stream: where to launch
 * @error: return location for a #GError, or %NULL
 *
 * Launches the graph captured for @key, if there is one.
 *
 * Returns: %TRUE and sets @hit when there was one (%FALSE in @hit: capture
 * it); %FALSE when the launch failed. Thread of the cache's stages.
 */
gboolean
accel_capture_cache_replay (AccelCaptureCache *cache, const guint64 *key,
    guint n_words, AccelStream *stream, gboolean *hit, GError **error)
{
  CacheEntry *entry = lookup (cache, key, n_words);

  *hit = entry != NULL;
  if (!entry)
    return TRUE;
  cache->n_replays++;
  return launch (cache, entry, stream, error);
}

/**
 * accel_capture_begin:
 * @stream: the stream whose work to capture
 * @error: return location for a #GError, or %NULL
 *
 * From now on work enqueued on @stream by this thread is recorded, not run.
 * Capture is thread-local: other threads' allocations go on.
 */
gboolean
accel_capture_begin (AccelStream *stream, GError **error)
{
  return accel_cuda_check (
      cudaStreamBeginCapture (
          accel_stream_get_handle (stream), cudaStreamCaptureModeThreadLocal),
      error);
}

/* whether the capture on @stream is still good: a call that cannot be
 * captured invalidates it */
gboolean
accel_capture_is_valid (AccelStream *stream)
{
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;

  return cudaStreamIsCapturing (accel_stream_get_handle (stream), &status)
             == cudaSuccess
         && status == cudaStreamCaptureStatusActive;
}

/* an executable graph for @graph: a new one while there is room, else the
 * least recently used one updated in place */
static CacheEntry *
make_exec (AccelCaptureCache *cache, cudaGraph_t graph, GError **error)
{
  CacheEntry fresh = { 0 };
  CacheEntry *lru = NULL;

  if (cache->entries->len >= cache->capacity)
    {
      cudaGraphExecUpdateResultInfo info;

      for (guint i = 0; i < cache->entries->len; i++)
        {
          CacheEntry *e = &g_array_index (cache->entries, CacheEntry, i);
          if (!lru || e->used < lru->used)
            lru = e;
        }
      g_clear_pointer (&lru->key, g_free);
      if (cudaGraphExecUpdate (lru->exec, graph, &info) == cudaSuccess)
        {
          cache->n_updates++;
          return lru;
        }
      /* another topology: a new executable graph in its place */
      cudaGetLastError ();
      cudaGraphExecDestroy (lru->exec);
      lru->exec = NULL;
      if (!accel_cuda_check (
              cudaGraphInstantiate (&lru->exec, graph, 0), error))
        {
          g_array_remove_index_fast (
              cache->entries, lru - (CacheEntry *)cache->entries->data);
          return NULL;
        }
      return lru;
    }
  if (!accel_cuda_check (cudaGraphInstantiate (&fresh.exec, graph, 0), error))
    return NULL;
  g_array_append_val (cache->entries, fresh);
  return &g_array_index (cache->entries, CacheEntry, cache->entries->len - 1);
}

/**
 * accel_capture_end:
 * @cache: where to keep the graph
 * @stream: the capturing stream
 * @key: (array length=n_words): what identifies the work captured
 * @n_words: words in @key
 * @error: return location for a #GError, or %NULL
 *
 * Ends the capture begun by accel_capture_begin(), keeps the graph under
 * @key and launches it. With @key %NULL the capture is thrown away (a stage
 * failed while it ran).
 *
 * Returns: %FALSE when the capture could not be made (the work was not
 * run: run it with stream launches) or its launch failed.
 */
gboolean
accel_capture_end (AccelCaptureCache *cache, AccelStream *stream,
    const guint64 *key, guint n_words, GError **error)
{
  cudaGraph_t graph = NULL;
  CacheEntry *entry;
  cudaError_t status;

  status = cudaStreamEndCapture (accel_stream_get_handle (stream), &graph);
  if (!key || status != cudaSuccess)
    {
      if (graph)
        cudaGraphDestroy (graph);
      /* a capture error is not sticky: clear it for the next call */
      cudaGetLastError ();
      return key ? accel_cuda_check (status, error) : FALSE;
    }
  entry = make_exec (cache, graph, error);
  cudaGraphDestroy (graph);
  if (!entry)
    return FALSE;
  entry->n_words = n_words;
  entry->key = g_memdup2 (key, n_words * sizeof (guint64));
  entry->hash = capture_hash (key, n_words);
  cache->n_captures++;
  return launch (cache, entry, stream, error);
}
