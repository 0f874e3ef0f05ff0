/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the hash map's host reference against a GHashTable: random keys with
 * repeats, erase and re-insert, a full table, the reserved keys, rehash */
#include "accel-test.h"
#include "hashmap/hashmap.h"

typedef struct
{
  AccelHashMap m;
  gpointer block;
} Map;

static void
map_init (Map *map, guint64 capacity, int key_bytes)
{
  map->block = g_malloc (accel_hashmap_size (capacity, key_bytes));
  g_assert_cmpint (
      accel_hashmap_init (&map->m, map->block, capacity, key_bytes), ==, 0);
  g_assert_cmpint (accel_hashmap_clear_host (&map->m), ==, 0);
}

/* both widths through 64-bit arrays */
static void
insert (Map *map, const guint64 *keys, const guint64 *values, gsize n)
{
  if (map->m.key_bytes == 8)
    {
      g_assert_cmpint (
          accel_hashmap_insert64_host (&map->m, keys, values, n), ==, 0);
      return;
    }
  {
    g_autofree guint32 *k = g_new (guint32, n), *v = g_new (guint32, n);

    for (gsize i = 0; i < n; i++)
      {
        k[i] = (guint32)keys[i];
        v[i] = (guint32)values[i];
      }
    g_assert_cmpint (accel_hashmap_insert32_host (&map->m, k, v, n), ==, 0);
  }
}

static void
erase (Map *map, const guint64 *keys, gsize n)
{
  if (map->m.key_bytes == 8)
    {
      g_assert_cmpint (accel_hashmap_erase64_host (&map->m, keys, n), ==, 0);
      return;
    }
  {
    g_autofree guint32 *k = g_new (guint32, n);

    for (gsize i = 0; i < n; i++)
      k[i] = (guint32)keys[i];
    g_assert_cmpint (accel_hashmap_erase32_host (&map->m, k, n), ==, 0);
  }
}

/* @missing where absent */
static void
lookup (
    Map *map, const guint64 *keys, guint64 *values, gsize n, guint64 missing)
{
  if (map->m.key_bytes == 8)
    {
      g_assert_cmpint (
          accel_hashmap_lookup64_host (&map->m, keys, values, n, missing), ==,
          0);
      return;
    }
  {
    g_autofree guint32 *k = g_new (guint32, n), *v = g_new (guint32, n);

    for (gsize i = 0; i < n; i++)
      k[i] = (guint32)keys[i];
    g_assert_cmpint (
        accel_hashmap_lookup32_host (&map->m, k, v, n, (guint32)missing), ==,
        0);
    for (gsize i = 0; i < n; i++)
      values[i] = v[i] == (guint32)missing ? missing : v[i];
  }
}

static guint64
random_key (int key_bytes)
{
  guint64 k = ((guint64)g_test_rand_int () << 32) | (guint32)g_test_rand_int ();

  k = key_bytes == 4 ? (guint32)k : k;
  /* the reserved keys are tested on their own */
  return k >= (key_bytes == 4 ? ACCEL_HASHMAP_TOMBSTONE32
                              : ACCEL_HASHMAP_TOMBSTONE64)
             ? 0
             : k;
}

/* the map holds exactly the reference's keys, with its values */
static void
assert_same (Map *map, GHashTable *ref, const guint64 *pool, gsize n_pool)
{
  const guint64 missing = 0x5a5a5a5a;
  guint64 live = map->m.counters->live;
  g_autofree guint64 *values = g_new (guint64, n_pool);
  g_autofree guint64 *keys = g_new (guint64, live + 1);
  g_autofree guint64 *kv = g_new (guint64, live + 1);

  g_assert_cmpuint (live, ==, g_hash_table_size (ref));
  lookup (map, pool, values, n_pool, missing);
  for (gsize i = 0; i < n_pool; i++)
    {
      guint64 *v = g_hash_table_lookup (ref, &pool[i]);

      g_assert_cmpuint (values[i], ==, v ? *v : missing);
    }
  g_assert_cmpuint (accel_hashmap_entries_host (&map->m, keys, kv), ==, live);
  for (guint64 i = 0; i < live; i++)
    {
      guint64 *v = g_hash_table_lookup (ref, &keys[i]);

      g_assert_nonnull (v);
      g_assert_cmpuint (kv[i], ==, *v);
    }
}

/* keys drawn from a pool half the batch's size, so batches repeat keys */
static void
test_random (gconstpointer data)
{
  int key_bytes = GPOINTER_TO_INT (data);
  const gsize n_pool = 3000, n = 1500;
  guint64 tombstones_before;
  Map map;
  g_autofree guint64 *pool = g_new (guint64, n_pool);
  g_autofree guint64 *vals = g_new (guint64, n_pool);
  g_autofree guint64 *keys = g_new (guint64, n);
  g_autofree guint64 *values = g_new (guint64, n);
  g_autoptr (GHashTable) ref = g_hash_table_new (g_int64_hash, g_int64_equal);

  map_init (&map, accel_hashmap_capacity_for (n_pool, 0.5), key_bytes);
  /* distinct pool keys: a key's index finds its latest value */
  for (gsize i = 0; i < n_pool; i++)
    do
      pool[i] = random_key (key_bytes);
    while (g_hash_table_contains (ref, &pool[i])
           || !g_hash_table_insert (ref, &pool[i], &vals[i]));
  g_hash_table_remove_all (ref);
  for (int round = 0; round < 4; round++)
    {
      for (gsize i = 0; i < n; i++)
        {
          gsize j = g_test_rand_int_range (0, n_pool / 2 + round * 300);

          keys[i] = pool[j];
          values[i] = random_key (key_bytes);
          /* the reference keeps the last value, as the host map does */
          vals[j] = values[i];
          g_hash_table_insert (ref, &pool[j], &vals[j]);
        }
      insert (&map, keys, values, n);
      assert_same (&map, ref, pool, n_pool);

      /* erase a third, some of them absent, some twice */
      for (gsize i = 0; i < n / 3; i++)
        {
          keys[i] = pool[g_test_rand_int_range (0, n_pool)];
          g_hash_table_remove (ref, &keys[i]);
        }
      tombstones_before = map.m.counters->tombstones;
      erase (&map, keys, n / 3);
      g_assert_cmpuint (map.m.counters->tombstones, >, tombstones_before);
      assert_same (&map, ref, pool, n_pool);
    }
  g_assert_cmpuint (map.m.counters->failed, ==, 0);
  g_assert_cmpuint (map.m.counters->rejected, ==, 0);
  g_free (map.block);
}

static void
test_full_table (gconstpointer data)
{
  int key_bytes = GPOINTER_TO_INT (data);
  guint64 keys[24], values[24], got[24];
  Map map;

  map_init (&map, 16, key_bytes);
  for (int i = 0; i < 24; i++)
    {
      keys[i] = (guint64)i * 7919 + 1;
      values[i] = 100 + i;
    }
  /* 20 keys into 16 slots: the last 4 find no slot, and the probe stops */
  insert (&map, keys, values, 20);
  g_assert_cmpuint (map.m.counters->live, ==, 16);
  g_assert_cmpuint (map.m.counters->failed, ==, 4);
  lookup (&map, keys, got, 20, 0);
  for (int i = 0; i < 20; i++)
    g_assert_cmpuint (got[i], ==, i < 16 ? values[i] : 0);
  /* a key present is still updated in a full table */
  values[3] = 7;
  insert (&map, &keys[3], &values[3], 1);
  g_assert_cmpuint (map.m.counters->failed, ==, 4);
  /* erased slots are taken again */
  erase (&map, keys, 4);
  g_assert_cmpuint (map.m.counters->live, ==, 12);
  g_assert_cmpuint (map.m.counters->tombstones, ==, 4);
  insert (&map, &keys[20], &values[20], 4);
  g_assert_cmpuint (map.m.counters->live, ==, 16);
  g_assert_cmpuint (map.m.counters->tombstones, ==, 0);
  g_assert_cmpuint (map.m.counters->failed, ==, 4);
  lookup (&map, keys, got, 24, 0);
  for (int i = 0; i < 24; i++)
    g_assert_cmpuint (
        got[i], ==, (i >= 4 && i < 16) || i >= 20 ? values[i] : 0);
  g_free (map.block);
}

static void
test_reserved_keys (gconstpointer data)
{
  int key_bytes = GPOINTER_TO_INT (data);
  guint64 empty
      = key_bytes == 4 ? ACCEL_HASHMAP_EMPTY32 : ACCEL_HASHMAP_EMPTY64;
  guint64 keys[4] = { 5, empty, empty - 1, 6 }, values[4] = { 1, 2, 3, 4 };
  guint64 got[4];
  Map map;

  map_init (&map, 8, key_bytes);
  insert (&map, keys, values, 4);
  g_assert_cmpuint (map.m.counters->live, ==, 2);
  g_assert_cmpuint (map.m.counters->rejected, ==, 2);
  lookup (&map, keys, got, 4, 9);
  g_assert_cmpuint (got[0], ==, 1);
  g_assert_cmpuint (got[1], ==, 9);
  g_assert_cmpuint (got[2], ==, 9);
  g_assert_cmpuint (got[3], ==, 4);
  erase (&map, keys, 4);
  g_assert_cmpuint (map.m.counters->live, ==, 0);
  g_assert_cmpuint (map.m.counters->rejected, ==, 4);
  g_free (map.block);
}

static void
test_rehash (gconstpointer data)
{
  int key_bytes = GPOINTER_TO_INT (data);
  const gsize n = 500;
  g_autofree guint64 *keys = g_new (guint64, n);
  g_autofree guint64 *values = g_new (guint64, n);
  g_autofree guint64 *got = g_new (guint64, n);
  Map small, big;

  map_init (&small, 512, key_bytes);
  map_init (&big, 2048, key_bytes);
  for (gsize i = 0; i < n; i++)
    {
      keys[i] = i * 2654435761u % 1000003;
      values[i] = i;
    }
  insert (&small, keys, values, n);
  erase (&small, keys, n / 2);
  g_assert_cmpint (accel_hashmap_rehash_host (&small.m, &big.m), ==, 0);
  g_assert_cmpuint (big.m.counters->live, ==, n - n / 2);
  g_assert_cmpuint (big.m.counters->tombstones, ==, 0);
  lookup (&big, keys, got, n, G_MAXUINT32);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpuint (got[i], ==, i < n / 2 ? G_MAXUINT32 : values[i]);
  g_free (small.block);
  g_free (big.block);
}

static void
test_misuse (void)
{
  AccelHashMap m;
  guint64 block[16];
  guint64 k = 1;

  g_assert_cmpint (accel_hashmap_init (&m, block, 12, 4), ==, -1);
  g_assert_cmpint (accel_hashmap_init (&m, block, 0, 4), ==, -1);
  g_assert_cmpint (accel_hashmap_init (&m, block, 4, 2), ==, -1);
  g_assert_cmpuint (accel_hashmap_capacity_for (1000, 0.5), ==, 2048);
  g_assert_cmpuint (accel_hashmap_capacity_for (1024, 0.5), ==, 2048);
  g_assert_cmpuint (accel_hashmap_capacity_for (1, 1.0), ==, 1);
  g_assert_cmpint (accel_hashmap_init (&m, block, 4, 4), ==, 0);
  accel_hashmap_clear_host (&m);
  /* a map of 32-bit keys takes no 64-bit keys */
  g_assert_cmpint (accel_hashmap_insert64_host (&m, &k, &k, 1), ==, -1);
  g_assert_cmpint (accel_hashmap_erase64_host (&m, &k, 1), ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func (
      "/hashmap/host/random/32", GINT_TO_POINTER (4), test_random);
  g_test_add_data_func (
      "/hashmap/host/random/64", GINT_TO_POINTER (8), test_random);
  g_test_add_data_func (
      "/hashmap/host/full-table/32", GINT_TO_POINTER (4), test_full_table);
  g_test_add_data_func (
      "/hashmap/host/full-table/64", GINT_TO_POINTER (8), test_full_table);
  g_test_add_data_func ("/hashmap/host/reserved-keys/32", GINT_TO_POINTER (4),
      test_reserved_keys);
  g_test_add_data_func ("/hashmap/host/reserved-keys/64", GINT_TO_POINTER (8),
      test_reserved_keys);
  g_test_add_data_func (
      "/hashmap/host/rehash/32", GINT_TO_POINTER (4), test_rehash);
  g_test_add_data_func (
      "/hashmap/host/rehash/64", GINT_TO_POINTER (8), test_rehash);
  g_test_add_func ("/hashmap/host/misuse", test_misuse);
  return g_test_run ();
}
