/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* open-addressing hash map in one block of memory: linear probing, lock-free
 * batch insert, lookup and erase of 32-bit keys with 32-bit values or 64-bit
 * keys with 64-bit values
 *
 * Slots are {key, value} pairs, capacity a power of two. Two key values are
 * reserved and never stored: the all-ones key marks an empty slot (so a
 * memset to 0xff clears a table) and all-ones minus one marks an erased
 * slot (a tombstone, which lookups walk past and inserts reuse). Inserts and
 * erases that meet a reserved key leave it out and count it as rejected.
 *
 * Within one batch every key is handled by its own thread and slots are
 * claimed with a compare-and-swap on the key, so a batch needs no lock;
 * batches on one map must run one after the other (one stream), never two
 * at a time. Inserting a key that is present replaces its value; when one
 * insert batch holds a key more than once, any one of its values is the one
 * kept (the host reference keeps the last). A key that finds no free slot
 * after probing the whole table is counted as failed and left out. The
 * slot a key lands in depends on the order the threads ran, so GPU and host
 * hold the same keys but may leave tombstones in different slots, and
 * their tombstone counts may differ after erases; the live count does not. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define ACCEL_HASHMAP_EMPTY32 UINT32_C (0xffffffff)
#define ACCEL_HASHMAP_TOMBSTONE32 UINT32_C (0xfffffffe)
#define ACCEL_HASHMAP_EMPTY64 UINT64_C (0xffffffffffffffff)
#define ACCEL_HASHMAP_TOMBSTONE64 UINT64_C (0xfffffffffffffffe)

  /* in the same memory as the slots; counts are summed over batches until
   * the next clear */
  typedef struct
  {
    uint64_t live;       /* slots holding a key */
    uint64_t tombstones; /* slots erased and not reused yet */
    uint64_t failed;     /* inserted keys that found no free slot */
    uint64_t rejected;   /* inserted or erased keys equal to a reserved key */
  } AccelHashMapCounters;

  typedef struct
  {
    AccelHashMapCounters *counters;
    void *slots;       /* capacity pairs of {key, value} */
    uint64_t capacity; /* a power of two */
    int key_bytes;     /* 4 or 8; values have the width of keys */
  } AccelHashMap;

  /* bytes of a map's block: the counters, then the slots */
  size_t accel_hashmap_size (uint64_t capacity, int key_bytes);
  /* points @m into @block of accel_hashmap_size () bytes; -1 when
   * @capacity is not a power of two or @key_bytes is neither 4 nor 8 */
  int accel_hashmap_init (
      AccelHashMap *m, void *block, uint64_t capacity, int key_bytes);
  /* the smallest power of two that holds @n keys at @load_factor (0, 1] */
  uint64_t accel_hashmap_capacity_for (uint64_t n, double load_factor);

  /* launchers return a cudaError_t (cudaErrorInvalidValue for a map of the
   * other key width), host references 0 or -1 for the same misuse */

  /* every slot empty, every counter 0 */
  int accel_hashmap_clear (void *stream, const AccelHashMap *m);
  int accel_hashmap_clear_host (const AccelHashMap *m);

  /* @n keys and values in the memory of the map */
  int accel_hashmap_insert32 (void *stream, const AccelHashMap *m,
      const uint32_t *keys, const uint32_t *values, size_t n);
  int accel_hashmap_insert64 (void *stream, const AccelHashMap *m,
      const uint64_t *keys, const uint64_t *values, size_t n);
  int accel_hashmap_insert32_host (const AccelHashMap *m, const uint32_t *keys,
      const uint32_t *values, size_t n);
  int accel_hashmap_insert64_host (const AccelHashMap *m, const uint64_t *keys,
      const uint64_t *values, size_t n);

  /* values[i] is the value of keys[i], or @missing where it is absent (a
   * reserved key is always absent) */
  int accel_hashmap_lookup32 (void *stream, const AccelHashMap *m,
      const uint32_t *keys, uint32_t *values, size_t n, uint32_t missing);
  int accel_hashmap_lookup64 (void *stream, const AccelHashMap *m,
      const uint64_t *keys, uint64_t *values, size_t n, uint64_t missing);
  int accel_hashmap_lookup32_host (const AccelHashMap *m, const uint32_t *keys,
      uint32_t *values, size_t n, uint32_t missing);
  int accel_hashmap_lookup64_host (const AccelHashMap *m, const uint64_t *keys,
      uint64_t *values, size_t n, uint64_t missing);

  /* absent keys are ignored */
  int accel_hashmap_erase32 (
      void *stream, const AccelHashMap *m, const uint32_t *keys, size_t n);
  int accel_hashmap_erase64 (
      void *stream, const AccelHashMap *m, const uint64_t *keys, size_t n);
  int accel_hashmap_erase32_host (
      const AccelHashMap *m, const uint32_t *keys, size_t n);
  int accel_hashmap_erase64_host (
      const AccelHashMap *m, const uint64_t *keys, size_t n);

  /* inserts every key of @src with its value into @dst (same key width, any
   * capacity, usually cleared): grows a map or drops its tombstones */
  int accel_hashmap_rehash (
      void *stream, const AccelHashMap *src, const AccelHashMap *dst);
  int accel_hashmap_rehash_host (
      const AccelHashMap *src, const AccelHashMap *dst);

  /* the keys and values of a map in host memory, widened to 64 bits, in
   * slot order; returns how many (at most m->counters->live) */
  size_t accel_hashmap_entries_host (
      const AccelHashMap *m, uint64_t *keys, uint64_t *values);

#ifdef __cplusplus
}
#endif
