/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* per-cell arithmetic of the fluid solver, shared by the kernels and the
 * host reference */
#pragma once

#include <math.h>

#ifdef __CUDACC__
#define FLUID_FN __host__ __device__ static inline
#else
#define FLUID_FN static inline
#endif

FLUID_FN int
fluid_clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

FLUID_FN float
fluid_at (const float *f, int n, int x, int y)
{
  return f[fluid_clampi (y, 0, n - 1) * n + fluid_clampi (x, 0, n - 1)];
}

/* bilinear sample at (x, y) in cells, clamped to the grid */
FLUID_FN float
fluid_sample (const float *f, int n, float x, float y)
{
  float fx, fy, a, b;
  int x0, y0;

  x = fminf (fmaxf (x, 0.0f), (float)(n - 1));
  y = fminf (fmaxf (y, 0.0f), (float)(n - 1));
  x0 = (int)x;
  y0 = (int)y;
  fx = x - (float)x0;
  fy = y - (float)y0;
  a = fmaf (fx, fluid_at (f, n, x0 + 1, y0) - fluid_at (f, n, x0, y0),
      fluid_at (f, n, x0, y0));
  b = fmaf (fx, fluid_at (f, n, x0 + 1, y0 + 1) - fluid_at (f, n, x0, y0 + 1),
      fluid_at (f, n, x0, y0 + 1));
  return fmaf (fy, b - a, a);
}

/* semi-Lagrangian advection of @src to cell (x, y), whose velocity is
 * (uc, vc) */
FLUID_FN float
fluid_advect_at (
    const float *src, int n, float dt, int x, int y, float uc, float vc)
{
  float px = (float)x - dt * uc;
  float py = (float)y - dt * vc;

  return fluid_sample (src, n, px, py);
}

/* the same by the velocity field (u, v) */
FLUID_FN float
fluid_advect_cell (const float *src, const float *u, const float *v, int n,
    float dt, int x, int y)
{
  int i = y * n + x;

  return fluid_advect_at (src, n, dt, x, y, u[i], v[i]);
}

/* one Jacobi iteration of (1 + 4a) x - a (neighbours) = b */
FLUID_FN float
fluid_jacobi_cell (
    const float *x, const float *b, int n, float a, int cx, int cy)
{
  float s = fluid_at (x, n, cx - 1, cy) + fluid_at (x, n, cx + 1, cy);
  s = s + fluid_at (x, n, cx, cy - 1);
  s = s + fluid_at (x, n, cx, cy + 1);
  return fmaf (a, s, b[cy * n + cx]) / fmaf (4.0f, a, 1.0f);
}

/* one Jacobi iteration of the pressure equation, in the operators the
 * projection uses: the divergence of the central-difference gradient is the
 * Laplacian over neighbours two cells away, 0.25 (sum - 4 p) = div */
FLUID_FN float
fluid_pressure_update (float left, float right, float up, float down, float d)
{
  float s = left + right;
  s = s + up;
  s = s + down;
  return fmaf (-4.0f, d, s) * 0.25f;
}

/* the same at (x, y) of the field, neighbours clamped at the walls */
FLUID_FN float
fluid_pressure_cell (const float *p, const float *div, int n, int x, int y)
{
  return fluid_pressure_update (fluid_at (p, n, x - 2, y),
      fluid_at (p, n, x + 2, y), fluid_at (p, n, x, y - 2),
      fluid_at (p, n, x, y + 2), div[y * n + x]);
}

/* the central differences of a cell from its neighbours' values: u at
 * x + 1 and x - 1, v at y + 1 and y - 1 */
FLUID_FN float
fluid_divergence (float uxp, float uxm, float vyp, float vym)
{
  float du = uxp - uxm;
  float dv = vyp - vym;
  return 0.5f * (du + dv);
}

FLUID_FN float
fluid_divergence_cell (const float *u, const float *v, int n, int x, int y)
{
  return fluid_divergence (fluid_at (u, n, x + 1, y), fluid_at (u, n, x - 1, y),
      fluid_at (v, n, x, y + 1), fluid_at (v, n, x, y - 1));
}

/* v at x + 1 and x - 1, u at y + 1 and y - 1 */
FLUID_FN float
fluid_curl (float vxp, float vxm, float uyp, float uym)
{
  float dvdx = vxp - vxm;
  float dudy = uyp - uym;
  return 0.5f * (dvdx - dudy);
}

FLUID_FN float
fluid_curl_cell (const float *u, const float *v, int n, int x, int y)
{
  return fluid_curl (fluid_at (v, n, x + 1, y), fluid_at (v, n, x - 1, y),
      fluid_at (u, n, x, y + 1), fluid_at (u, n, x, y - 1));
}

/* confinement force towards stronger vorticity, scaled by @eps * dt, from
 * the curl @w of the cell and of its neighbours at x + 1, x - 1, y + 1 and
 * y - 1 */
FLUID_FN void
fluid_vorticity (float cxp, float cxm, float cyp, float cym, float w, float eps,
    float dt, float *fx, float *fy)
{
  float gx = 0.5f * (fabsf (cxp) - fabsf (cxm));
  float gy = 0.5f * (fabsf (cyp) - fabsf (cym));
  float len = sqrtf (fmaf (gx, gx, gy * gy)) + 1e-5f;

  *fx = eps * dt * (gy / len) * w;
  *fy = -eps * dt * (gx / len) * w;
}

FLUID_FN void
fluid_vorticity_force (const float *curl, int n, float eps, float dt, int x,
    int y, float *fx, float *fy)
{
  fluid_vorticity (fluid_at (curl, n, x + 1, y), fluid_at (curl, n, x - 1, y),
      fluid_at (curl, n, x, y + 1), fluid_at (curl, n, x, y - 1),
      curl[y * n + x], eps, dt, fx, fy);
}

/* a velocity component less the pressure gradient along it, from the
 * pressure one cell either side; zero at a wall across it */
FLUID_FN float
fluid_project (float w, float p_hi, float p_lo, int wall)
{
  float g = 0.5f * (p_hi - p_lo);
  return wall ? 0.0f : w - g;
}

/* weight of the injection at cell (x, y): a Gaussian of the radius */
FLUID_FN float
fluid_splat_weight (float cx, float cy, float r, int x, int y)
{
  float dx = (float)x - cx, dy = (float)y - cy;
  float d2 = fmaf (dx, dx, dy * dy);
  return d2 > 9.0f * r * r ? 0.0f : 1.0f - d2 / (9.0f * r * r);
}

/* the colour of an amount of dye: black, blue, cyan, white */
FLUID_FN void
fluid_colour (float d, unsigned char *rgba)
{
  float t = fminf (fmaxf (d, 0.0f), 1.0f);
  float r = fminf (fmaxf (fmaf (3.0f, t, -2.0f), 0.0f), 1.0f);
  float g = fminf (fmaxf (fmaf (3.0f, t, -1.0f), 0.0f), 1.0f);
  float b = fminf (fmaxf (3.0f * t, 0.0f), 1.0f);
  rgba[0] = (unsigned char)(fmaf (r, 255.0f, 0.5f));
  rgba[1] = (unsigned char)(fmaf (g, 255.0f, 0.5f));
  rgba[2] = (unsigned char)(fmaf (b, 255.0f, 0.5f));
  rgba[3] = 255;
}
