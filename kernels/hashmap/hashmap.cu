/* SPDX-License-Identifier: LGPL-2.1-or-later */
// hash map on the GPU: one thread per key, grid-stride; slots are claimed
// with a compare-and-swap on the key, and the counters are summed per block
// before one atomic each, so a batch of millions of keys does not queue on
// four addresses
#include <cuda_runtime.h>

#include "hashmap-hash.h"
#include "hashmap.h"

enum
{
  REJECTED,
  UPDATED,
  NEW,
  REVIVED,
  FAILED,
  ERASED,
  ABSENT,
};

template <typename K> struct Slot
{
  K key;
  K value;
};

template <typename K> struct Keys;

template <> struct Keys<uint32_t>
{
  static constexpr uint32_t empty = ACCEL_HASHMAP_EMPTY32;
  __device__ static uint64_t hash (uint32_t k)
  {
    return hashmap_hash32 (k);
  }
  __device__ static uint32_t cas (
      uint32_t *a, uint32_t expect, uint32_t desired)
  {
    return atomicCAS ((unsigned int *)a, expect, desired);
  }
};

template <> struct Keys<uint64_t>
{
  static constexpr uint64_t empty = ACCEL_HASHMAP_EMPTY64;
  __device__ static uint64_t hash (uint64_t k)
  {
    return hashmap_hash64 (k);
  }
  __device__ static uint64_t cas (
      uint64_t *a, uint64_t expect, uint64_t desired)
  {
    return atomicCAS ((unsigned long long *)a, (unsigned long long)expect,
        (unsigned long long)desired);
  }
};

// keys change under other threads' compare-and-swap: read them afresh
template <typename K>
__device__ static K
load_key (const Slot<K> *s)
{
  return *(const volatile K *)&s->key;
}

// a key already present anywhere in its probe sequence is updated; else the
// first empty or erased slot on the way is claimed. Threads inserting the
// same key walk the same slots and see the same winner of every slot, so
// they agree on one slot for it
template <typename K>
__device__ static int
insert_one (Slot<K> *slots, uint64_t mask, K k, K v)
{
  const K empty = Keys<K>::empty, tomb = empty - 1;
  uint64_t h = Keys<K>::hash (k), first = mask + 1;

  if (k >= tomb)
    return REJECTED;
  for (uint64_t p = 0; p <= mask; p++)
    {
      Slot<K> *s = &slots[(h + p) & mask];
      K cur = load_key (s);

      if (cur == k)
        {
          s->value = v;
          return UPDATED;
        }
      if ((cur == empty || cur == tomb) && first > mask)
        first = p;
      if (cur == empty)
        break;
    }
  // slots before @first held other keys, which stay during an insert batch
  for (uint64_t p = first; p <= mask; p++)
    {
      Slot<K> *s = &slots[(h + p) & mask];
      K cur = load_key (s);

      if (cur == empty || cur == tomb)
        {
          K old = Keys<K>::cas (&s->key, cur, k);

          if (old == cur)
            {
              s->value = v;
              return cur == empty ? NEW : REVIVED;
            }
          cur = old;
        }
      if (cur == k)
        {
          s->value = v;
          return UPDATED;
        }
    }
  return FAILED;
}

template <typename K>
__device__ static int
erase_one (Slot<K> *slots, uint64_t mask, K k)
{
  const K empty = Keys<K>::empty, tomb = empty - 1;
  uint64_t h = Keys<K>::hash (k);

  if (k >= tomb)
    return REJECTED;
  for (uint64_t p = 0; p <= mask; p++)
    {
      Slot<K> *s = &slots[(h + p) & mask];
      K cur = load_key (s);

      // a copy of the key in the same batch may win the swap: then it is
      // gone all the same
      if (cur == k)
        return Keys<K>::cas (&s->key, k, tomb) == k ? ERASED : ABSENT;
      if (cur == empty)
        return ABSENT;
    }
  return ABSENT;
}

// per-thread counts, then a block's sum, then one atomic per counter
struct Tally
{
  unsigned long long live, tombstones, failed, rejected;
};

__device__ static void
tally (Tally *t, int outcome)
{
  switch (outcome)
    {
    case REJECTED:
      t->rejected++;
      break;
    case NEW:
      t->live++;
      break;
    case REVIVED:
      t->live++;
      t->tombstones--;
      break;
    case FAILED:
      t->failed++;
      break;
    case ERASED:
      t->live--;
      t->tombstones++;
      break;
    default:
      break;
    }
}

// unsigned wrap-around makes the decrements add up right
__device__ static void
flush (const Tally *t, AccelHashMapCounters *c)
{
  __shared__ unsigned long long sum[4];
  unsigned long long mine[4]
      = { t->live, t->tombstones, t->failed, t->rejected };

  if (threadIdx.x < 4)
    sum[threadIdx.x] = 0;
  __syncthreads ();
  for (int j = 0; j < 4; j++)
    {
      unsigned long long v = mine[j];

      for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync (0xffffffffu, v, d);
      if ((threadIdx.x & 31) == 0 && v != 0)
        atomicAdd (&sum[j], v);
    }
  __syncthreads ();
  if (threadIdx.x < 4 && sum[threadIdx.x] != 0)
    atomicAdd ((unsigned long long *)&c->live + threadIdx.x, sum[threadIdx.x]);
}

#define FOR_KEY                                                                \
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;        \
       i += (size_t)gridDim.x * blockDim.x)

template <typename K>
__global__ static void
k_insert (Slot<K> *slots, uint64_t mask, const K *keys, const K *values,
    size_t n, AccelHashMapCounters *c)
{
  Tally t = { 0, 0, 0, 0 };

  FOR_KEY tally (&t, insert_one (slots, mask, keys[i], values[i]));
  flush (&t, c);
}

template <typename K>
__global__ static void
k_lookup (const Slot<K> *slots, uint64_t mask, const K *keys, K *values,
    size_t n, K missing)
{
  const K empty = Keys<K>::empty, tomb = empty - 1;

  FOR_KEY
  {
    K k = keys[i], v = missing;
    uint64_t h = Keys<K>::hash (k);

    if (k < tomb)
      for (uint64_t p = 0; p <= mask; p++)
        {
          Slot<K> s = slots[(h + p) & mask];

          if (s.key == k)
            {
              v = s.value;
              break;
            }
          if (s.key == empty)
            break;
        }
    values[i] = v;
  }
}

template <typename K>
__global__ static void
k_erase (Slot<K> *slots, uint64_t mask, const K *keys, size_t n,
    AccelHashMapCounters *c)
{
  Tally t = { 0, 0, 0, 0 };

  FOR_KEY tally (&t, erase_one (slots, mask, keys[i]));
  flush (&t, c);
}

template <typename K>
__global__ static void
k_rehash (const Slot<K> *src, size_t n, Slot<K> *slots, uint64_t mask,
    AccelHashMapCounters *c)
{
  Tally t = { 0, 0, 0, 0 };

  FOR_KEY
  {
    Slot<K> s = src[i];

    if (s.key < Keys<K>::empty - 1)
      tally (&t, insert_one (slots, mask, s.key, s.value));
  }
  flush (&t, c);
}

#define THREADS 256

// enough blocks to fill the GPU many times over, few enough that each
// thread takes several keys and the per-block flush stays cheap
static unsigned
blocks_for (size_t n)
{
  size_t b = (n + THREADS - 1) / THREADS;

  return b < 1 ? 1 : b > 8192 ? 8192 : (unsigned)b;
}

template <typename K>
static int
insert (void *stream, const AccelHashMap *m, const K *keys, const K *values,
    size_t n)
{
  if (m->key_bytes != sizeof (K))
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
  k_insert<K><<<blocks_for (n), THREADS, 0, (cudaStream_t)stream>>> (
      (Slot<K> *)m->slots, m->capacity - 1, keys, values, n, m->counters);
  return cudaGetLastError ();
}

template <typename K>
static int
lookup (void *stream, const AccelHashMap *m, const K *keys, K *values, size_t n,
    K missing)
{
  if (m->key_bytes != sizeof (K))
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
  k_lookup<K><<<blocks_for (n), THREADS, 0, (cudaStream_t)stream>>> (
      (const Slot<K> *)m->slots, m->capacity - 1, keys, values, n, missing);
  return cudaGetLastError ();
}

template <typename K>
static int
erase (void *stream, const AccelHashMap *m, const K *keys, size_t n)
{
  if (m->key_bytes != sizeof (K))
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
  k_erase<K><<<blocks_for (n), THREADS, 0, (cudaStream_t)stream>>> (
      (Slot<K> *)m->slots, m->capacity - 1, keys, n, m->counters);
  return cudaGetLastError ();
}

template <typename K>
static int
rehash (void *stream, const AccelHashMap *src, const AccelHashMap *dst)
{
  k_rehash<K>
      <<<blocks_for (src->capacity), THREADS, 0, (cudaStream_t)stream>>> (
          (const Slot<K> *)src->slots, src->capacity, (Slot<K> *)dst->slots,
          dst->capacity - 1, dst->counters);
  return cudaGetLastError ();
}

extern "C" int
accel_hashmap_clear (void *stream, const AccelHashMap *m)
{
  cudaError_t e;

  e = cudaMemsetAsync (m->slots, 0xff, (size_t)m->capacity * 2 * m->key_bytes,
      (cudaStream_t)stream);
  if (e != cudaSuccess)
    return e;
  return cudaMemsetAsync (
      m->counters, 0, sizeof (AccelHashMapCounters), (cudaStream_t)stream);
}

extern "C" int
accel_hashmap_insert32 (void *stream, const AccelHashMap *m,
    const uint32_t *keys, const uint32_t *values, size_t n)
{
  return insert (stream, m, keys, values, n);
}

extern "C" int
accel_hashmap_insert64 (void *stream, const AccelHashMap *m,
    const uint64_t *keys, const uint64_t *values, size_t n)
{
  return insert (stream, m, keys, values, n);
}

extern "C" int
accel_hashmap_lookup32 (void *stream, const AccelHashMap *m,
    const uint32_t *keys, uint32_t *values, size_t n, uint32_t missing)
{
  return lookup (stream, m, keys, values, n, missing);
}

extern "C" int
accel_hashmap_lookup64 (void *stream, const AccelHashMap *m,
    const uint64_t *keys, uint64_t *values, size_t n, uint64_t missing)
{
  return lookup (stream, m, keys, values, n, missing);
}

extern "C" int
accel_hashmap_erase32 (
    void *stream, const AccelHashMap *m, const uint32_t *keys, size_t n)
{
  return erase (stream, m, keys, n);
}

extern "C" int
accel_hashmap_erase64 (
    void *stream, const AccelHashMap *m, const uint64_t *keys, size_t n)
{
  return erase (stream, m, keys, n);
}

extern "C" int
accel_hashmap_rehash (
    void *stream, const AccelHashMap *src, const AccelHashMap *dst)
{
  if (src->key_bytes != dst->key_bytes)
    return cudaErrorInvalidValue;
  if (src->key_bytes == 4)
    return rehash<uint32_t> (stream, src, dst);
  return rehash<uint64_t> (stream, src, dst);
}
