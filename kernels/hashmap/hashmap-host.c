/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hash map: the host reference, one key at a time in input order, probing
 * as the kernels do (so the last of a key's values in a batch is kept) */
#include <string.h>

#include "hashmap-hash.h"
#include "hashmap.h"

typedef enum
{
  OUTCOME_REJECTED,
  OUTCOME_UPDATED,
  OUTCOME_NEW,
  OUTCOME_REVIVED,
  OUTCOME_FAILED,
} Outcome;

/* both widths through 64-bit keys: the reserved keys are the two largest */
static uint64_t
empty_key (const AccelHashMap *m)
{
  return m->key_bytes == 4 ? ACCEL_HASHMAP_EMPTY32 : ACCEL_HASHMAP_EMPTY64;
}

static uint64_t
key_at (const AccelHashMap *m, uint64_t i)
{
  if (m->key_bytes == 4)
    return ((const uint32_t *)m->slots)[2 * i];
  return ((const uint64_t *)m->slots)[2 * i];
}

static uint64_t
value_at (const AccelHashMap *m, uint64_t i)
{
  if (m->key_bytes == 4)
    return ((const uint32_t *)m->slots)[2 * i + 1];
  return ((const uint64_t *)m->slots)[2 * i + 1];
}

static void
set_key (const AccelHashMap *m, uint64_t i, uint64_t k)
{
  if (m->key_bytes == 4)
    ((uint32_t *)m->slots)[2 * i] = (uint32_t)k;
  else
    ((uint64_t *)m->slots)[2 * i] = k;
}

static void
set_value (const AccelHashMap *m, uint64_t i, uint64_t v)
{
  if (m->key_bytes == 4)
    ((uint32_t *)m->slots)[2 * i + 1] = (uint32_t)v;
  else
    ((uint64_t *)m->slots)[2 * i + 1] = v;
}

static uint64_t
home (const AccelHashMap *m, uint64_t k)
{
  uint64_t h
      = m->key_bytes == 4 ? hashmap_hash32 ((uint32_t)k) : hashmap_hash64 (k);
  return h & (m->capacity - 1);
}

static Outcome
insert_one (const AccelHashMap *m, uint64_t k, uint64_t v)
{
  uint64_t empty = empty_key (m), tomb = empty - 1;
  uint64_t mask = m->capacity - 1, h = home (m, k), slot = m->capacity;

  if (k >= tomb)
    return OUTCOME_REJECTED;
  /* the key may sit past a tombstone: look for it up to the first empty
   * slot, remembering the first slot that could take it */
  for (uint64_t p = 0; p <= mask; p++)
    {
      uint64_t i = (h + p) & mask, cur = key_at (m, i);

      if (cur == k)
        {
          set_value (m, i, v);
          return OUTCOME_UPDATED;
        }
      if ((cur == empty || cur == tomb) && slot == m->capacity)
        slot = i;
      if (cur == empty)
        break;
    }
  if (slot == m->capacity)
    return OUTCOME_FAILED;
  {
    Outcome o = key_at (m, slot) == empty ? OUTCOME_NEW : OUTCOME_REVIVED;

    set_key (m, slot, k);
    set_value (m, slot, v);
    return o;
  }
}

static void
count (const AccelHashMap *m, Outcome o)
{
  AccelHashMapCounters *c = m->counters;

  switch (o)
    {
    case OUTCOME_REJECTED:
      c->rejected++;
      break;
    case OUTCOME_REVIVED:
      c->tombstones--;
      c->live++;
      break;
    case OUTCOME_NEW:
      c->live++;
      break;
    case OUTCOME_FAILED:
      c->failed++;
      break;
    case OUTCOME_UPDATED:
      break;
    }
}

static void
lookup_one (const AccelHashMap *m, uint64_t k, int *found, uint64_t *v)
{
  uint64_t empty = empty_key (m), mask = m->capacity - 1, h = home (m, k);

  *found = 0;
  if (k >= empty - 1)
    return;
  for (uint64_t p = 0; p <= mask; p++)
    {
      uint64_t i = (h + p) & mask, cur = key_at (m, i);

      if (cur == k)
        {
          *found = 1;
          *v = value_at (m, i);
          return;
        }
      if (cur == empty)
        return;
    }
}

static void
erase_one (const AccelHashMap *m, uint64_t k)
{
  uint64_t empty = empty_key (m), mask = m->capacity - 1, h = home (m, k);

  if (k >= empty - 1)
    {
      m->counters->rejected++;
      return;
    }
  for (uint64_t p = 0; p <= mask; p++)
    {
      uint64_t i = (h + p) & mask, cur = key_at (m, i);

      if (cur == k)
        {
          set_key (m, i, empty - 1);
          m->counters->live--;
          m->counters->tombstones++;
          return;
        }
      if (cur == empty)
        return;
    }
}

int
accel_hashmap_clear_host (const AccelHashMap *m)
{
  memset (m->slots, 0xff, (size_t)m->capacity * 2 * m->key_bytes);
  memset (m->counters, 0, sizeof (AccelHashMapCounters));
  return 0;
}

#define DEFINE_WIDTH(bits)                                                     \
  int accel_hashmap_insert##bits##_host (const AccelHashMap *m,                \
      const uint##bits##_t *keys, const uint##bits##_t *values, size_t n)      \
  {                                                                            \
    if (m->key_bytes * 8 != bits)                                              \
      return -1;                                                               \
    for (size_t i = 0; i < n; i++)                                             \
      count (m, insert_one (m, keys[i], values[i]));                           \
    return 0;                                                                  \
  }                                                                            \
                                                                               \
  int accel_hashmap_lookup##bits##_host (const AccelHashMap *m,                \
      const uint##bits##_t *keys, uint##bits##_t *values, size_t n,            \
      uint##bits##_t missing)                                                  \
  {                                                                            \
    if (m->key_bytes * 8 != bits)                                              \
      return -1;                                                               \
    for (size_t i = 0; i < n; i++)                                             \
      {                                                                        \
        uint64_t v = 0;                                                        \
        int found;                                                             \
                                                                               \
        lookup_one (m, keys[i], &found, &v);                                   \
        values[i] = found ? (uint##bits##_t)v : missing;                       \
      }                                                                        \
    return 0;                                                                  \
  }                                                                            \
                                                                               \
  int accel_hashmap_erase##bits##_host (                                       \
      const AccelHashMap *m, const uint##bits##_t *keys, size_t n)             \
  {                                                                            \
    if (m->key_bytes * 8 != bits)                                              \
      return -1;                                                               \
    for (size_t i = 0; i < n; i++)                                             \
      erase_one (m, keys[i]);                                                  \
    return 0;                                                                  \
  }

DEFINE_WIDTH (32)
DEFINE_WIDTH (64)

int
accel_hashmap_rehash_host (const AccelHashMap *src, const AccelHashMap *dst)
{
  uint64_t tomb = empty_key (src) - 1;

  if (src->key_bytes != dst->key_bytes)
    return -1;
  for (uint64_t i = 0; i < src->capacity; i++)
    if (key_at (src, i) < tomb)
      count (dst, insert_one (dst, key_at (src, i), value_at (src, i)));
  return 0;
}

size_t
accel_hashmap_entries_host (
    const AccelHashMap *m, uint64_t *keys, uint64_t *values)
{
  uint64_t tomb = empty_key (m) - 1;
  size_t n = 0;

  for (uint64_t i = 0; i < m->capacity && n < m->counters->live; i++)
    if (key_at (m, i) < tomb)
      {
        keys[n] = key_at (m, i);
        values[n] = value_at (m, i);
        n++;
      }
  return n;
}
