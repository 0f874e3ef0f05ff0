/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cloth steps per second at 64^2, 256^2 and 1024^2 vertices, 20 sweeps,
 * Jacobi and coloured Gauss-Seidel, each way a step runs there (the fused
 * one-kernel step where the cloth fits it, a kernel per pass always),
 * against the GPU's copy bandwidth measured in the same run: the bytes a
 * step must read and write over its time, and what a device-to-device copy
 * of as many bytes takes; then the constraint error (the structural
 * strain) each solver leaves after as many sweeps */
#include <cuda_runtime_api.h>

#include <math.h>

#include "accel-test.h"
#include "bench-timing.h"
#include "cloth/cloth.h"

/* bytes a step must move per vertex: the integration reads nine arrays and
 * writes six, each sweep reads three and writes three, the normals read
 * three and write three (the launches' bytes: the fused step keeps its
 * sweeps in shared memory, so for it they are only a yardstick) */
#define STEP_BYTES(iterations) ((15 + 6 * (iterations) + 6) * sizeof (float))

typedef struct
{
  AccelClothParams p;
  AccelClothState st;
  int path; /* an AccelClothPath */
  void *src, *dst;
  size_t bytes;
  int status; /* the first launch error */
} Case;

static void
step (cudaStream_t s, void *data)
{
  Case *c = data;
  int status = accel_cloth_step_path (s, &c->p, &c->st, c->path);

  if (c->status == cudaSuccess)
    c->status = status;
}

static void
copy (cudaStream_t s, void *data)
{
  Case *c = data;
  cudaMemcpyAsync (c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s);
}

static void
setup (Case *c, cudaStream_t s, int n, int solver, int iterations)
{
  void *block;

  accel_cloth_params_init (&c->p, n, n);
  c->p.wind[2] = 6.0f;
  c->p.sphere[1] = -0.5f;
  c->p.sphere[3] = 0.4f;
  c->p.solver = solver;
  c->p.iterations = iterations;
  if (cudaMalloc (&block, accel_cloth_state_size (n, n)) != cudaSuccess)
    g_error ("cloth: no memory for %d^2", n);
  accel_cloth_state_init (&c->st, block, n, n);
  accel_cloth_reset (s, &c->p, &c->st);
}

/* the constraint error a solver leaves: the structural strain's maximum
 * and root mean square (along rows), either after 60 steps of a cloth
 * hanging from its corners in the wind, or after one step from a still,
 * flat sheet whose vertices were each moved at random by up to 0.15 of the
 * spacing (no gravity, wind or sphere: the sweeps alone) */
static void
strain (Case *c, cudaStream_t s, gboolean jittered, float *worst, float *rms)
{
  size_t n = (size_t)c->p.w * c->p.h;
  size_t size = accel_cloth_state_size (c->p.w, c->p.h);
  g_autofree float *host = g_malloc (size);
  AccelClothState h;
  double sum = 0.0;
  size_t count = 0;

  accel_cloth_state_init (&h, host, c->p.w, c->p.h);
  if (jittered)
    {
      g_autoptr (GRand) rand = g_rand_new_with_seed (7);

      c->p.gravity[1] = c->p.wind[2] = c->p.sphere[3] = 0.0f;
      /* the reset ran on the bench's non-blocking stream */
      cudaStreamSynchronize (s);
      if (cudaMemcpy (host, c->st.x, size, cudaMemcpyDeviceToHost)
          != cudaSuccess)
        g_error ("cloth: the state's download failed");
      for (size_t k = 0; k < n; k++)
        {
          float *xyz[3] = { &h.x[k], &h.y[k], &h.z[k] };
          float *prev[3] = { &h.px[k], &h.py[k], &h.pz[k] };
          for (int a = 0; a < 3; a++)
            *prev[a] = *xyz[a]
                += c->p.spacing
                   * (float)g_rand_double_range (rand, -0.15, 0.15);
        }
      if (cudaMemcpy (c->st.x, host, size, cudaMemcpyHostToDevice)
          != cudaSuccess)
        g_error ("cloth: the state's upload failed");
      /* the upload done before the step on the non-blocking stream */
      cudaDeviceSynchronize ();
      step (s, c);
    }
  else
    for (int k = 0; k < 60; k++)
      step (s, c);
  if (c->status != cudaSuccess)
    g_error ("cloth step: %s", cudaGetErrorString (c->status));
  if (cudaStreamSynchronize (s) != cudaSuccess
      || cudaMemcpy (host, c->st.x, size, cudaMemcpyDeviceToHost)
             != cudaSuccess)
    g_error ("cloth: the state's download failed");
  *worst = accel_cloth_max_strain_host (&c->p, &h);
  for (size_t k = 0; k + 1 < n; k++)
    {
      float dx, dy, dz, e;
      if ((k + 1) % c->p.w == 0)
        continue;
      dx = h.x[k] - h.x[k + 1];
      dy = h.y[k] - h.y[k + 1];
      dz = h.z[k] - h.z[k + 1];
      e = (sqrtf (dx * dx + dy * dy + dz * dz) - c->p.spacing) / c->p.spacing;
      sum += (double)e * e;
      count++;
    }
  *rms = (float)sqrt (sum / (double)count);
}

int
main (int argc, char **argv)
{
  static const char *names[] = { "jacobi", "gauss-seidel" };
  static const char *path_names[] = { "auto", "fused", "kernels" };
  int sizes[] = { 64, 256, 1024 };
  float ms_64[2][3] = { { 0 } }; /* 64^2: ms a step by solver and path */
  cudaStream_t s;

  accel_test_require_gpu ();
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  g_print ("%7s %13s %8s %10s %10s %10s %10s %12s %14s\n", "grid", "solver",
      "path", "steps/s", "ms/step", "GB/s", "copy GB/s", "copy-equiv",
      "graph steps/s");
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (int solver = 0; solver < 2; solver++)
      for (int path = ACCEL_CLOTH_PATH_FUSED; path <= ACCEL_CLOTH_PATH_KERNELS;
           path++)
        {
          int n = sizes[i];
          Case c = { 0 };
          float ms, copy_ms, graph_ms;

          setup (&c, s, n, solver, 20);
          c.path = path;
          /* a row only where the cloth fits the fused step */
          if (accel_cloth_step_path (s, &c.p, &c.st, path)
              == cudaErrorNotSupported)
            {
              cudaFree (c.st.x);
              continue;
            }
          ms = bench_time_ms (s, 20, step, &c);
          graph_ms = bench_graph_time_ms (s, 20, step, &c);
          if (c.status != cudaSuccess)
            g_error ("cloth step: %s", cudaGetErrorString (c.status));
          /* half the bytes read, half written: a copy of half of them (the
           * Jacobi sweep's bytes, for both solvers) */
          c.bytes = (size_t)n * n * STEP_BYTES (c.p.iterations) / 2;
          cudaMalloc (&c.src, c.bytes);
          cudaMalloc (&c.dst, c.bytes);
          copy_ms = bench_time_ms (s, 20, copy, &c);
          /* bytes read and written, per second */
          g_print ("%5d^2 %13s %8s %10.1f %10.3f %10.0f %10.0f %11.0f%% "
                   "%14.1f\n",
              n, names[solver], path_names[path], 1000.0f / ms, ms,
              2.0 * c.bytes / (ms * 1e6), 2.0 * c.bytes / (copy_ms * 1e6),
              100.0f * copy_ms / ms, 1000.0f / graph_ms);
          if (i == 0)
            ms_64[solver][path] = ms;
          cudaFree (c.src);
          cudaFree (c.dst);
          cudaFree (c.st.x);
        }
  /* the target: the fused step at 3x the launches' steps/s, or more */
  g_print ("\n64^2 fused over launched steps/s: jacobi %.2fx, gauss-seidel "
           "%.2fx\n",
      ms_64[0][ACCEL_CLOTH_PATH_KERNELS] / ms_64[0][ACCEL_CLOTH_PATH_FUSED],
      ms_64[1][ACCEL_CLOTH_PATH_KERNELS] / ms_64[1][ACCEL_CLOTH_PATH_FUSED]);

  g_print ("\nstructural strain left by each solver\n");
  g_print ("%7s %9s %7s %13s %12s %12s\n", "grid", "case", "sweeps", "solver",
      "max strain", "rms strain");
  for (guint i = 1; i < G_N_ELEMENTS (sizes); i++)
    for (int jittered = 1; jittered >= 0; jittered--)
      for (int sweeps = 2; sweeps <= 40; sweeps *= sweeps < 10 ? 5 : 4)
        for (int solver = 0; solver < 2; solver++)
          {
            Case c = { 0 };
            float worst, rms;

            setup (&c, s, sizes[i], solver, sweeps);
            strain (&c, s, jittered, &worst, &rms);
            g_print ("%5d^2 %9s %7d %13s %12.4f %12.5f\n", sizes[i],
                jittered ? "jittered" : "hanging", sweeps, names[solver], worst,
                rms);
            cudaFree (c.st.x);
          }

  /* the stage through the engine, 64^2: graph mode captures only a still
   * cloth (the gusting wind changes the launches' arguments each frame) */
  {
    const char *yaml
        = "pipeline: cloth-bench\n"
          "stages:\n"
          "  - {name: sim, kind: realtime.cloth, params: {grid-width: 64, "
          "grid-height: 64, wind: 0, num-buffers: 3000}}\n"
          "  - {name: view, kind: core.null-sink}\n"
          "links: [sim -> view]\n";
    bench_pipeline_report ("realtime.cloth 64^2 (no wind)", yaml, 3000);
  }
  return 0;
}
