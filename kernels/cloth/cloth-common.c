/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cloth: defaults, the layout of the arrays in one block, a strain measure */
#include <math.h>
#include <string.h>

#include "cloth.h"

#define N_ARRAYS 12
#define N_STATE 9

void
accel_cloth_params_init (AccelClothParams *p, int w, int h)
{
  memset (p, 0, sizeof *p);
  p->w = w;
  p->h = h;
  p->spacing = 2.0f / (float)(w > h ? w - 1 : h - 1);
  p->dt = 1.0f / 60.0f;
  p->iterations = 20;
  p->relax = 1.5f;
  p->damping = 0.99f;
  p->gravity[1] = -9.8f;
  p->pin = ACCEL_CLOTH_PIN_CORNERS;
  p->grab = -1;
}

void
accel_cloth_params_set_wind (
    AccelClothParams *p, float strength, uint64_t frame)
{
  double t = (double)frame / 60.0;
  float gust = (float)(0.6 + 0.4 * sin (t * 1.7) * sin (t * 0.6 + 1.0));

  p->wind[0] = strength * 0.3f * (float)sin (t * 0.9);
  p->wind[1] = 0.0f;
  p->wind[2] = strength * gust;
}

void
accel_cloth_view_init (
    AccelClothView *v, const AccelClothParams *p, int width, int height)
{
  float extent_x = (float)(p->w - 1) * p->spacing;
  float extent_y = (float)(p->h - 1) * p->spacing;
  float sx = (float)width / (extent_x * 1.6f);
  float sy = (float)height / (extent_y * 2.6f);

  memset (v, 0, sizeof *v);
  v->width = width;
  v->height = height;
  /* the top row a little above the middle: the cloth falls below it */
  v->center_y = -extent_y * 0.55f;
  v->scale = sx < sy ? sx : sy;
  v->cos_tilt = cosf (0.5f);
  v->sin_tilt = sinf (0.5f);
  v->light[0] = 0.48f;
  v->light[1] = 0.6f;
  v->light[2] = 0.64f;
  v->colour = 0xff3c50dcu; /* a warm red, opaque */
  v->background = 0xff201814u;
}

size_t
accel_cloth_state_size (int w, int h)
{
  return (size_t)N_ARRAYS * (size_t)w * (size_t)h * sizeof (float);
}

size_t
accel_cloth_persistent_size (int w, int h)
{
  return (size_t)N_STATE * (size_t)w * (size_t)h * sizeof (float);
}

void
accel_cloth_state_init (AccelClothState *s, void *block, int w, int h)
{
  float *b = block;
  size_t n = (size_t)w * (size_t)h;
  float **order[N_ARRAYS] = { &s->x, &s->y, &s->z, &s->px, &s->py, &s->pz,
    &s->nx, &s->ny, &s->nz, &s->sx, &s->sy, &s->sz };

  for (int i = 0; i < N_ARRAYS; i++)
    *order[i] = b + (size_t)i * n;
}

size_t
accel_cloth_depth_size (const AccelClothView *v)
{
  return (size_t)v->width * (size_t)v->height;
}

float
accel_cloth_max_strain_host (
    const AccelClothParams *p, const AccelClothState *s)
{
  float worst = 0.0f;

  for (int j = 0; j < p->h; j++)
    for (int i = 0; i < p->w; i++)
      for (int c = 0; c < 2; c++)
        {
          int u = i + (c == 0), v = j + (c == 1), a = j * p->w + i, b;
          float dx, dy, dz, e;

          if (u >= p->w || v >= p->h)
            continue;
          b = v * p->w + u;
          dx = s->x[a] - s->x[b];
          dy = s->y[a] - s->y[b];
          dz = s->z[a] - s->z[b];
          e = fabsf (sqrtf (dx * dx + dy * dy + dz * dz) - p->spacing)
              / p->spacing;
          worst = e > worst ? e : worst;
        }
  return worst;
}
