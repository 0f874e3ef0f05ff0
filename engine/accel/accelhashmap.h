/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the hash map (libaccel-kernels-1.0); plain C, no GLib, so the
 * kernels include it as it is */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /**
   * SECTION:accelhashmap
   * @title: Hash map
   * @short_description: a GPU hash map of 32- or 64-bit keys
   *
   * An open-addressing hash map in one block of memory: linear probing,
   * lock-free batch insert, lookup and erase of 32-bit keys with 32-bit
   * values or 64-bit keys with 64-bit values.
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
   * their tombstone counts may differ after erases; the live count does not.
   *
   * Link with libaccel-kernels-1.0 (in accel-1.0.pc). Each operation comes
   * twice: a launcher that takes a CUDA stream (a cudaStream_t as `void *`,
   * such as accel_stream_get_handle() returns) and device memory and
   * returns a cudaError_t (cudaErrorInvalidValue for a map of the other key
   * width), and a host reference (`_host`) that takes host memory and
   * returns 0, or -1 for the same misuse.
   */

/**
 * ACCEL_HASHMAP_EMPTY32:
 *
 * The 32-bit key of an empty slot; never stored.
 */
#define ACCEL_HASHMAP_EMPTY32 UINT32_C (0xffffffff)
/**
 * ACCEL_HASHMAP_TOMBSTONE32:
 *
 * The 32-bit key of an erased slot; never stored.
 */
#define ACCEL_HASHMAP_TOMBSTONE32 UINT32_C (0xfffffffe)
/**
 * ACCEL_HASHMAP_EMPTY64:
 *
 * The 64-bit key of an empty slot; never stored.
 */
#define ACCEL_HASHMAP_EMPTY64 UINT64_C (0xffffffffffffffff)
/**
 * ACCEL_HASHMAP_TOMBSTONE64:
 *
 * The 64-bit key of an erased slot; never stored.
 */
#define ACCEL_HASHMAP_TOMBSTONE64 UINT64_C (0xfffffffffffffffe)

  /**
   * AccelHashMapCounters:
   * @live: slots holding a key
   * @tombstones: slots erased and not reused yet
   * @failed: inserted keys that found no free slot
   * @rejected: inserted or erased keys equal to a reserved key
   *
   * A map's counters, in the same memory as its slots, summed over batches
   * until the next clear.
   */
  typedef struct
  {
    uint64_t live;
    uint64_t tombstones;
    uint64_t failed;
    uint64_t rejected;
  } AccelHashMapCounters;

  /**
   * AccelHashMap:
   * @counters: the counters, at the start of the block
   * @slots: @capacity pairs of {key, value}
   * @capacity: slots, a power of two
   * @key_bytes: 4 or 8; values have the width of keys
   *
   * A map in one block of device or host memory, laid out by
   * accel_hashmap_init().
   */
  typedef struct
  {
    AccelHashMapCounters *counters;
    void *slots;
    uint64_t capacity;
    int key_bytes;
  } AccelHashMap;

  /**
   * accel_hashmap_size:
   * @capacity: slots, a power of two
   * @key_bytes: 4 or 8
   *
   * Returns: the bytes of a map's block: the counters, then the slots. MT
   * safe.
   */
  size_t accel_hashmap_size (uint64_t capacity, int key_bytes);

  /**
   * accel_hashmap_init:
   * @m: (out caller-allocates): the map to point into @block
   * @block: accel_hashmap_size() bytes of device or host memory
   * @capacity: slots, a power of two
   * @key_bytes: 4 or 8
   *
   * Points @m into @block; touches no memory (clear the map before use).
   * MT safe.
   *
   * Returns: 0, or -1 when @capacity is not a power of two or @key_bytes is
   * neither 4 nor 8.
   */
  int accel_hashmap_init (
      AccelHashMap *m, void *block, uint64_t capacity, int key_bytes);

  /**
   * accel_hashmap_capacity_for:
   * @n: keys to hold
   * @load_factor: the largest share of slots in use, in (0, 1]
   *
   * Returns: the smallest power of two that holds @n keys at @load_factor.
   * MT safe.
   */
  uint64_t accel_hashmap_capacity_for (uint64_t n, double load_factor);

  /**
   * accel_hashmap_clear:
   * @stream: a cudaStream_t
   * @m: a map in device memory
   *
   * Makes every slot empty and every counter 0.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_clear (void *stream, const AccelHashMap *m);
  /**
   * accel_hashmap_clear_host:
   * @m: a map in host memory
   *
   * The host reference of accel_hashmap_clear().
   *
   * Returns: 0.
   */
  int accel_hashmap_clear_host (const AccelHashMap *m);

  /**
   * accel_hashmap_insert32:
   * @stream: a cudaStream_t
   * @m: a map of 32-bit keys in device memory
   * @keys: @n keys, device memory
   * @values: @n values, device memory
   * @n: how many
   *
   * Inserts @n keys with their values; a present key gets the new value.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_insert32 (void *stream, const AccelHashMap *m,
      const uint32_t *keys, const uint32_t *values, size_t n);
  /**
   * accel_hashmap_insert64:
   * @stream: a cudaStream_t
   * @m: a map of 64-bit keys in device memory
   * @keys: @n keys, device memory
   * @values: @n values, device memory
   * @n: how many
   *
   * accel_hashmap_insert32() for 64-bit keys and values.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_insert64 (void *stream, const AccelHashMap *m,
      const uint64_t *keys, const uint64_t *values, size_t n);
  /**
   * accel_hashmap_insert32_host:
   * @m: a map of 32-bit keys in host memory
   * @keys: @n keys
   * @values: @n values
   * @n: how many
   *
   * The host reference of accel_hashmap_insert32().
   *
   * Returns: 0, or -1 for a map of 64-bit keys.
   */
  int accel_hashmap_insert32_host (const AccelHashMap *m, const uint32_t *keys,
      const uint32_t *values, size_t n);
  /**
   * accel_hashmap_insert64_host:
   * @m: a map of 64-bit keys in host memory
   * @keys: @n keys
   * @values: @n values
   * @n: how many
   *
   * The host reference of accel_hashmap_insert64().
   *
   * Returns: 0, or -1 for a map of 32-bit keys.
   */
  int accel_hashmap_insert64_host (const AccelHashMap *m, const uint64_t *keys,
      const uint64_t *values, size_t n);

  /**
   * accel_hashmap_lookup32:
   * @stream: a cudaStream_t
   * @m: a map of 32-bit keys in device memory
   * @keys: @n keys, device memory
   * @values: @n words, device memory: the result
   * @n: how many
   * @missing: the value of an absent key
   *
   * values[i] is the value of keys[i], or @missing where it is absent (a
   * reserved key is always absent).
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_lookup32 (void *stream, const AccelHashMap *m,
      const uint32_t *keys, uint32_t *values, size_t n, uint32_t missing);
  /**
   * accel_hashmap_lookup64:
   * @stream: a cudaStream_t
   * @m: a map of 64-bit keys in device memory
   * @keys: @n keys, device memory
   * @values: @n values, device memory: the result
   * @n: how many
   * @missing: the value of an absent key
   *
   * accel_hashmap_lookup32() for 64-bit keys and values.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_lookup64 (void *stream, const AccelHashMap *m,
      const uint64_t *keys, uint64_t *values, size_t n, uint64_t missing);
  /**
   * accel_hashmap_lookup32_host:
   * @m: a map of 32-bit keys in host memory
   * @keys: @n keys
   * @values: @n words: the result
   * @n: how many
   * @missing: the value of an absent key
   *
   * The host reference of accel_hashmap_lookup32().
   *
   * Returns: 0, or -1 for a map of 64-bit keys.
   */
  int accel_hashmap_lookup32_host (const AccelHashMap *m, const uint32_t *keys,
      uint32_t *values, size_t n, uint32_t missing);
  /**
   * accel_hashmap_lookup64_host:
   * @m: a map of 64-bit keys in host memory
   * @keys: @n keys
   * @values: @n values: the result
   * @n: how many
   * @missing: the value of an absent key
   *
   * The host reference of accel_hashmap_lookup64().
   *
   * Returns: 0, or -1 for a map of 32-bit keys.
   */
  int accel_hashmap_lookup64_host (const AccelHashMap *m, const uint64_t *keys,
      uint64_t *values, size_t n, uint64_t missing);

  /**
   * accel_hashmap_erase32:
   * @stream: a cudaStream_t
   * @m: a map of 32-bit keys in device memory
   * @keys: @n keys, device memory
   * @n: how many
   *
   * Erases @n keys; absent keys are ignored.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_erase32 (
      void *stream, const AccelHashMap *m, const uint32_t *keys, size_t n);
  /**
   * accel_hashmap_erase64:
   * @stream: a cudaStream_t
   * @m: a map of 64-bit keys in device memory
   * @keys: @n keys, device memory
   * @n: how many
   *
   * accel_hashmap_erase32() for 64-bit keys.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_erase64 (
      void *stream, const AccelHashMap *m, const uint64_t *keys, size_t n);
  /**
   * accel_hashmap_erase32_host:
   * @m: a map of 32-bit keys in host memory
   * @keys: @n keys
   * @n: how many
   *
   * The host reference of accel_hashmap_erase32().
   *
   * Returns: 0, or -1 for a map of 64-bit keys.
   */
  int accel_hashmap_erase32_host (
      const AccelHashMap *m, const uint32_t *keys, size_t n);
  /**
   * accel_hashmap_erase64_host:
   * @m: a map of 64-bit keys in host memory
   * @keys: @n keys
   * @n: how many
   *
   * The host reference of accel_hashmap_erase64().
   *
   * Returns: 0, or -1 for a map of 32-bit keys.
   */
  int accel_hashmap_erase64_host (
      const AccelHashMap *m, const uint64_t *keys, size_t n);

  /**
   * accel_hashmap_rehash:
   * @stream: a cudaStream_t
   * @src: a map in device memory
   * @dst: a map of the same key width and any capacity, usually cleared
   *
   * Inserts every key of @src with its value into @dst: grows a map or
   * drops its tombstones.
   *
   * Returns: a cudaError_t, 0 on success.
   */
  int accel_hashmap_rehash (
      void *stream, const AccelHashMap *src, const AccelHashMap *dst);
  /**
   * accel_hashmap_rehash_host:
   * @src: a map in host memory
   * @dst: a map of the same key width in host memory
   *
   * The host reference of accel_hashmap_rehash().
   *
   * Returns: 0, or -1 for maps of different key widths.
   */
  int accel_hashmap_rehash_host (
      const AccelHashMap *src, const AccelHashMap *dst);

  /**
   * accel_hashmap_entries_host:
   * @m: a map in host memory (a copy of a device map works)
   * @keys: room for m->counters->live keys
   * @values: room for m->counters->live values
   *
   * The keys and values of a map, widened to 64 bits, in slot order.
   *
   * Returns: how many (at most m->counters->live).
   */
  size_t accel_hashmap_entries_host (
      const AccelHashMap *m, uint64_t *keys, uint64_t *values);

#ifdef __cplusplus
}
#endif
