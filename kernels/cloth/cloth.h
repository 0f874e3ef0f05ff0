/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a grid cloth solved with position-based dynamics
 *
 * w x h vertices, row-major, 3D positions. A step integrates (Verlet, with
 * damping, gravity and wind pushing along each vertex's normal), then
 * satisfies distance constraints in @iterations sweeps: structural
 * (to the 4 nearest vertices), shear (the 4 diagonals) and bend (2 apart,
 * along rows and columns), each vertex moving by the mean of its
 * constraints' corrections times @relax, pinned vertices never moving, and
 * keeps vertices out of the sphere; then computes the normals.
 *
 * A Jacobi sweep (the default) reads one copy of the positions and writes
 * the other, each vertex summing its constraints in one fixed order. A
 * coloured Gauss-Seidel sweep updates the positions in place in five
 * passes, one per colour (i + 3 j) mod 5: no constraint joins two vertices
 * of one colour, so a pass reads only vertices it does not write, and each
 * vertex sees its neighbours' moves of the earlier passes (it converges
 * faster per sweep). Either way no vertex depends on the order threads
 * run in, and the GPU kernels and the host reference
 * compute each vertex with the same functions (cloth-vertex.h), without
 * contraction and with IEEE division and square root, so a GPU step equals
 * a host step bit for bit. On the GPU a small cloth's step is one kernel,
 * a cluster of blocks holding the positions in shared memory; a larger
 * one's is a kernel per pass. The frame is an orthographic view tilted about
 * x, drawn with a depth test on 64-bit keys (depth, then colour) that does
 * not depend on the order triangles are drawn in either. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    ACCEL_CLOTH_PIN_NONE,
    ACCEL_CLOTH_PIN_CORNERS, /* the top row's two ends */
    ACCEL_CLOTH_PIN_TOP_ROW,
  } AccelClothPin;

  typedef enum
  {
    ACCEL_CLOTH_SOLVER_JACOBI,
    ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL, /* coloured, in place */
  } AccelClothSolver;

  typedef struct
  {
    int w, h;         /* vertices per row, rows (at least 2 each) */
    float spacing;    /* rest distance of neighbours */
    float dt;         /* time step */
    int iterations;   /* sweeps per step (Jacobi: rounded up to even) */
    float relax;      /* fraction of the mean correction applied per sweep */
    float damping;    /* velocity kept per step */
    float gravity[3]; /* acceleration */
    float wind[3];    /* acceleration of a face square to the wind */
    float sphere[4];  /* centre and radius; radius <= 0: no sphere */
    int pin;          /* an AccelClothPin */
    int grab;         /* a vertex held at @grab_pos, -1: none */
    float grab_pos[3];
    int solver; /* an AccelClothSolver */
  } AccelClothParams;

  /* device or host memory: 12 arrays of w * h floats */
  typedef struct
  {
    /* the state: what a snapshot keeps (contiguous, in this order); the
     * normals are the positions', and the next step's wind reads them */
    float *x, *y, *z;    /* positions */
    float *px, *py, *pz; /* previous positions */
    float *nx, *ny, *nz; /* normals */
    /* scratch: the other copy of the positions during Jacobi sweeps
     * (Gauss-Seidel leaves it alone) */
    float *sx, *sy, *sz;
  } AccelClothState;

  /* an orthographic view: world (center_x, center_y) at the frame's
   * centre, @scale pixels per unit, y up, tilted by @tilt radians about x
   * (the cloth's top leans away); lit from @light (unit length) */
  typedef struct
  {
    int width, height;
    float center_x, center_y, scale;
    float cos_tilt, sin_tilt;
    float light[3];
    uint32_t colour;     /* RGBA8 of a face lit square on, R low */
    uint32_t background; /* RGBA8 where no cloth is */
  } AccelClothView;

  /* a cloth of @spacing apart, pinned at the corners, under gravity, 20
   * sweeps per step */
  void accel_cloth_params_init (AccelClothParams *p, int w, int h);
  /* a wind of @strength along z (and a little along x) in gusts that
   * follow @frame, at 60 frames a second: the same frame blows the same */
  void accel_cloth_params_set_wind (
      AccelClothParams *p, float strength, uint64_t frame);
  /* a view of the whole cloth at its start, tilted 0.5 rad */
  void accel_cloth_view_init (
      AccelClothView *v, const AccelClothParams *p, int width, int height);

  size_t accel_cloth_state_size (int w, int h);
  /* bytes of the state a snapshot keeps: the first nine arrays */
  size_t accel_cloth_persistent_size (int w, int h);
  void accel_cloth_state_init (AccelClothState *s, void *block, int w, int h);
  /* words of the depth buffer of a view: width * height 64-bit keys */
  size_t accel_cloth_depth_size (const AccelClothView *v);

  /* a flat sheet at rest in the plane z = 0, centred on x, its top row at
   * y = (h - 1) spacing / 2; launcher returns a cudaError_t, host 0 */
  int accel_cloth_reset (
      void *stream, const AccelClothParams *p, const AccelClothState *s);
  int accel_cloth_reset_host (
      const AccelClothParams *p, const AccelClothState *s);

  int accel_cloth_step (
      void *stream, const AccelClothParams *p, const AccelClothState *s);
  int accel_cloth_step_host (
      const AccelClothParams *p, const AccelClothState *s);

  /* for tests and benchmarks only: how a GPU step runs */
  typedef enum
  {
    ACCEL_CLOTH_PATH_AUTO,    /* as accel_cloth_step chooses */
    ACCEL_CLOTH_PATH_FUSED,   /* one kernel: cudaErrorNotSupported where the
                               * cloth does not fit it on this device */
    ACCEL_CLOTH_PATH_KERNELS, /* a kernel per pass, whatever the size */
  } AccelClothPath;

  /* accel_cloth_step by way of @path (an AccelClothPath), for tests and
   * benchmarks that compare the two; both give the same bits */
  int accel_cloth_step_path (void *stream, const AccelClothParams *p,
      const AccelClothState *s, int path);

  /* draws the cloth into an RGBA8 frame of @v's size, @pitch bytes a row;
   * @depth holds accel_cloth_depth_size (v) keys */
  int accel_cloth_render (void *stream, const AccelClothParams *p,
      const AccelClothState *s, const AccelClothView *v, uint64_t *depth,
      uint8_t *rgba, size_t pitch);
  int accel_cloth_render_host (const AccelClothParams *p,
      const AccelClothState *s, const AccelClothView *v, uint64_t *depth,
      uint8_t *rgba, size_t pitch);

  /* max over the structural constraints of |length - rest| / rest, for
   * tests (host memory) */
  float accel_cloth_max_strain_host (
      const AccelClothParams *p, const AccelClothState *s);

#ifdef __cplusplus
}
#endif
