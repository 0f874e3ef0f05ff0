/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* 2D stable fluids: advection, diffusion, pressure projection, vorticity
 * confinement, force and dye injection at a point, dye rendered to RGBA8
 *
 * The grid is n x n cells of unit size, row-major, float. The GPU kernels
 * and the host reference compute each cell with the same functions
 * (fluid-cell.h), in the same order, with no contraction on either side, so
 * a GPU step equals a host step bit for bit (IEEE division and square root
 * on both). Walls: velocity into a wall is zero; fields clamp at the edge. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    int n;              /* cells per side */
    float dt;           /* time step */
    float viscosity;    /* 0: no diffusion pass */
    float vorticity;    /* confinement strength, 0: off */
    int pressure_iters; /* Jacobi iterations of the projection */
    int diffuse_iters;  /* Jacobi iterations of the diffusion */
    float dye_decay;    /* dye multiplied by this each step */
    /* injection at a point (cells), active while radius > 0 */
    float inject_x, inject_y, inject_radius;
    float force_x, force_y; /* added velocity per step at the point */
    float dye_amount;       /* added dye per step at the point */
  } AccelFluidParams;

  /* device or host memory for every field, each n * n floats */
  typedef struct
  {
    /* the state: what a snapshot keeps (contiguous, in this order) */
    float *u, *v; /* velocity */
    float *dye;
    float *p; /* pressure, the next projection's first guess */
    /* scratch */
    float *u0, *v0, *u1, *v1, *dye0, *p0, *div, *curl;
  } AccelFluidFields;

  /* bytes of all the fields of an n x n grid, laid out as in
   * accel_fluid_fields_init */
  size_t accel_fluid_state_size (int n);
  /* points the fields into one block of accel_fluid_state_size (n) bytes */
  void accel_fluid_fields_init (AccelFluidFields *f, void *block, int n);
  /* the part of the block that is the simulation's state (velocity, dye,
   * pressure): what a snapshot must keep */
  size_t accel_fluid_persistent_size (int n);

  /* how the GPU launches a step; every path gives the same fields, bit
   * for bit */
  typedef enum
  {
    /* a launch a pass, a launch a pressure iteration */
    ACCEL_FLUID_PLAIN,
    /* a launch a pass, the pressure iterations 4 a launch in shared memory
     * on tiles of 32^2: the step up to 512^2 before ACCEL_FLUID_FUSED */
    ACCEL_FLUID_TILED,
    /* injection and vorticity in one launch, advection in one, then the
     * pressure iterations 7 a launch on tiles of 47^2 (above 512^2: 10 a
     * launch on tiles of 49^2), the first launch
     * also taking the divergence, the last also the projection and the
     * dye's advection: the step at every size */
    ACCEL_FLUID_FUSED,
  } AccelFluidPath;

  /* one step; launcher returns a cudaError_t, host reference 0 */
  int accel_fluid_step (
      void *stream, const AccelFluidParams *p, const AccelFluidFields *f);
  int accel_fluid_step_host (
      const AccelFluidParams *p, const AccelFluidFields *f);

  /* the path accel_fluid_step takes on a grid of n x n */
  AccelFluidPath accel_fluid_step_path_for (int n);

  /* one step by @path rather than the one accel_fluid_step picks for the
   * grid's size (for tests and benchmarks) */
  int accel_fluid_step_path (void *stream, const AccelFluidParams *p,
      const AccelFluidFields *f, AccelFluidPath path);

  /* the projection's pressure iterations alone, from f->p into f->p for
   * the divergence in f->div, launched as @path launches them (for tests
   * and benchmarks). Every path gives the same field */
  int accel_fluid_pressure_solve (void *stream, const AccelFluidParams *p,
      const AccelFluidFields *f, AccelFluidPath path);

  /* dye to an RGBA8 frame of n x n pixels, @pitch bytes per row */
  int accel_fluid_render (void *stream, const AccelFluidParams *p,
      const AccelFluidFields *f, uint8_t *rgba, size_t pitch);
  int accel_fluid_render_host (const AccelFluidParams *p,
      const AccelFluidFields *f, uint8_t *rgba, size_t pitch);

  /* max |divergence| of the velocity, for tests */
  float accel_fluid_max_divergence_host (const AccelFluidFields *f, int n);

#ifdef __cplusplus
}
#endif
