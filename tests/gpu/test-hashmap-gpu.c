/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the hash map on the GPU against the host reference: the same keys after
 * inserts, erases and rehashes, the same counts, lookups that agree, and
 * values that agree where a batch held a key once (else one of its values) */
#include <cuda_runtime_api.h>

#include "accel-test.h"
#include "hashmap/hashmap.h"

static void
check (int status)
{
  g_assert_cmpstr (
      cudaGetErrorString (status), ==, cudaGetErrorString (cudaSuccess));
}

typedef struct
{
  int key_bytes;
  gsize n;
} Case;

/* a map on both sides, and the GPU's copied back */
typedef struct
{
  int key_bytes;
  guint64 capacity;
  AccelHashMap dev, host, back;
  gpointer dev_block, host_block, back_block;
  cudaStream_t stream;
} Pair;

static void
pair_init (Pair *p, guint64 capacity, int key_bytes, cudaStream_t stream)
{
  gsize size = accel_hashmap_size (capacity, key_bytes);

  p->key_bytes = key_bytes;
  p->capacity = capacity;
  p->stream = stream;
  check (cudaMalloc (&p->dev_block, size));
  /* poison: clear must reach every slot */
  check (cudaMemset (p->dev_block, 0xcd, size));
  /* done before the map's non-blocking stream starts on it */
  check (cudaDeviceSynchronize ());
  p->host_block = g_malloc (size);
  p->back_block = g_malloc (size);
  accel_hashmap_init (&p->dev, p->dev_block, capacity, key_bytes);
  accel_hashmap_init (&p->host, p->host_block, capacity, key_bytes);
  accel_hashmap_init (&p->back, p->back_block, capacity, key_bytes);
  check (accel_hashmap_clear (stream, &p->dev));
  accel_hashmap_clear_host (&p->host);
}

static void
pair_free (Pair *p)
{
  cudaFree (p->dev_block);
  g_free (p->host_block);
  g_free (p->back_block);
}

static void
pair_fetch (Pair *p)
{
  check (cudaMemcpyAsync (p->back_block, p->dev_block,
      accel_hashmap_size (p->capacity, p->key_bytes), cudaMemcpyDeviceToHost,
      p->stream));
  check (cudaStreamSynchronize (p->stream));
}

/* keys and values of either width, from 64-bit arrays, on the device */
static gpointer
upload (const guint64 *a, gsize n, int key_bytes)
{
  g_autofree guint32 *narrow = g_new (guint32, n + 1);
  gpointer dev;

  for (gsize i = 0; i < n; i++)
    narrow[i] = (guint32)a[i];
  check (cudaMalloc (&dev, (n + 1) * key_bytes));
  check (cudaMemcpy (dev, key_bytes == 4 ? (gpointer)narrow : (gpointer)a,
      n * key_bytes, cudaMemcpyHostToDevice));
  /* a copy from pageable memory may still be in flight when it returns */
  check (cudaDeviceSynchronize ());
  return dev;
}

static void
insert (Pair *p, const guint64 *keys, const guint64 *values, gsize n)
{
  gpointer dk = upload (keys, n, p->key_bytes);
  gpointer dv = upload (values, n, p->key_bytes);
  g_autofree guint32 *k = g_new (guint32, n + 1), *v = g_new (guint32, n + 1);

  if (p->key_bytes == 8)
    {
      check (accel_hashmap_insert64 (p->stream, &p->dev, dk, dv, n));
      accel_hashmap_insert64_host (&p->host, keys, values, n);
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        {
          k[i] = (guint32)keys[i];
          v[i] = (guint32)values[i];
        }
      check (accel_hashmap_insert32 (p->stream, &p->dev, dk, dv, n));
      accel_hashmap_insert32_host (&p->host, k, v, n);
    }
  check (cudaStreamSynchronize (p->stream));
  cudaFree (dk);
  cudaFree (dv);
}

static void
erase (Pair *p, const guint64 *keys, gsize n)
{
  gpointer dk = upload (keys, n, p->key_bytes);
  g_autofree guint32 *k = g_new (guint32, n + 1);

  if (p->key_bytes == 8)
    {
      check (accel_hashmap_erase64 (p->stream, &p->dev, dk, n));
      accel_hashmap_erase64_host (&p->host, keys, n);
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        k[i] = (guint32)keys[i];
      check (accel_hashmap_erase32 (p->stream, &p->dev, dk, n));
      accel_hashmap_erase32_host (&p->host, k, n);
    }
  check (cudaStreamSynchronize (p->stream));
  cudaFree (dk);
}

/* GPU lookups into @gpu, host lookups into @host, widened; absent keys
 * read as the empty key, which no value here equals */
static void
lookup (Pair *p, const guint64 *keys, gsize n, guint64 *gpu, guint64 *host)
{
  gpointer dk = upload (keys, n, p->key_bytes), dv;
  g_autofree guint32 *k = g_new (guint32, n + 1), *v = g_new (guint32, n + 1);

  check (cudaMalloc (&dv, (n + 1) * p->key_bytes));
  check (cudaMemset (dv, 0xcd, (n + 1) * p->key_bytes));
  check (cudaDeviceSynchronize ());
  if (p->key_bytes == 8)
    {
      check (accel_hashmap_lookup64 (
          p->stream, &p->dev, dk, dv, n, ACCEL_HASHMAP_EMPTY64));
      accel_hashmap_lookup64_host (
          &p->host, keys, host, n, ACCEL_HASHMAP_EMPTY64);
      check (
          cudaMemcpyAsync (gpu, dv, n * 8, cudaMemcpyDeviceToHost, p->stream));
      check (cudaStreamSynchronize (p->stream));
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        k[i] = (guint32)keys[i];
      check (accel_hashmap_lookup32 (
          p->stream, &p->dev, dk, dv, n, ACCEL_HASHMAP_EMPTY32));
      check (cudaMemcpyAsync (v, dv, n * 4, cudaMemcpyDeviceToHost, p->stream));
      check (cudaStreamSynchronize (p->stream));
      for (gsize i = 0; i < n; i++)
        gpu[i] = v[i] == ACCEL_HASHMAP_EMPTY32 ? ACCEL_HASHMAP_EMPTY64 : v[i];
      accel_hashmap_lookup32_host (&p->host, k, v, n, ACCEL_HASHMAP_EMPTY32);
      for (gsize i = 0; i < n; i++)
        host[i] = v[i] == ACCEL_HASHMAP_EMPTY32 ? ACCEL_HASHMAP_EMPTY64 : v[i];
    }
  cudaFree (dk);
  cudaFree (dv);
}

/* values name the batch and the index in it that carried them */
#define BATCH_SHIFT 24
#define INDEX_MASK ((G_GUINT64_CONSTANT (1) << BATCH_SHIFT) - 1)

typedef struct
{
  guint64 *batches[8]; /* the keys of each insert batch */
} History;

/* @gpu is a value that one of @key's copies in the batch that gave @host
 * its value carried */
static void
assert_value (const History *h, guint64 key, guint64 gpu, guint64 host)
{
  guint64 b = gpu >> BATCH_SHIFT;

  if (gpu == host)
    return;
  g_assert_cmpuint (b, ==, host >> BATCH_SHIFT);
  g_assert_cmpuint (h->batches[b][gpu & INDEX_MASK], ==, key);
}

static guint64
count_tombstones (const AccelHashMap *m)
{
  guint64 n = 0;

  for (guint64 i = 0; i < m->capacity; i++)
    n += m->key_bytes == 4
             ? ((const guint32 *)m->slots)[2 * i] == ACCEL_HASHMAP_TOMBSTONE32
             : ((const guint64 *)m->slots)[2 * i] == ACCEL_HASHMAP_TOMBSTONE64;
  return n;
}

/* the same live, failed and rejected counts, the same keys, agreeing values */
static void
assert_same (Pair *p, const History *h)
{
  AccelHashMapCounters *g, *c = p->host.counters;
  guint64 live;

  pair_fetch (p);
  g = p->back.counters;
  g_assert_cmpuint (g->live, ==, c->live);
  /* keys land in other slots than on the host, so later erases leave
   * tombstones elsewhere and inserts reuse a different number of them: the
   * count need only match the GPU's own slots */
  g_assert_cmpuint (g->tombstones, ==, count_tombstones (&p->back));
  g_assert_cmpuint (c->tombstones, ==, count_tombstones (&p->host));
  g_assert_cmpuint (g->failed, ==, c->failed);
  g_assert_cmpuint (g->rejected, ==, c->rejected);
  live = c->live;
  {
    g_autofree guint64 *keys = g_new (guint64, live + 1);
    g_autofree guint64 *vals = g_new (guint64, live + 1);
    g_autofree guint64 *want = g_new (guint64, live + 1);

    g_assert_cmpuint (
        accel_hashmap_entries_host (&p->back, keys, vals), ==, live);
    /* every key the GPU holds, the host holds */
    if (p->key_bytes == 8)
      accel_hashmap_lookup64_host (
          &p->host, keys, want, live, ACCEL_HASHMAP_EMPTY64);
    else
      for (guint64 i = 0; i < live; i++)
        {
          guint32 k = (guint32)keys[i], v;

          accel_hashmap_lookup32_host (
              &p->host, &k, &v, 1, ACCEL_HASHMAP_EMPTY32);
          want[i] = v == ACCEL_HASHMAP_EMPTY32 ? ACCEL_HASHMAP_EMPTY64 : v;
        }
    for (guint64 i = 0; i < live; i++)
      {
        g_assert_cmpuint (want[i], !=, ACCEL_HASHMAP_EMPTY64);
        if (h)
          assert_value (h, keys[i], vals[i], want[i]);
        else
          g_assert_cmpuint (vals[i], ==, want[i]);
      }
  }
}

static guint64
random_key (int key_bytes)
{
  guint64 k = ((guint64)g_test_rand_int () << 32) | (guint32)g_test_rand_int ();

  k = key_bytes == 4 ? (guint32)k : k;
  return k >= (key_bytes == 4 ? ACCEL_HASHMAP_TOMBSTONE32
                              : ACCEL_HASHMAP_TOMBSTONE64)
             ? 0
             : k;
}

static void
test_random (gconstpointer data)
{
  const Case *c = data;
  gsize n = c->n, n_pool = 2 * n + 2;
  g_autofree guint64 *pool = g_new (guint64, n_pool);
  g_autofree guint64 *values = g_new (guint64, n);
  g_autofree guint64 *gpu = g_new (guint64, n_pool);
  g_autofree guint64 *host = g_new (guint64, n_pool);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  History h = { { 0 } };
  cudaStream_t stream;
  Pair p, big;

  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (gsize i = 0; i < n_pool; i++)
    do
      pool[i] = random_key (c->key_bytes);
    while (!g_hash_table_add (seen, &pool[i]));
  pair_init (
      &p, accel_hashmap_capacity_for (n_pool, 0.5), c->key_bytes, stream);

  for (guint round = 0; round < 4; round++)
    {
      /* drawn from a part of the pool: repeats within a batch, and keys
       * inserted again after being erased */
      gsize range = MAX (1, n / 2 + round * n / 3);

      h.batches[round] = g_new (guint64, n);
      for (gsize i = 0; i < n; i++)
        {
          h.batches[round][i] = pool[g_test_rand_int_range (0, range)];
          values[i] = ((guint64)round << BATCH_SHIFT) | i;
        }
      insert (&p, h.batches[round], values, n);
      assert_same (&p, &h);

      lookup (&p, pool, n_pool, gpu, host);
      for (gsize i = 0; i < n_pool; i++)
        {
          g_assert_cmpuint (gpu[i] == ACCEL_HASHMAP_EMPTY64, ==,
              host[i] == ACCEL_HASHMAP_EMPTY64);
          if (host[i] != ACCEL_HASHMAP_EMPTY64)
            assert_value (&h, pool[i], gpu[i], host[i]);
        }

      /* erase a third, repeats and absent keys among them */
      for (gsize i = 0; i < n; i++)
        values[i] = pool[g_test_rand_int_range (0, n_pool)];
      erase (&p, values, MAX (1, n / 3));
      assert_same (&p, &h);
    }
  g_assert_cmpuint (p.back.counters->failed, ==, 0);

  /* into a map twice the size: the same keys and values, no tombstones */
  pair_init (&big, 2 * p.capacity, c->key_bytes, stream);
  check (accel_hashmap_rehash (stream, &p.dev, &big.dev));
  accel_hashmap_rehash_host (&p.host, &big.host);
  assert_same (&big, &h);
  g_assert_cmpuint (big.back.counters->tombstones, ==, 0);
  g_assert_cmpuint (big.back.counters->live, ==, p.back.counters->live);

  for (guint round = 0; round < 4; round++)
    g_free (h.batches[round]);
  pair_free (&p);
  pair_free (&big);
  cudaStreamDestroy (stream);
}

/* which keys take the last slots depends on timing: the counts do not */
static void
test_full_table (gconstpointer data)
{
  int key_bytes = GPOINTER_TO_INT (data);
  guint64 keys[100], values[100], gpu[100], host[100];
  guint found = 0;
  cudaStream_t stream;
  Pair p;

  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  pair_init (&p, 64, key_bytes, stream);
  for (int i = 0; i < 100; i++)
    {
      keys[i] = (guint64)i * 7919 + 3;
      values[i] = 1000 + i;
    }
  insert (&p, keys, values, 100);
  pair_fetch (&p);
  g_assert_cmpuint (p.back.counters->live, ==, 64);
  g_assert_cmpuint (p.back.counters->failed, ==, 36);
  lookup (&p, keys, 100, gpu, host);
  for (int i = 0; i < 100; i++)
    if (gpu[i] != ACCEL_HASHMAP_EMPTY64)
      {
        g_assert_cmpuint (gpu[i], ==, values[i]);
        found++;
      }
  g_assert_cmpuint (found, ==, 64);
  /* erased slots are taken again */
  erase (&p, keys, 100);
  pair_fetch (&p);
  g_assert_cmpuint (p.back.counters->live, ==, 0);
  g_assert_cmpuint (p.back.counters->tombstones, ==, 64);
  insert (&p, keys, values, 10);
  pair_fetch (&p);
  g_assert_cmpuint (p.back.counters->live, ==, 10);
  g_assert_cmpuint (p.back.counters->tombstones, ==, 54);
  pair_free (&p);
  cudaStreamDestroy (stream);
}

/* reserved keys among the input, and one key repeated over a whole batch */
static void
test_reserved_and_repeats (gconstpointer data)
{
  int key_bytes = GPOINTER_TO_INT (data);
  guint64 empty
      = key_bytes == 4 ? ACCEL_HASHMAP_EMPTY32 : ACCEL_HASHMAP_EMPTY64;
  const gsize n = 4099;
  guint64 rejected = 0;
  g_autofree guint64 *keys = g_new (guint64, n);
  g_autofree guint64 *values = g_new (guint64, n);
  guint64 gpu[3], host[3], probe[3] = { 42, empty, empty - 1 };
  cudaStream_t stream;
  Pair p;

  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  pair_init (&p, 16, key_bytes, stream);
  for (gsize i = 0; i < n; i++)
    {
      keys[i] = i % 5 == 1 ? empty : i % 5 == 2 ? empty - 1 : 42;
      values[i] = i;
      rejected += keys[i] != 42;
    }
  insert (&p, keys, values, n);
  pair_fetch (&p);
  g_assert_cmpuint (p.back.counters->live, ==, 1);
  g_assert_cmpuint (p.back.counters->rejected, ==, p.host.counters->rejected);
  g_assert_cmpuint (p.back.counters->rejected, ==, rejected);
  lookup (&p, probe, 3, gpu, host);
  /* any one of the copies' values */
  g_assert_cmpuint (gpu[0], <, n);
  g_assert_cmpuint (keys[gpu[0]], ==, 42);
  g_assert_cmpuint (gpu[1], ==, ACCEL_HASHMAP_EMPTY64);
  g_assert_cmpuint (gpu[2], ==, ACCEL_HASHMAP_EMPTY64);
  erase (&p, probe, 3);
  pair_fetch (&p);
  g_assert_cmpuint (p.back.counters->live, ==, 0);
  g_assert_cmpuint (p.back.counters->rejected, ==, p.host.counters->rejected);
  pair_free (&p);
  cudaStreamDestroy (stream);
}

int
main (int argc, char **argv)
{
  static const gsize sizes[] = { 1, 17, 1000, 65537, 1 << 20 };
  static Case cases[2 * G_N_ELEMENTS (sizes)];

  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = NULL;

      cases[i].key_bytes = i % 2 ? 8 : 4;
      cases[i].n = sizes[i / 2];
      path = g_strdup_printf (
          "/gpu/hashmap/random/%d/n=%zu", cases[i].key_bytes * 8, cases[i].n);
      g_test_add_data_func (path, &cases[i], test_random);
    }
  g_test_add_data_func (
      "/gpu/hashmap/full-table/32", GINT_TO_POINTER (4), test_full_table);
  g_test_add_data_func (
      "/gpu/hashmap/full-table/64", GINT_TO_POINTER (8), test_full_table);
  g_test_add_data_func ("/gpu/hashmap/reserved-and-repeats/32",
      GINT_TO_POINTER (4), test_reserved_and_repeats);
  g_test_add_data_func ("/gpu/hashmap/reserved-and-repeats/64",
      GINT_TO_POINTER (8), test_reserved_and_repeats);
  return g_test_run ();
}
