/* SPDX-License-Identifier: LGPL-2.1-or-later */
// median filter on the GPU: the window's values come out of a shared tile
// and a forgetful selection finds the median with min/max steps only, so
// RGBA8 runs all four channels at once in 16-bit SIMD lanes. RGBA8 and BGRA8
// rows on 16 bytes make eight (5x5) or four (3x3) pixels of two rows at a
// time per thread, one channel pair after the other, with networks that
// sort and merge what neighbouring windows share once for all of them,
// part of their comparisons as exact half arithmetic on the FMA pipe: the
// 5x5 out of a tile filled from 16-byte loads, the 3x3 streamed down
// strips with no tile
#include <cuda_runtime.h>

#include "median.h"
#include "image-device.cuh"

using namespace accel_image;

namespace
{

constexpr int TILE_W = 32;
constexpr int TILE_H = 32;
constexpr int BLOCK_Y = 8;

// a pixel as the tile holds it, with min and max taken channel by channel
template <int K> struct Ops;
template <> struct Ops<KIND_U8X1>
{
  typedef uint32_t T;
  static __device__ __forceinline__ T mn (T a, T b)
  {
    return min (a, b);
  }
  static __device__ __forceinline__ T mx (T a, T b)
  {
    return max (a, b);
  }
};
// RGBA8 and BGRA8 as two registers of 16-bit lanes, channels 0 and 2 in
// x, 1 and 3 in y: min and max of all four channels in two instructions
template <> struct Ops<KIND_U8X4>
{
  typedef uint2 T;
  static __device__ __forceinline__ T mn (T a, T b)
  {
    return make_uint2 (__vminu2 (a.x, b.x), __vminu2 (a.y, b.y));
  }
  static __device__ __forceinline__ T mx (T a, T b)
  {
    return make_uint2 (__vmaxu2 (a.x, b.x), __vmaxu2 (a.y, b.y));
  }
};
template <> struct Ops<KIND_F32X4>
{
  typedef float4 T;
  static __device__ __forceinline__ T mn (T a, T b)
  {
    return make_float4 (
        fminf (a.x, b.x), fminf (a.y, b.y), fminf (a.z, b.z), fminf (a.w, b.w));
  }
  static __device__ __forceinline__ T mx (T a, T b)
  {
    return make_float4 (
        fmaxf (a.x, b.x), fmaxf (a.y, b.y), fmaxf (a.z, b.z), fmaxf (a.w, b.w));
  }
};

template <int K, bool A>
__device__ __forceinline__ typename Ops<K>::T
load_raw (const uint8_t *__restrict__ row, int x)
{
  if constexpr (K == KIND_U8X1)
    {
      return row[x];
    }
  else if constexpr (K == KIND_U8X4)
    {
      const uint8_t *p = row + 4 * (size_t)x;
      uint32_t w;
      if constexpr (A)
        w = *reinterpret_cast<const uint32_t *> (p);
      else
        w = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16)
            | ((uint32_t)p[3] << 24);
      return make_uint2 (w & 0x00ff00ffu, (w >> 8) & 0x00ff00ffu);
    }
  else
    {
      float v[4];
      load_px<K, A> (row, x, v);
      return make_float4 (v[0], v[1], v[2], v[3]);
    }
}

template <int K, bool A>
__device__ __forceinline__ void
store_raw (uint8_t *__restrict__ row, int x, typename Ops<K>::T v)
{
  if constexpr (K == KIND_U8X1)
    {
      row[x] = (uint8_t)v;
    }
  else if constexpr (K == KIND_U8X4)
    {
      uint8_t *p = row + 4 * (size_t)x;
      uint32_t w = v.x | (v.y << 8);
      if constexpr (A)
        {
          *reinterpret_cast<uint32_t *> (p) = w;
        }
      else
        {
          p[0] = (uint8_t)w;
          p[1] = (uint8_t)(w >> 8);
          p[2] = (uint8_t)(w >> 16);
          p[3] = (uint8_t)(w >> 24);
        }
    }
  else
    {
      float f[4] = { v.x, v.y, v.z, v.w };
      store_px<K, A> (row, x, f);
    }
}

template <class O>
__device__ __forceinline__ typename O::T
median3 (typename O::T a, typename O::T b, typename O::T c)
{
  return O::mx (O::mn (a, b), O::mn (O::mx (a, b), c));
}

// median of the (2 R + 1)^2 values @at (i) gives, row by row.
// 3x3: sort each column; the median is the median of the greatest column
// minimum, the median of the column medians and the least column maximum.
// 5x5: a forgetful selection: keep R + 2 more than half of the values, drop
// the least and the greatest (neither can be the median), take the next
// value in, until three are left
template <int K, int R, class At>
__device__ __forceinline__ typename Ops<K>::T
median_of (At at)
{
  typedef typename Ops<K>::T T;

  if constexpr (R == 1)
    {
      T lo[3], mid[3], hi[3];
#pragma unroll
      for (int j = 0; j < 3; j++)
        {
          T a = at (j), b = at (3 + j), c = at (6 + j);
          T l = Ops<K>::mn (a, b), h = Ops<K>::mx (a, b);
          lo[j] = Ops<K>::mn (l, c);
          hi[j] = Ops<K>::mx (h, c);
          mid[j] = Ops<K>::mx (l, Ops<K>::mn (h, c));
        }
      return median3<Ops<K>> (Ops<K>::mx (lo[0], Ops<K>::mx (lo[1], lo[2])),
          median3<Ops<K>> (mid[0], mid[1], mid[2]),
          Ops<K>::mn (hi[0], Ops<K>::mn (hi[1], hi[2])));
    }
  else
    {
      constexpr int N = (2 * R + 1) * (2 * R + 1), HALF = N / 2, W = HALF + 2;
      T w[W];

#pragma unroll
      for (int i = 0; i < W; i++)
        w[i] = at (i);
#pragma unroll
      for (int step = 0; step < HALF - 1; step++)
        {
          const int size = W - step;
#pragma unroll
          for (int i = 1; i < size; i++)
            {
              T a = w[0], b = w[i];
              w[0] = Ops<K>::mn (a, b);
              w[i] = Ops<K>::mx (a, b);
            }
#pragma unroll
          for (int i = 1; i < size - 1; i++)
            {
              T a = w[i], b = w[size - 1];
              w[i] = Ops<K>::mn (a, b);
              w[size - 1] = Ops<K>::mx (a, b);
            }
          w[0] = at (W + step);
        }
      return median3<Ops<K>> (w[0], w[1], w[2]);
    }
}

template <int K, bool A, int R>
__global__ void
__launch_bounds__ (TILE_W *BLOCK_Y)
    median (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  typedef typename Ops<K>::T T;
  constexpr int S = 2 * R + 1, LW = TILE_W + 2 * R, LH = TILE_H + 2 * R;
  __shared__ T tile[LH][LW];
  const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
  const int tid = threadIdx.y * TILE_W + threadIdx.x;

  for (int i = tid; i < LW * LH; i += TILE_W * BLOCK_Y)
    {
      int ly = i / LW, lx = i % LW;
      int y = clampi (y0 - R + ly, 0, height - 1);
      int x = clampi (x0 - R + lx, 0, width - 1);
      tile[ly][lx] = load_raw<K, A> (src + (size_t)y * src_pitch, x);
    }
  __syncthreads ();

  const int tx = threadIdx.x, x = x0 + tx;
  if (x >= width)
    return;
  for (int oy = threadIdx.y; oy < TILE_H && y0 + oy < height; oy += BLOCK_Y)
    {
      T m = median_of<K, R> (
          [&] (int i) { return tile[oy + i / S][tx + i % S]; });
      store_raw<K, A> (dst + (size_t)(y0 + oy) * dst_pitch, x, m);
    }
}

// the fast path's values: two channels of a pixel (0 and 2, or 1 and 3) in
// the 16-bit lanes of a word, each lane 1024 + the byte. As unsigned
// integers or as halves (1024 .. 1279, a step of 1) they order alike, so
// both structs below order the same words
struct Lanes
{
  typedef uint32_t T;
  static __device__ __forceinline__ T mn (T a, T b)
  {
    return __vminu2 (a, b);
  }
  static __device__ __forceinline__ T mx (T a, T b)
  {
    return __vmaxu2 (a, b);
  }
  // @lo and @hi ordered
  static __device__ __forceinline__ void cx (T &lo, T &hi)
  {
    const T l = mn (lo, hi);
    hi = mx (lo, hi);
    lo = l;
  }
};

// the same ordering by half arithmetic, three instructions for two, but on
// the FMA pipe, not on the one min and max share with the rest of the
// integer work: with r = max (a - b, 0), min = a - r and max = b + r, every
// step exact on these values
struct HalfLanes
{
  typedef uint32_t T;
  // max (a - b, 0)
  static __device__ __forceinline__ T excess (T a, T b)
  {
    T r;
    asm("fma.rn.relu.f16x2 %0, %1, %2, %3;"
        : "=r"(r)
        : "r"(b), "r"(0xbc00bc00u), "r"(a));
    return r;
  }
  static __device__ __forceinline__ void cx (T &lo, T &hi)
  {
    const T r = excess (lo, hi);
    T l, h;
    asm("fma.rn.f16x2 %0, %1, %2, %3;"
        : "=r"(l)
        : "r"(r), "r"(0xbc00bc00u), "r"(lo));
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(h) : "r"(r), "r"(hi));
    lo = l;
    hi = h;
  }
};

// Batcher's odd-even merge of a sorted list on wires 0 .. M - 1 with one on
// wires M .. M + N - 1: its comparators (after comparator c, wire lo[c]
// holds the smaller value and hi[c] the greater) and the wire that ends
// with each rank. Built at compile time; a merge whose outputs are only
// partly used loses the comparators they do not depend on to the compiler
template <int M, int N> struct MergeNet
{
  int count = 0;
  int lo[(M + N) * (M + N)] = {};
  int hi[(M + N) * (M + N)] = {};
  int rank[M + N] = {};

  constexpr MergeNet ()
  {
    int a[M + 1] = {}, b[N + 1] = {};

    for (int i = 0; i < M; i++)
      a[i] = i;
    for (int i = 0; i < N; i++)
      b[i] = M + i;
    build (a, M, b, N, rank);
  }

  constexpr void build (const int *a, int m, const int *b, int n, int *out)
  {
    if (m == 0 || n == 0)
      {
        for (int i = 0; i < m; i++)
          out[i] = a[i];
        for (int i = 0; i < n; i++)
          out[i] = b[i];
        return;
      }
    if (m == 1 && n == 1)
      {
        add (a[0], b[0]);
        out[0] = a[0];
        out[1] = b[0];
        return;
      }
    // merge the even ranks of both lists and the odd ones apart; then each
    // odd merged value and the next even one are a comparator apart
    int ae[M + 1] = {}, ao[M + 1] = {}, be[N + 1] = {}, bo[N + 1] = {};
    int v[M + N] = {}, w[M + N] = {};
    const int nv = (m + 1) / 2 + (n + 1) / 2, nw = m / 2 + n / 2;
    for (int i = 0; i < m; i++)
      if (i % 2)
        ao[i / 2] = a[i];
      else
        ae[i / 2] = a[i];
    for (int i = 0; i < n; i++)
      if (i % 2)
        bo[i / 2] = b[i];
      else
        be[i / 2] = b[i];
    build (ae, (m + 1) / 2, be, (n + 1) / 2, v);
    build (ao, m / 2, bo, n / 2, w);
    int k = 0, i = 0;
    out[k++] = v[0];
    for (; i < nw && i + 1 < nv; i++)
      {
        add (w[i], v[i + 1]);
        out[k++] = w[i];
        out[k++] = v[i + 1];
      }
    for (int j = i; j < nw; j++)
      out[k++] = w[j];
    for (int j = i + 1; j < nv; j++)
      out[k++] = v[j];
  }

  constexpr void add (int l, int h)
  {
    lo[count] = l;
    hi[count] = h;
    count++;
  }
};

template <class O, int M, int N>
__device__ __forceinline__ void
merge (const typename O::T (&a)[M], const typename O::T (&b)[N],
    typename O::T (&out)[M + N])
{
  constexpr MergeNet<M, N> net;
  typename O::T w[M + N];

#pragma unroll
  for (int i = 0; i < M; i++)
    w[i] = a[i];
#pragma unroll
  for (int i = 0; i < N; i++)
    w[M + i] = b[i];
#pragma unroll
  for (int c = 0; c < net.count; c++)
    O::cx (w[net.lo[c]], w[net.hi[c]]);
#pragma unroll
  for (int i = 0; i < M + N; i++)
    out[i] = w[net.rank[i]];
}

// merge sort: for 2, 4 and 5 values as few comparators as any network
template <class O, int N>
__device__ __forceinline__ void
sort (const typename O::T (&in)[N], typename O::T (&out)[N])
{
  if constexpr (N == 1)
    {
      out[0] = in[0];
    }
  else
    {
      typename O::T a[N / 2], b[N - N / 2], sa[N / 2], sb[N - N / 2];
#pragma unroll
      for (int i = 0; i < N / 2; i++)
        a[i] = in[i];
#pragma unroll
      for (int i = 0; i < N - N / 2; i++)
        b[i] = in[N / 2 + i];
      sort<O> (a, sa);
      sort<O> (b, sb);
      merge<O> (sa, sb, out);
    }
}

// forgetful selection of the median of 25 (index 12): of @n sorted values
// of the window, with @below more of its values known to lie below the
// median and @above above it, the indices that can still hold the median;
// outside them a value has 13 or more of the window at or above it (or at
// or below it)
struct Kept
{
  int first, last;
};

constexpr Kept
kept (int n, int below, int above)
{
  return { n + above > 13 ? n + above - 13 : 0,
    n - 1 < 12 - below ? n - 1 : 12 - below };
}

// merges two sorted lists of a window's values and keeps the indices that
// can still hold the median; BELOW and ABOVE: as for kept ()
template <class O, int BELOW, int ABOVE, int M, int N>
__device__ __forceinline__ void
merge_kept (const typename O::T (&a)[M], const typename O::T (&b)[N],
    typename O::T (&out)[kept (M + N, BELOW, ABOVE).last
                         - kept (M + N, BELOW, ABOVE).first + 1])
{
  constexpr Kept k = kept (M + N, BELOW, ABOVE);
  typename O::T all[M + N];

  merge<O> (a, b, all);
#pragma unroll
  for (int i = k.first; i <= k.last; i++)
    out[i - k.first] = all[i];
}

// median of @a and the sorted pair @lo <= @hi
template <class O>
__device__ __forceinline__ typename O::T
median_pair (typename O::T a, typename O::T lo, typename O::T hi)
{
  return O::mx (lo, O::mn (hi, a));
}

// the 5x5 medians of the 8 x 2 pixels a thread makes, of one channel pair:
// @px holds the 12 x 6 pixels their windows cover (window (k, r): columns k
// .. k + 4, rows r .. r + 4). Every sorted run and merge is made once for
// all the windows that contain it, and merges keep only the ranks that can
// still be a median. Rows 1 .. 4 of a column are in the windows of both
// rows; columns 1 + 2 j .. 4 + 2 j of them in windows 2 j and 2 j + 1 of
// both rows; columns 1 + 2 j .. 4 + 2 j of row 0 (5) in windows 2 j and
// 2 j + 1 of row 0 (1). So a window ends as its fifth column of rows 1 ..
// 4, then the four shared columns of its own row, then its one pixel of
// that row left. The sorts, the full merges and two of the four merges of
// 16 order with @F on the FMA pipe, the other kept merges with @O, which
// leaves the kernel's instructions about twice its ALU-pipe ones
template <class O, class F>
__device__ __forceinline__ void
median5_8x2 (const typename O::T (&px)[6][12], typename O::T (&out)[2][8])
{
  typedef typename O::T T;
  T col[12][4], cols[5][8], half[4][10], four[2][4][4];

#pragma unroll
  for (int j = 0; j < 12; j++)
    {
      const T c[4] = { px[1][j], px[2][j], px[3][j], px[4][j] };
      sort<F> (c, col[j]);
    }
#pragma unroll
  for (int i = 0; i < 5; i++)
    merge<F> (col[1 + 2 * i], col[2 + 2 * i], cols[i]);
  // of the 16 values of columns 1 + 2 j .. 4 + 2 j, 3 are below any of
  // their windows' medians and 3 above
  merge_kept<F, 0, 0> (cols[0], cols[1], half[0]);
  merge_kept<F, 0, 0> (cols[1], cols[2], half[1]);
  merge_kept<O, 0, 0> (cols[2], cols[3], half[2]);
  merge_kept<O, 0, 0> (cols[3], cols[4], half[3]);
#pragma unroll
  for (int r = 0; r < 2; r++)
    {
      T pair[5][2];
#pragma unroll
      for (int i = 0; i < 5; i++)
        {
          const T p[2] = { px[r ? 5 : 0][1 + 2 * i], px[r ? 5 : 0][2 + 2 * i] };
          sort<F> (p, pair[i]);
        }
#pragma unroll
      for (int j = 0; j < 4; j++)
        merge<F> (pair[j], pair[j + 1], four[r][j]);
    }
#pragma unroll
  for (int k = 0; k < 8; k++)
    {
      // with the window's fifth column, 7 of its rows 1 .. 4 are below its
      // median and 7 above
      const int o = k % 2 ? k + 4 : k;
      T mid[6];
      merge_kept<O, 3, 3> (half[k / 2], col[o], mid);
#pragma unroll
      for (int r = 0; r < 2; r++)
        {
          // and with the four of its row, 11 and 11: the median is the
          // middle one of the two left and the row's last pixel
          T two[2];
          merge_kept<O, 7, 7> (mid, four[r][k / 2], two);
          out[r][k] = median_pair<O> (px[r ? 5 : 0][o], two[0], two[1]);
        }
    }
}

// the 3x3 medians of the 4 x 2 pixels a thread makes, of one channel pair,
// from the 6 x 4 pixels their windows cover: a window's median is the
// median of the greatest of its column minima, the median of its column
// medians and the least of its column maxima. Rows 1 and 2 of a column are
// sorted once for both rows, windows 0 and 1 (2 and 3) sort their two
// shared column medians once and take the extremes of their two shared
// columns once. The pairs are ordered with @F on the FMA pipe, the rest
// with @O: the split that measured fastest
template <class O, class F>
__device__ __forceinline__ void
median3_4x2 (const typename O::T (&px)[4][6], typename O::T (&out)[2][4])
{
  typedef typename O::T T;
  T plo[6], phi[6];

#pragma unroll
  for (int j = 0; j < 6; j++)
    {
      plo[j] = px[1][j];
      phi[j] = px[2][j];
      F::cx (plo[j], phi[j]);
    }
#pragma unroll
  for (int r = 0; r < 2; r++)
    {
      const T (&t)[6] = px[r ? 3 : 0];
      T lo[6], mid[6], hi[6], mlo[2], mhi[2];
#pragma unroll
      for (int j = 0; j < 6; j++)
        {
          lo[j] = O::mn (plo[j], t[j]);
          hi[j] = O::mx (phi[j], t[j]);
          mid[j] = median_pair<O> (t[j], plo[j], phi[j]);
        }
#pragma unroll
      for (int e = 0; e < 2; e++)
        {
          mlo[e] = mid[1 + 2 * e];
          mhi[e] = mid[2 + 2 * e];
          F::cx (mlo[e], mhi[e]);
        }
#pragma unroll
      for (int k = 0; k < 4; k++)
        {
          // columns q and q + 1 are shared with the neighbouring window,
          // o is the window's own
          const int q = k % 2 ? k : k + 1, o = k % 2 ? k + 2 : k;
          T a = O::mx (lo[o], O::mx (lo[q], lo[q + 1]));
          T b = median_pair<O> (mid[o], mlo[k / 2], mhi[k / 2]);
          const T c = O::mn (hi[o], O::mn (hi[q], hi[q + 1]));
          // the median of a, b and c
          F::cx (a, b);
          out[r][k] = O::mx (a, O::mn (b, c));
        }
    }
}

constexpr int FAST_W = 64;
constexpr int FAST_THREADS = 128;
// each thread makes eight pixels of two rows
constexpr int FAST_H = 2 * FAST_THREADS / (FAST_W / 8);
// a tile row holds the pixels from x0 - 4 on, whole chunks of four
constexpr int FAST_CHUNKS = FAST_W / 4 + 2;

// the 5x5 median of RGBA8 and BGRA8 rows on 16 bytes, from a shared tile;
// four blocks an SM: 104 registers, none spilled (left to itself, ptxas
// takes 96 and spills)
__global__ void
__launch_bounds__ (FAST_THREADS, 4)
    median5_rgba (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  constexpr int R = 2, ROWS = FAST_H + 2 * R, S = 2 * R + 1;
  // channels 0 and 2 of each pixel in plane 0, 1 and 3 in plane 1, in
  // 16-bit lanes; even chunks apart from odd ones, so that the 16-byte
  // loads of neighbouring threads, two chunks apart, meet no bank twice
  __shared__ uint4 tile[2][ROWS][2][FAST_CHUNKS / 2];
  const int x0 = blockIdx.x * FAST_W, y0 = blockIdx.y * FAST_H;

  load_tile_words4<ROWS, FAST_CHUNKS, FAST_THREADS> (src, src_pitch, x0 - 4,
      y0 - R, width, height, [&] (int ly, int c, const uint32_t *w) {
        // bytes 0 and 2 (1 and 3) each under a byte of 0x64: 1024 + v
        tile[0][ly][c % 2][c / 2] = make_uint4 (
            __byte_perm (w[0], 0x64, 0x4240), __byte_perm (w[1], 0x64, 0x4240),
            __byte_perm (w[2], 0x64, 0x4240), __byte_perm (w[3], 0x64, 0x4240));
        tile[1][ly][c % 2][c / 2] = make_uint4 (
            __byte_perm (w[0], 0x64, 0x4341), __byte_perm (w[1], 0x64, 0x4341),
            __byte_perm (w[2], 0x64, 0x4341), __byte_perm (w[3], 0x64, 0x4341));
      });
  __syncthreads ();

  const int q = threadIdx.x % (FAST_W / 8),
            oy = 2 * (threadIdx.x / (FAST_W / 8));
  const int x = x0 + 8 * q, y = y0 + oy;
  if (x >= width || y >= height)
    return;

  uint32_t m[2][2][8];
#pragma unroll
  for (int p = 0; p < 2; p++)
    {
      // columns x - R .. x + 7 + R: pixel x is word 4 of the four chunks
      // 2 q .. 2 q + 3
      uint32_t px[S + 1][8 + 2 * R];
#pragma unroll
      for (int r = 0; r < S + 1; r++)
        {
          uint32_t w[16];
#pragma unroll
          for (int c = 0; c < 4; c++)
            {
              const uint4 v = tile[p][oy + r][c % 2][q + c / 2];
              w[4 * c] = v.x;
              w[4 * c + 1] = v.y;
              w[4 * c + 2] = v.z;
              w[4 * c + 3] = v.w;
            }
#pragma unroll
          for (int j = 0; j < 8 + 2 * R; j++)
            px[r][j] = w[4 - R + j];
        }
      median5_8x2<Lanes, HalfLanes> (px, m[p]);
    }
#pragma unroll
  for (int r = 0; r < 2; r++)
    if (y + r < height)
#pragma unroll
      for (int h = 0; h < 2; h++)
        {
          uint32_t w[4];
#pragma unroll
          for (int i = 0; i < 4; i++)
            w[i] = __byte_perm (m[0][r][4 * h + i], m[1][r][4 * h + i], 0x6240);
          store_words4 (dst + (size_t)(y + r) * dst_pitch, x + 4 * h, width, w);
        }
}

// the 3x3 median of RGBA8 and BGRA8 rows on 16 bytes streamed down
// strips: each thread makes four pixels of STRIP rows, loads all of its
// rows before the first median, takes the pixel either side from the
// neighbouring lane and runs median3_4x2 () on each pair of rows, which
// shares the pair's middle rows. No shared tile, no barrier. Strips of
// eight rows measured fastest (75 % / 65 % of a copy at 1080p / 4K on an
// H200, against 71 % / 62-65 % for two and four rows and 68 % / 61 % for
// the shared tile that the 5x5 median keeps)
constexpr int STRIP = 8;

__global__ void __launch_bounds__ (32 * STRIP_WARPS)
    median3_rgba_stream (const uint8_t *__restrict__ src, size_t src_pitch,
        uint8_t *__restrict__ dst, size_t dst_pitch, int width, int height)
{
  Strip<STRIP> strip;
  // plane 0 holds channels 0 and 2 of columns x - 1 .. x + 4 (x: strip.x),
  // plane 1 channels 1 and 3, each lane 1024 + the byte
  uint32_t px[2][Strip<STRIP>::ROWS][6];

  if (!strip.load (src, src_pitch, width, height))
    return;
#pragma unroll
  for (int i = 0; i < strip.ROWS; i++)
    {
      uint32_t v[6];

      strip_neighbours (
          strip.w[i][0], strip.w[i][3], strip.edge[i], v[0], v[5]);
#pragma unroll
      for (int j = 0; j < 4; j++)
        v[1 + j] = strip.w[i][j];
#pragma unroll
      for (int j = 0; j < 6; j++)
        {
          px[0][i][j] = __byte_perm (v[j], 0x64, 0x4240);
          px[1][i][j] = __byte_perm (v[j], 0x64, 0x4341);
        }
    }
#pragma unroll
  for (int r = 0; r < STRIP; r += 2)
    {
      uint32_t m[2][2][4];

      if (strip.y0 + r >= height)
        break;
#pragma unroll
      for (int p = 0; p < 2; p++)
        {
          uint32_t rows[4][6];
#pragma unroll
          for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 6; j++)
              rows[i][j] = px[p][r + i][j];
          median3_4x2<Lanes, HalfLanes> (rows, m[p]);
        }
      if (strip.x >= width)
        continue;
#pragma unroll
      for (int k = 0; k < 2; k++)
        if (strip.y0 + r + k < height)
          {
            uint32_t out[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
              out[i] = __byte_perm (m[0][k][i], m[1][k][i], 0x6240);
            store_words4 (dst + (size_t)(strip.y0 + r + k) * dst_pitch, strip.x,
                width, out);
          }
    }
}

int
launch_median3_stream (cudaStream_t stream, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height)
{
  median3_rgba_stream<<<strip_grid (width, height, STRIP),
      dim3 (32, STRIP_WARPS), 0, stream>>> ((const uint8_t *)src, src_pitch,
      (uint8_t *)dst, dst_pitch, width, height);
  return cudaGetLastError ();
}

template <int K, bool A>
int
launch (cudaStream_t stream, const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int size)
{
  dim3 grid ((width + TILE_W - 1) / TILE_W, (height + TILE_H - 1) / TILE_H);
  dim3 block (TILE_W, BLOCK_Y);

  if (size == 3)
    median<K, A, 1><<<grid, block, 0, stream>>> ((const uint8_t *)src,
        src_pitch, (uint8_t *)dst, dst_pitch, width, height);
  else
    median<K, A, 2><<<grid, block, 0, stream>>> ((const uint8_t *)src,
        src_pitch, (uint8_t *)dst, dst_pitch, width, height);
  return cudaGetLastError ();
}

} // namespace

extern "C" int
accel_median (void *stream, int format, const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int size)
{
  cudaStream_t s = (cudaStream_t)stream;
  int kind = kind_of (format);
  bool a = aligned_for (kind, src, src_pitch)
           && aligned_for (kind, dst, dst_pitch);

  if (!accel_image_format_is_packed (format)
      || !accel_image_args_valid (format, src, src_pitch, width, height)
      || !accel_image_args_valid (format, dst, dst_pitch, width, height)
      || (size != 3 && size != 5))
    return cudaErrorInvalidValue;
  switch (kind)
    {
    case KIND_U8X1:
      return launch<KIND_U8X1, true> (
          s, src, src_pitch, dst, dst_pitch, width, height, size);
    case KIND_U8X4:
      if (aligned16 (src, src_pitch) && aligned16 (dst, dst_pitch))
        {
          if (size == 3)
            return launch_median3_stream (
                s, src, src_pitch, dst, dst_pitch, width, height);
          dim3 grid (
              (width + FAST_W - 1) / FAST_W, (height + FAST_H - 1) / FAST_H);
          median5_rgba<<<grid, FAST_THREADS, 0, s>>> ((const uint8_t *)src,
              src_pitch, (uint8_t *)dst, dst_pitch, width, height);
          return cudaGetLastError ();
        }
      return a ? launch<KIND_U8X4, true> (
                 s, src, src_pitch, dst, dst_pitch, width, height, size)
               : launch<KIND_U8X4, false> (
                   s, src, src_pitch, dst, dst_pitch, width, height, size);
    default:
      return a ? launch<KIND_F32X4, true> (
                 s, src, src_pitch, dst, dst_pitch, width, height, size)
               : launch<KIND_F32X4, false> (
                   s, src, src_pitch, dst, dst_pitch, width, height, size);
    }
}
