/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* per-vertex and per-triangle arithmetic of the cloth, shared by the
 * kernels and the host reference; every product and sum is its own
 * operation (no contraction on either side) */
#pragma once

#include <math.h>
#include <stdint.h>

#include "cloth.h"

#ifdef __CUDACC__
#define CLOTH_FN __host__ __device__ static inline
#else
#define CLOTH_FN static inline
#endif

#ifdef __CUDA_ARCH__
#define CLOTH_UNROLL _Pragma ("unroll")
#else
#define CLOTH_UNROLL
#endif

#define CLOTH_EMPTY 0xffffffffffffffffull
#define CLOTH_SQRT2 1.41421356f

CLOTH_FN int
cloth_pinned (const AccelClothParams *p, int i, int j)
{
  if (j * p->w + i == p->grab)
    return 1;
  switch (p->pin)
    {
    case ACCEL_CLOTH_PIN_TOP_ROW:
      return j == 0;
    case ACCEL_CLOTH_PIN_CORNERS:
      return j == 0 && (i == 0 || i == p->w - 1);
    default:
      return 0;
    }
}

CLOTH_FN void
cloth_rest (
    const AccelClothParams *p, int i, int j, float *x, float *y, float *z)
{
  *x = ((float)i - (float)(p->w - 1) * 0.5f) * p->spacing;
  *y = ((float)(p->h - 1) * 0.5f - (float)j) * p->spacing;
  *z = 0.0f;
}

/* Verlet: the velocity the last step left, damped, plus gravity and the
 * wind along the normal (as much as the face is square to it); a pinned
 * vertex stays (a grabbed one goes where it is held) */
CLOTH_FN void
cloth_integrate (
    const AccelClothParams *p, const AccelClothState *s, int i, int j)
{
  int k = j * p->w + i;
  float x = s->x[k], y = s->y[k], z = s->z[k];
  float dt2 = p->dt * p->dt, d = p->damping, wn;

  if (cloth_pinned (p, i, j))
    {
      if (k == p->grab)
        {
          x = p->grab_pos[0];
          y = p->grab_pos[1];
          z = p->grab_pos[2];
        }
      s->x[k] = s->px[k] = x;
      s->y[k] = s->py[k] = y;
      s->z[k] = s->pz[k] = z;
      return;
    }
  wn = s->nx[k] * p->wind[0] + s->ny[k] * p->wind[1] + s->nz[k] * p->wind[2];
  s->x[k] = x + (x - s->px[k]) * d + (p->gravity[0] + wn * s->nx[k]) * dt2;
  s->y[k] = y + (y - s->py[k]) * d + (p->gravity[1] + wn * s->ny[k]) * dt2;
  s->z[k] = z + (z - s->pz[k]) * d + (p->gravity[2] + wn * s->nz[k]) * dt2;
  s->px[k] = x;
  s->py[k] = y;
  s->pz[k] = z;
}

/* constraint @c of 12 (4 structural, 4 shear, 4 bend): its offset and rest
 * length in spacings. Arithmetic rather than a switch, so that threads of
 * one warp taking different constraints run the same instructions */
CLOTH_FN void
cloth_neighbour (int c, int *di, int *dj, float *rest)
{
  /* (di + 2, dj + 2) of each constraint, three bits each, c = 0 lowest:
   * (1, 0) (-1, 0) (0, 1) (0, -1), (1, 1) (-1, -1) (1, -1) (-1, 1),
   * (2, 0) (-2, 0) (0, 2) (0, -2) */
  const uint64_t DI = 0220413132213ull, DJ = 0042231131322ull;

  *di = (int)((DI >> (3 * c)) & 7u) - 2;
  *dj = (int)((DJ >> (3 * c)) & 7u) - 2;
  *rest = c < 4 ? 1.0f : c < 8 ? CLOTH_SQRT2 : 2.0f;
}

/* out of the sphere, onto a shell just outside it */
CLOTH_FN void
cloth_collide (const AccelClothParams *p, float *x, float *y, float *z)
{
  float r = p->sphere[3], dx, dy, dz, d2, k;

  if (r <= 0.0f)
    return;
  dx = *x - p->sphere[0];
  dy = *y - p->sphere[1];
  dz = *z - p->sphere[2];
  d2 = dx * dx + dy * dy + dz * dz;
  if (d2 >= r * r)
    return;
  if (d2 <= 0.0f)
    {
      *y = p->sphere[1] + r * 1.001f;
      return;
    }
  k = r * 1.001f / sqrtf (d2);
  *x = p->sphere[0] + dx * k;
  *y = p->sphere[1] + dy * k;
  *z = p->sphere[2] + dz * k;
}

/* what constraint @c adds to its vertex's sum: nothing where its other
 * end lies off the grid, a count where the two ends meet (no direction to
 * pull along), else a count and a correction */
#define CLOTH_OFF_GRID 0
#define CLOTH_ENDS_MEET 1
#define CLOTH_PULLS 2

/* constraint @c of the free vertex (i, j), which stands at (@x, @y, @z),
 * from positions @ix.. holding the grid from vertex @base on (0: all of
 * it; a band of rows in shared memory): what it adds (above), and the
 * correction the vertex's sum takes away in @cx.. (zero where none). The
 * correction is shared equally with the other end under Jacobi (both move
 * in the sweep), taken whole against a pinned end and under Gauss-Seidel
 * (the other end holds still in this pass) */
CLOTH_FN int
cloth_constraint (const AccelClothParams *p, const float *ix, const float *iy,
    const float *iz, int base, int i, int j, float x, float y, float z, int c,
    float *cx, float *cy, float *cz)
{
  int di, dj, u, v, m;
  float rest, dx, dy, dz, len, share, f;

  *cx = *cy = *cz = 0.0f;
  cloth_neighbour (c, &di, &dj, &rest);
  u = i + di;
  v = j + dj;
  if (u < 0 || u >= p->w || v < 0 || v >= p->h)
    return CLOTH_OFF_GRID;
  m = v * p->w + u - base;
  dx = x - ix[m];
  dy = y - iy[m];
  dz = z - iz[m];
  len = sqrtf (dx * dx + dy * dy + dz * dz);
  if (len <= 0.0f)
    return CLOTH_ENDS_MEET;
  share = cloth_pinned (p, u, v) || p->solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL
              ? 1.0f
              : 0.5f;
  f = (len - rest * p->spacing) / len * share;
  *cx = dx * f;
  *cy = dy * f;
  *cz = dz * f;
  return CLOTH_PULLS;
}

/* a part of a vertex's sum: its constraints counted in @n, their
 * corrections taken away from 0 in @x.. */
typedef struct
{
  int n;
  float x, y, z;
} ClothSum;

/* a vertex's 12 constraints are summed in CLOTH_PARTS parts of three
 * (constraints 0-2, 3-5, 6-8, 9-11, each in that order from nothing), the
 * parts added as (0 + 1) + (2 + 3): an order that threads sharing a vertex,
 * one part or two each, follow with shuffles */
#define CLOTH_PARTS 4

/* constraint @kind (cloth_constraint's) with correction @cx.. into @s */
CLOTH_FN void
cloth_add (ClothSum *s, int kind, float cx, float cy, float cz)
{
  s->n += kind != CLOTH_OFF_GRID;
  if (kind == CLOTH_PULLS)
    {
      s->x = s->x - cx;
      s->y = s->y - cy;
      s->z = s->z - cz;
    }
}

CLOTH_FN ClothSum
cloth_sum_add (ClothSum a, ClothSum b)
{
  ClothSum s;

  s.n = a.n + b.n;
  s.x = a.x + b.x;
  s.y = a.y + b.y;
  s.z = a.z + b.z;
  return s;
}

/* part @part of the sum of the free vertex (i, j), which stands at (@x,
 * @y, @z), from positions @ix.. holding the grid from vertex @base on */
CLOTH_FN ClothSum
cloth_part (const AccelClothParams *p, const float *ix, const float *iy,
    const float *iz, int base, int i, int j, float x, float y, float z,
    int part)
{
  ClothSum s = { 0, 0.0f, 0.0f, 0.0f };

  CLOTH_UNROLL
  for (int k = 0; k < 3; k++)
    {
      float cx, cy, cz;
      int kind = cloth_constraint (
          p, ix, iy, iz, base, i, j, x, y, z, 3 * part + k, &cx, &cy, &cz);

      cloth_add (&s, kind, cx, cy, cz);
    }
  return s;
}

/* the free vertex at (@x, @y, @z) moved by its constraints' corrections
 * (@s, the whole sum) times @k2, relax over their count (the mean times
 * relax), then out of the sphere */
CLOTH_FN void
cloth_move_by (const AccelClothParams *p, ClothSum s, float k2, float *x,
    float *y, float *z)
{
  if (s.n > 0)
    {
      *x = *x + s.x * k2;
      *y = *y + s.y * k2;
      *z = *z + s.z * k2;
    }
  cloth_collide (p, x, y, z);
}

CLOTH_FN void
cloth_move (const AccelClothParams *p, ClothSum s, float *x, float *y, float *z)
{
  cloth_move_by (p, s, s.n > 0 ? p->relax / (float)s.n : 0.0f, x, y, z);
}

/* one sweep at vertex (i, j): from positions @ix.. into @ox.. (the same
 * arrays for Gauss-Seidel), each holding the grid from vertex @base on; a
 * pinned vertex stays. The fused step computes the parts on threads of
 * their own and adds them in the same order */
CLOTH_FN void
cloth_solve_vertex (const AccelClothParams *p, const float *ix, const float *iy,
    const float *iz, float *ox, float *oy, float *oz, int base, int i, int j)
{
  int k = j * p->w + i - base;
  float x = ix[k], y = iy[k], z = iz[k];

  if (!cloth_pinned (p, i, j))
    {
      ClothSum s[CLOTH_PARTS];

      CLOTH_UNROLL
      for (int part = 0; part < CLOTH_PARTS; part++)
        s[part] = cloth_part (p, ix, iy, iz, base, i, j, x, y, z, part);
      cloth_move (p,
          cloth_sum_add (
              cloth_sum_add (s[0], s[1]), cloth_sum_add (s[2], s[3])),
          &x, &y, &z);
    }
  ox[k] = x;
  oy[k] = y;
  oz[k] = z;
}

/* coloured Gauss-Seidel: colour (i + 3 j) mod 5 differs between the ends
 * of every constraint (the offsets (1, 0), (0, 1), (1, 1), (1, -1), (2, 0)
 * and (0, 2) give 1, 3, 4, 3, 2 and 1, none a multiple of 5) */
#define CLOTH_COLOURS 5

/* the first column of row @j in @colour; the others follow 5 apart */
CLOTH_FN int
cloth_colour_first (int colour, int j)
{
  return ((colour - 3 * (j % CLOTH_COLOURS)) % CLOTH_COLOURS + CLOTH_COLOURS)
         % CLOTH_COLOURS;
}

/* the normal at (i, j) into @s's normals: the cross product of the
 * tangents along rows and columns (one-sided at the edges), of unit length,
 * from positions @x.. holding the grid from vertex @base on */
CLOTH_FN void
cloth_normal (const AccelClothParams *p, const float *x, const float *y,
    const float *z, int base, const AccelClothState *s, int i, int j)
{
  int w = p->w, k = j * w + i, c = k - base;
  int l = c - (i > 0), r = c + (i < w - 1);
  int u = c - (j > 0 ? w : 0), d = c + (j < p->h - 1 ? w : 0);
  float ax = x[r] - x[l], ay = y[r] - y[l], az = z[r] - z[l];
  float bx = x[u] - x[d], by = y[u] - y[d], bz = z[u] - z[d];
  float nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
  float len = sqrtf (nx * nx + ny * ny + nz * nz);

  if (len > 0.0f)
    {
      s->nx[k] = nx / len;
      s->ny[k] = ny / len;
      s->nz[k] = nz / len;
    }
  else
    {
      s->nx[k] = 0.0f;
      s->ny[k] = 0.0f;
      s->nz[k] = 1.0f;
    }
}

/* a float's bits, ordered as the floats are */
CLOTH_FN uint32_t
cloth_ordered (float f)
{
  union
  {
    float f;
    uint32_t u;
  } b;

  b.f = f;
  return (b.u & 0x80000000u) ? ~b.u : b.u | 0x80000000u;
}

/* vertex @k on the frame: pixel position and depth (larger: nearer) */
CLOTH_FN void
cloth_project (const AccelClothView *v, const AccelClothState *s, int k,
    float *px, float *py, float *depth)
{
  float y = s->y[k] * v->cos_tilt - s->z[k] * v->sin_tilt;

  *depth = s->y[k] * v->sin_tilt + s->z[k] * v->cos_tilt;
  *px = (s->x[k] - v->center_x) * v->scale + (float)v->width * 0.5f;
  *py = (float)v->height * 0.5f - (y - v->center_y) * v->scale;
}

CLOTH_FN uint8_t
cloth_channel (uint32_t colour, int c, float shade)
{
  float v = (float)((colour >> (8 * c)) & 0xffu) * shade + 0.5f;

  return (uint8_t)(v > 255.0f ? 255.0f : v);
}

/* triangle @t of the 2 (w - 1) (h - 1): its corners, and its colour lit
 * from both sides by its corners' mean normal */
CLOTH_FN uint32_t
cloth_triangle (const AccelClothParams *p, const AccelClothState *s,
    const AccelClothView *v, int t, int *k)
{
  int cell = t / 2, i = cell % (p->w - 1), j = cell / (p->w - 1);
  int k00 = j * p->w + i;
  float nx, ny, nz, len, lit, shade;

  k[0] = k00;
  k[1] = t % 2 ? k00 + p->w + 1 : k00 + 1;
  k[2] = t % 2 ? k00 + p->w : k00 + p->w + 1;
  nx = s->nx[k[0]] + s->nx[k[1]] + s->nx[k[2]];
  ny = s->ny[k[0]] + s->ny[k[1]] + s->ny[k[2]];
  nz = s->nz[k[0]] + s->nz[k[1]] + s->nz[k[2]];
  len = sqrtf (nx * nx + ny * ny + nz * nz);
  lit = len > 0.0f
            ? (nx * v->light[0] + ny * v->light[1] + nz * v->light[2]) / len
            : 0.0f;
  shade = 0.25f + 0.75f * fabsf (lit);
  return (uint32_t)cloth_channel (v->colour, 0, shade)
         | (uint32_t)cloth_channel (v->colour, 1, shade) << 8
         | (uint32_t)cloth_channel (v->colour, 2, shade) << 16
         | (v->colour & 0xff000000u);
}

/* a bound of a triangle's box in pixels, in [0, @size - 1], or just
 * outside it (then the box is empty); clamped while still a float, since a
 * float out of int's range (a cloth blown far off the frame, or NaN)
 * converts differently on the host and the GPU */
CLOTH_FN int
cloth_pixel (float f, int size, int up)
{
  f = fminf (fmaxf (f, -1.0f), (float)size);
  return (int)(up ? ceilf (f) : floorf (f));
}

/* the pixels triangle @t covers, their keys passed to @emit */
#define CLOTH_RASTER(p, s, v, t, EMIT)                                         \
  do                                                                           \
    {                                                                          \
      int k_[3];                                                               \
      uint32_t colour_ = cloth_triangle (p, s, v, t, k_);                      \
      float x_[3], y_[3], d_[3], area_;                                        \
      int x0_, x1_, y0_, y1_;                                                  \
      for (int c_ = 0; c_ < 3; c_++)                                           \
        cloth_project (v, s, k_[c_], &x_[c_], &y_[c_], &d_[c_]);               \
      area_ = (x_[1] - x_[0]) * (y_[2] - y_[0])                                \
              - (y_[1] - y_[0]) * (x_[2] - x_[0]);                             \
      if (!(area_ != 0.0f))                                                    \
        break;                                                                 \
      x0_ = cloth_pixel (fminf (x_[0], fminf (x_[1], x_[2])), (v)->width, 0);  \
      x1_ = cloth_pixel (fmaxf (x_[0], fmaxf (x_[1], x_[2])), (v)->width, 1);  \
      y0_ = cloth_pixel (fminf (y_[0], fminf (y_[1], y_[2])), (v)->height, 0); \
      y1_ = cloth_pixel (fmaxf (y_[0], fmaxf (y_[1], y_[2])), (v)->height, 1); \
      x0_ = x0_ < 0 ? 0 : x0_;                                                 \
      y0_ = y0_ < 0 ? 0 : y0_;                                                 \
      x1_ = x1_ > (v)->width - 1 ? (v)->width - 1 : x1_;                       \
      y1_ = y1_ > (v)->height - 1 ? (v)->height - 1 : y1_;                     \
      for (int py_ = y0_; py_ <= y1_; py_++)                                   \
        for (int px_ = x0_; px_ <= x1_; px_++)                                 \
          {                                                                    \
            float cx_ = (float)px_ + 0.5f, cy_ = (float)py_ + 0.5f;            \
            float e0_ = (x_[2] - x_[1]) * (cy_ - y_[1])                        \
                        - (y_[2] - y_[1]) * (cx_ - x_[1]);                     \
            float e1_ = (x_[0] - x_[2]) * (cy_ - y_[2])                        \
                        - (y_[0] - y_[2]) * (cx_ - x_[2]);                     \
            float e2_ = (x_[1] - x_[0]) * (cy_ - y_[0])                        \
                        - (y_[1] - y_[0]) * (cx_ - x_[0]);                     \
            float z_;                                                          \
            if (!((e0_ >= 0.0f && e1_ >= 0.0f && e2_ >= 0.0f)                  \
                    || (e0_ <= 0.0f && e1_ <= 0.0f && e2_ <= 0.0f)))           \
              continue;                                                        \
            z_ = (e0_ * d_[0] + e1_ * d_[1] + e2_ * d_[2]) / area_;            \
            EMIT ((size_t)py_ *(size_t)(v)->width + (size_t)px_,               \
                (uint64_t)cloth_ordered (-z_) << 32 | colour_);                \
          }                                                                    \
    }                                                                          \
  while (0)
