/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: Philox4x32-10 and xorwow, and the uniform, normal and
 * log-normal distributions, in plain C */
#include <math.h>

#include "accelrandhost.h"

/* a run of 32-bit draws */
typedef struct
{
  AccelRandGenerator generator;
  /* philox */
  uint32_t key[2];
  uint64_t next_block;
  uint32_t block[4];
  unsigned lane; /* next word of block; 4: used up */
  /* xorwow */
  uint32_t x[5];
  uint32_t d;
} Draws;

/* Philox4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as
 * easy as 1, 2, 3", SC 2011) */
void
accel_rand_philox4x32_10 (
    const uint32_t key[2], const uint32_t counter[4], uint32_t out[4])
{
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];

  for (int round = 0; round < 10; round++)
    {
      uint64_t p0 = (uint64_t)0xD2511F53u * c0;
      uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
      uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
      uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
      c1 = (uint32_t)p1;
      c3 = (uint32_t)p0;
      c0 = n0;
      c2 = n2;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* SplitMix64's finaliser: a good 64-bit mix for seeding */
static uint64_t
mix64 (uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

/* block @n of the stream keyed by @key */
static void
philox_block (const uint32_t key[2], uint64_t n, uint32_t out[4])
{
  const uint32_t counter[4] = { (uint32_t)n, (uint32_t)(n >> 32), 0, 0 };

  accel_rand_philox4x32_10 (key, counter, out);
}

static void
draws_init (
    Draws *d, AccelRandGenerator generator, uint64_t seed, uint64_t offset)
{
  d->generator = generator;
  if (generator == ACCEL_RAND_PHILOX)
    {
      d->key[0] = (uint32_t)seed;
      d->key[1] = (uint32_t)(seed >> 32);
      d->next_block = offset / 4;
      philox_block (d->key, d->next_block++, d->block);
      d->lane = (unsigned)(offset % 4);
    }
  else
    {
      uint64_t state = mix64 (seed ^ mix64 (offset + 0x632BE59BD9B4E019u));
      uint32_t any = 0;
      for (int i = 0; i < 5; i++)
        {
          state += 0x9E3779B97F4A7C15u;
          d->x[i] = (uint32_t)mix64 (state);
          any |= d->x[i];
        }
      /* xorwow's shift register must not be all zero */
      if (!any)
        d->x[0] = 0x2545F491u;
      state += 0x9E3779B97F4A7C15u;
      d->d = (uint32_t)mix64 (state);
    }
}

static uint32_t
draws_next (Draws *d)
{
  uint32_t t;

  if (d->generator == ACCEL_RAND_PHILOX)
    {
      if (d->lane == 4)
        {
          philox_block (d->key, d->next_block++, d->block);
          d->lane = 0;
        }
      return d->block[d->lane++];
    }
  /* Marsaglia's xorwow: xorshift with a Weyl sequence added */
  t = d->x[0] ^ (d->x[0] >> 2);
  d->x[0] = d->x[1];
  d->x[1] = d->x[2];
  d->x[2] = d->x[3];
  d->x[3] = d->x[4];
  d->x[4] = (d->x[4] ^ (d->x[4] << 4)) ^ (t ^ (t << 1));
  d->d += 362437u;
  return d->x[4] + d->d;
}

/* uniform on (0, 1], as cuRAND's: never 0, so log() is safe */
static double
uniform01 (Draws *d, int f64)
{
  if (f64)
    {
      uint64_t hi = draws_next (d), lo = draws_next (d);
      uint64_t k = (hi << 21) | (lo >> 11);
      return ((double)k + 1.0) * 0x1p-53;
    }
  return ((double)draws_next (d) + 1.0) * 0x1p-32;
}

uint64_t
accel_rand_draws (AccelRandDistribution dist, int f64, size_t n)
{
  uint64_t values = n;

  if (dist != ACCEL_RAND_DIST_UNIFORM)
    values += n & 1;
  return values * (f64 ? 2 : 1);
}

static void
store (void *out, int f64, size_t i, double v)
{
  if (f64)
    ((double *)out)[i] = v;
  else
    ((float *)out)[i] = (float)v;
}

void
accel_rand_fill_host (AccelRandGenerator generator, uint64_t seed,
    uint64_t offset, AccelRandDistribution dist, double a, double b, int f64,
    void *out, size_t n)
{
  Draws d;

  draws_init (&d, generator, seed, offset);
  if (dist == ACCEL_RAND_DIST_UNIFORM)
    {
      for (size_t i = 0; i < n; i++)
        {
          double u = uniform01 (&d, f64);
          /* the f32 value is rounded before scaling, as on the GPU */
          if (!f64)
            u = (float)u;
          store (out, f64, i, a + (b - a) * u);
        }
      return;
    }

  /* Box-Muller: two uniforms make two independent standard normals */
  for (size_t i = 0; i < n; i += 2)
    {
      double u1 = uniform01 (&d, f64), u2 = uniform01 (&d, f64);
      double r = sqrt (-2.0 * log (u1));
      double z[2] = { r * cos (2.0 * M_PI * u2), r * sin (2.0 * M_PI * u2) };
      for (size_t j = 0; j < 2 && i + j < n; j++)
        {
          double v = a + b * z[j];
          store (out, f64, i + j,
              dist == ACCEL_RAND_DIST_LOG_NORMAL ? exp (v) : v);
        }
    }
}
