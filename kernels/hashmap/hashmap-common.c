/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hash map: the layout of a map's block */
#include "hashmap.h"

size_t
accel_hashmap_size (uint64_t capacity, int key_bytes)
{
  return sizeof (AccelHashMapCounters) + (size_t)capacity * 2 * key_bytes;
}

int
accel_hashmap_init (
    AccelHashMap *m, void *block, uint64_t capacity, int key_bytes)
{
  if (capacity == 0 || (capacity & (capacity - 1)) != 0)
    return -1;
  if (key_bytes != 4 && key_bytes != 8)
    return -1;
  m->counters = block;
  /* the counters are 32 bytes, so slots stay 16-byte aligned */
  m->slots = (char *)block + sizeof (AccelHashMapCounters);
  m->capacity = capacity;
  m->key_bytes = key_bytes;
  return 0;
}

uint64_t
accel_hashmap_capacity_for (uint64_t n, double load_factor)
{
  uint64_t c = 1;
  double need = (double)n / load_factor;

  while ((double)c < need)
    c <<= 1;
  return c;
}
