/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the hash of a key, shared by the kernels and the host reference so both
 * probe the same slots */
#pragma once

#include <stdint.h>

#ifdef __CUDACC__
#define HASHMAP_FN __host__ __device__ static inline
#else
#define HASHMAP_FN static inline
#endif

/* murmur3's finalizer: every key bit reaches the low bits that pick a slot */
HASHMAP_FN uint64_t
hashmap_hash32 (uint32_t k)
{
  k ^= k >> 16;
  k *= UINT32_C (0x85ebca6b);
  k ^= k >> 13;
  k *= UINT32_C (0xc2b2ae35);
  k ^= k >> 16;
  return k;
}

/* splitmix64's finalizer */
HASHMAP_FN uint64_t
hashmap_hash64 (uint64_t k)
{
  k ^= k >> 30;
  k *= UINT64_C (0xbf58476d1ce4e5b9);
  k ^= k >> 27;
  k *= UINT64_C (0x94d049bb133111eb);
  k ^= k >> 31;
  return k;
}
