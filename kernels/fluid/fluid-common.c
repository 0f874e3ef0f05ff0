/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fluid: the layout of the fields in one block, the step's path */
#include "fluid.h"

#define N_FIELDS 12
#define N_STATE 4

size_t
accel_fluid_state_size (int n)
{
  return (size_t)N_FIELDS * (size_t)n * (size_t)n * sizeof (float);
}

size_t
accel_fluid_persistent_size (int n)
{
  return (size_t)N_STATE * (size_t)n * (size_t)n * sizeof (float);
}

void
accel_fluid_fields_init (AccelFluidFields *f, void *block, int n)
{
  float *b = block;
  size_t c = (size_t)n * (size_t)n;
  float **order[N_FIELDS] = { &f->u, &f->v, &f->dye, &f->p, &f->u0, &f->v0,
    &f->u1, &f->v1, &f->dye0, &f->p0, &f->div, &f->curl };

  for (int i = 0; i < N_FIELDS; i++)
    *order[i] = b + (size_t)i * c;
}

/* the fused step at every size: at 512^2 launches dominate, and from
 * 1024^2 on its pressure iterations in registers and shared memory beat a
 * launch an iteration (on an H200: 5 920 against 4 131 steps/s at 1024^2,
 * 1 806 against 949 at 2048^2) */
AccelFluidPath
accel_fluid_step_path_for (int n)
{
  (void)n;
  return ACCEL_FLUID_FUSED;
}
