/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cloth: the host reference, pass for pass as on the GPU */
#include <string.h>

#include "cloth-vertex.h"
#include "cloth.h"

static int
args_valid (const AccelClothParams *p)
{
  return p->w >= 2 && p->h >= 2 && p->iterations >= 0
         && (p->solver == ACCEL_CLOTH_SOLVER_JACOBI
             || p->solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL);
}

/* one coloured Gauss-Seidel sweep, in place, colour after colour */
static void
solve_coloured (const AccelClothParams *p, const AccelClothState *s)
{
  for (int c = 0; c < CLOTH_COLOURS; c++)
    for (int j = 0; j < p->h; j++)
      for (int i = cloth_colour_first (c, j); i < p->w; i += CLOTH_COLOURS)
        cloth_solve_vertex (p, s->x, s->y, s->z, s->x, s->y, s->z, 0, i, j);
}

int
accel_cloth_reset_host (const AccelClothParams *p, const AccelClothState *s)
{
  if (!args_valid (p))
    return 1;
  for (int j = 0; j < p->h; j++)
    for (int i = 0; i < p->w; i++)
      {
        int k = j * p->w + i;

        cloth_rest (p, i, j, &s->x[k], &s->y[k], &s->z[k]);
        s->px[k] = s->x[k];
        s->py[k] = s->y[k];
        s->pz[k] = s->z[k];
        s->nx[k] = 0.0f;
        s->ny[k] = 0.0f;
        s->nz[k] = 1.0f;
      }
  return 0;
}

int
accel_cloth_step_host (const AccelClothParams *p, const AccelClothState *s)
{
  if (!args_valid (p))
    return 1;
  for (int j = 0; j < p->h; j++)
    for (int i = 0; i < p->w; i++)
      cloth_integrate (p, s, i, j);
  if (p->solver == ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL)
    for (int it = 0; it < p->iterations; it++)
      solve_coloured (p, s);
  else
    /* in pairs: the positions end where they started */
    for (int it = 0; it < p->iterations; it += 2)
      {
        for (int j = 0; j < p->h; j++)
          for (int i = 0; i < p->w; i++)
            cloth_solve_vertex (
                p, s->x, s->y, s->z, s->sx, s->sy, s->sz, 0, i, j);
        for (int j = 0; j < p->h; j++)
          for (int i = 0; i < p->w; i++)
            cloth_solve_vertex (
                p, s->sx, s->sy, s->sz, s->x, s->y, s->z, 0, i, j);
      }
  for (int j = 0; j < p->h; j++)
    for (int i = 0; i < p->w; i++)
      cloth_normal (p, s->x, s->y, s->z, 0, s, i, j);
  return 0;
}

#define EMIT_MIN(i, key)                                                       \
  do                                                                           \
    {                                                                          \
      if ((key) < depth[i])                                                    \
        depth[i] = (key);                                                      \
    }                                                                          \
  while (0)

int
accel_cloth_render_host (const AccelClothParams *p, const AccelClothState *s,
    const AccelClothView *v, uint64_t *depth, uint8_t *rgba, size_t pitch)
{
  int n_tri = 2 * (p->w - 1) * (p->h - 1);

  if (!args_valid (p) || v->width < 1 || v->height < 1
      || pitch < (size_t)v->width * 4)
    return 1;
  for (size_t i = 0; i < accel_cloth_depth_size (v); i++)
    depth[i] = CLOTH_EMPTY;
  for (int t = 0; t < n_tri; t++)
    CLOTH_RASTER (p, s, v, t, EMIT_MIN);
  for (int y = 0; y < v->height; y++)
    for (int x = 0; x < v->width; x++)
      {
        uint64_t key = depth[(size_t)y * v->width + x];
        uint32_t c = key == CLOTH_EMPTY ? v->background : (uint32_t)key;
        uint8_t *px = rgba + (size_t)y * pitch + (size_t)x * 4;

        for (int b = 0; b < 4; b++)
          px[b] = (uint8_t)(c >> (8 * b));
      }
  return 0;
}
