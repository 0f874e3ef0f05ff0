/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* 2D stable fluids: the host reference, pass for pass as on the GPU */
#include <string.h>

#include "fluid-cell.h"
#include "fluid.h"

#define FOR_CELLS(n)                                                           \
  for (int y = 0; y < (n); y++)                                                \
    for (int x = 0, i = y * (n); x < (n); x++, i++)

int
accel_fluid_step_host (const AccelFluidParams *p, const AccelFluidFields *f)
{
  int n = p->n;
  const float *wu = f->u0, *wv = f->v0;
  float a = p->viscosity * p->dt;
  int iters = (p->pressure_iters + 1) & ~1;

  if (p->inject_radius > 0.0f)
    FOR_CELLS (n)
    {
      float w = fluid_splat_weight (
          p->inject_x, p->inject_y, p->inject_radius, x, y);
      f->u[i] = fmaf (w, p->force_x, f->u[i]);
      f->v[i] = fmaf (w, p->force_y, f->v[i]);
      f->dye[i] = fmaf (w, p->dye_amount, f->dye[i]);
    }
  if (p->vorticity > 0.0f)
    {
      FOR_CELLS (n) f->curl[i] = fluid_curl_cell (f->u, f->v, n, x, y);
      FOR_CELLS (n)
      {
        float fx, fy;
        fluid_vorticity_force (f->curl, n, p->vorticity, p->dt, x, y, &fx, &fy);
        f->u[i] = f->u[i] + fx;
        f->v[i] = f->v[i] + fy;
      }
    }
  FOR_CELLS (n)
  {
    f->u0[i] = fluid_advect_cell (f->u, f->u, f->v, n, p->dt, x, y);
    f->v0[i] = fluid_advect_cell (f->v, f->u, f->v, n, p->dt, x, y);
  }
  if (p->viscosity > 0.0f)
    for (int k = 0; k < p->diffuse_iters; k++)
      {
        float *du = k % 2 == 0 ? f->u1 : f->u, *dv = k % 2 == 0 ? f->v1 : f->v;
        FOR_CELLS (n)
        {
          du[i] = fluid_jacobi_cell (wu, f->u0, n, a, x, y);
          dv[i] = fluid_jacobi_cell (wv, f->v0, n, a, x, y);
        }
        wu = du;
        wv = dv;
      }
  FOR_CELLS (n) f->div[i] = fluid_divergence_cell (wu, wv, n, x, y);
  for (int k = 0; k < iters; k++)
    {
      const float *src = k % 2 ? f->p0 : f->p;
      float *dst = k % 2 ? f->p : f->p0;
      FOR_CELLS (n) dst[i] = fluid_pressure_cell (src, f->div, n, x, y);
    }
  FOR_CELLS (n)
  {
    f->u[i] = fluid_project (wu[i], fluid_at (f->p, n, x + 1, y),
        fluid_at (f->p, n, x - 1, y), x == 0 || x == n - 1);
    f->v[i] = fluid_project (wv[i], fluid_at (f->p, n, x, y + 1),
        fluid_at (f->p, n, x, y - 1), y == 0 || y == n - 1);
  }
  FOR_CELLS (n)
  f->dye0[i]
      = fluid_advect_cell (f->dye, f->u, f->v, n, p->dt, x, y) * p->dye_decay;
  memcpy (f->dye, f->dye0, (size_t)n * (size_t)n * sizeof (float));
  return 0;
}

int
accel_fluid_render_host (const AccelFluidParams *p, const AccelFluidFields *f,
    uint8_t *rgba, size_t pitch)
{
  int n = p->n;

  FOR_CELLS (n)
  fluid_colour (f->dye[i], rgba + (size_t)y * pitch + (size_t)x * 4);
  return 0;
}

float
accel_fluid_max_divergence_host (const AccelFluidFields *f, int n)
{
  float m = 0.0f;

  /* away from the walls: their clamped neighbours are not the equation */
  for (int y = 3; y < n - 3; y++)
    for (int x = 3; x < n - 3; x++)
      m = fmaxf (m, fabsf (fluid_divergence_cell (f->u, f->v, n, x, y)));
  return m;
}
