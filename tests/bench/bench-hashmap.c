/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hash map insert and lookup throughput at 2^20 and 2^26 distinct keys, load
 * factor 0.5, 32- and 64-bit keys, against the GPU's copy bandwidth measured
 * in the same run. Traffic counts each key's bytes once: an insert reads a
 * key and a value and reads and writes a slot (6 words), a lookup reads a
 * key and a slot and writes a value (4 words); random slots really move
 * whole 32-byte sectors, so the fraction is a floor */
#include <cuda_runtime_api.h>

#include "accel-test.h"
#include "hashmap/hashmap.h"

typedef struct
{
  AccelHashMap m;
  void *keys, *values, *out;
  size_t n;
} Case;

/* distinct keys: the mixers are bijections of the index */
static gpointer
make_keys (size_t n, int key_bytes)
{
  if (key_bytes == 4)
    {
      guint32 *k = g_new (guint32, n);

      for (size_t i = 0; i < n; i++)
        {
          guint32 x = (guint32)i + 1;

          x ^= x >> 16;
          x *= 0x85ebca6bu;
          x ^= x >> 13;
          x *= 0xc2b2ae35u;
          x ^= x >> 16;
          k[i] = x;
        }
      return k;
    }
  {
    guint64 *k = g_new (guint64, n);

    for (size_t i = 0; i < n; i++)
      {
        guint64 x = i + 1;

        x ^= x >> 31;
        x *= G_GUINT64_CONSTANT (0x7fb5d329728ea185);
        x ^= x >> 27;
        x *= G_GUINT64_CONSTANT (0x81dadef4bc2dd44d);
        x ^= x >> 33;
        k[i] = x;
      }
    return k;
  }
}

static float
elapsed (cudaEvent_t a, cudaEvent_t b)
{
  float ms;

  cudaEventSynchronize (b);
  cudaEventElapsedTime (&ms, a, b);
  return ms;
}

/* the mean of @reps runs after a warm-up, each on a cleared table */
static float
time_insert (cudaStream_t s, Case *c, int reps)
{
  cudaEvent_t a, b;
  float total = 0.0f;

  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (int r = 0; r <= reps; r++)
    {
      accel_hashmap_clear (s, &c->m);
      cudaEventRecord (a, s);
      if (c->m.key_bytes == 4)
        accel_hashmap_insert32 (s, &c->m, c->keys, c->values, c->n);
      else
        accel_hashmap_insert64 (s, &c->m, c->keys, c->values, c->n);
      cudaEventRecord (b, s);
      /* the first run warms up */
      if (r > 0)
        total += elapsed (a, b);
    }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return total / reps;
}

static float
time_lookup (cudaStream_t s, Case *c, int reps)
{
  cudaEvent_t a, b;
  float ms;

  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (int r = -1; r < reps; r++)
    {
      if (r == 0)
        cudaEventRecord (a, s);
      if (c->m.key_bytes == 4)
        accel_hashmap_lookup32 (
            s, &c->m, c->keys, c->out, c->n, ACCEL_HASHMAP_EMPTY32);
      else
        accel_hashmap_lookup64 (
            s, &c->m, c->keys, c->out, c->n, ACCEL_HASHMAP_EMPTY64);
    }
  cudaEventRecord (b, s);
  ms = elapsed (a, b) / reps;
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return ms;
}

static float
time_copy (cudaStream_t s, void *dst, const void *src, size_t bytes, int reps)
{
  cudaEvent_t a, b;
  float ms;

  cudaEventCreate (&a);
  cudaEventCreate (&b);
  cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToDevice, s);
  cudaEventRecord (a, s);
  for (int r = 0; r < reps; r++)
    cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToDevice, s);
  cudaEventRecord (b, s);
  ms = elapsed (a, b) / reps;
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return ms;
}

int
main (int argc, char **argv)
{
  const int shifts[] = { 20, 26 }, widths[] = { 4, 8 };
  const size_t copy_bytes = (size_t)1 << 30;
  void *copy_src, *copy_dst;
  float copy_gbs;
  cudaStream_t s;

  accel_test_require_gpu ();
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  if (cudaMalloc (&copy_src, copy_bytes) != cudaSuccess
      || cudaMalloc (&copy_dst, copy_bytes) != cudaSuccess)
    {
      g_printerr ("out of device memory\n");
      return 1;
    }
  cudaMemset (copy_src, 1, copy_bytes);
  /* a copy reads and writes every byte */
  copy_gbs = 2.0f * copy_bytes / 1e6f
             / time_copy (s, copy_dst, copy_src, copy_bytes, 10);
  cudaFree (copy_src);
  cudaFree (copy_dst);
  g_print ("device-to-device copy: %.0f GB/s\n", copy_gbs);
  g_print ("%5s %4s %8s %12s %10s %8s %12s %10s %8s\n", "keys", "bits",
      "missing", "insert/s", "GB/s", "of copy", "lookup/s", "GB/s", "of copy");

  for (guint i = 0; i < G_N_ELEMENTS (shifts); i++)
    for (guint j = 0; j < G_N_ELEMENTS (widths); j++)
      {
        int w = widths[j];
        size_t n = (size_t)1 << shifts[i];
        guint64 capacity = accel_hashmap_capacity_for (n, 0.5);
        g_autofree gpointer keys = make_keys (n, w);
        AccelHashMapCounters counters;
        Case c = { { 0 } };
        void *block;
        float ins_ms, look_ms, ins_gbs, look_gbs;

        c.n = n;
        if (cudaMalloc (&block, accel_hashmap_size (capacity, w)) != cudaSuccess
            || cudaMalloc (&c.keys, n * w) != cudaSuccess
            || cudaMalloc (&c.values, n * w) != cudaSuccess
            || cudaMalloc (&c.out, n * w) != cudaSuccess)
          {
            g_printerr ("out of device memory at 2^%d keys\n", shifts[i]);
            return 1;
          }
        accel_hashmap_init (&c.m, block, capacity, w);
        cudaMemcpy (c.keys, keys, n * w, cudaMemcpyHostToDevice);
        /* values: the keys again, any bits do */
        cudaMemcpy (c.values, keys, n * w, cudaMemcpyHostToDevice);

        ins_ms = time_insert (s, &c, 5);
        cudaMemcpy (
            &counters, c.m.counters, sizeof (counters), cudaMemcpyDeviceToHost);
        look_ms = time_lookup (s, &c, 10);
        ins_gbs = 6.0f * w * n / 1e6f / ins_ms;
        look_gbs = 4.0f * w * n / 1e6f / look_ms;
        g_print ("2^%-3d %4d %8" G_GUINT64_FORMAT " %12.3g %10.0f %7.0f%% "
                 "%12.3g %10.0f %7.0f%%\n",
            shifts[i], 8 * w, n - counters.live, n / (ins_ms * 1e-3), ins_gbs,
            100.0f * ins_gbs / copy_gbs, n / (look_ms * 1e-3), look_gbs,
            100.0f * look_gbs / copy_gbs);
        cudaFree (block);
        cudaFree (c.keys);
        cudaFree (c.values);
        cudaFree (c.out);
      }
  cudaStreamDestroy (s);
  return 0;
}
