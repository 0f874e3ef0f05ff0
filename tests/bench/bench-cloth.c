/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cloth steps per second at 64^2, 256^2 and 1024^2 vertices, 20 sweeps,
 * against the GPU's copy bandwidth measured in the same run: the bytes a
 * step must read and write over its time, and what a device-to-device copy
 * of as many bytes takes */
#include <cuda_runtime_api.h>

#include "accel-test.h"
#include "bench-timing.h"
#include "cloth/cloth.h"

/* bytes a step must move per vertex: the integration reads nine arrays and
 * writes six, each sweep reads three and writes three, the normals read
 * three and write three */
#define STEP_BYTES(iterations) ((15 + 6 * (iterations) + 6) * sizeof (float))

typedef struct
{
  AccelClothParams p;
  AccelClothState st;
  void *src, *dst;
  size_t bytes;
  int status; /* the first launch error */
} Case;

static void
step (cudaStream_t s, void *data)
{
  Case *c = data;
  int status = accel_cloth_step (s, &c->p, &c->st);

  if (c->status == cudaSuccess)
    c->status = status;
}

static void
copy (cudaStream_t s, void *data)
{
  Case *c = data;
  cudaMemcpyAsync (c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s);
}

int
main (int argc, char **argv)
{
  int sizes[] = { 64, 256, 1024 };
  cudaStream_t s;

  accel_test_require_gpu ();
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  g_print ("%7s %10s %10s %10s %10s %12s %14s\n", "grid", "steps/s", "ms/step",
      "GB/s", "copy GB/s", "copy-equiv", "graph steps/s");
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      int n = sizes[i];
      Case c = { 0 };
      void *block;
      float ms, copy_ms, graph_ms;

      accel_cloth_params_init (&c.p, n, n);
      c.p.wind[2] = 6.0f;
      c.p.sphere[1] = -0.5f;
      c.p.sphere[3] = 0.4f;
      cudaMalloc (&block, accel_cloth_state_size (n, n));
      accel_cloth_state_init (&c.st, block, n, n);
      accel_cloth_reset (s, &c.p, &c.st);
      ms = bench_time_ms (s, 20, step, &c);
      graph_ms = bench_graph_time_ms (s, 20, step, &c);
      if (c.status != cudaSuccess)
        g_error ("cloth step: %s", cudaGetErrorString (c.status));
      /* half the bytes read, half written: a copy of half of them */
      c.bytes = (size_t)n * n * STEP_BYTES (c.p.iterations) / 2;
      cudaMalloc (&c.src, c.bytes);
      cudaMalloc (&c.dst, c.bytes);
      copy_ms = bench_time_ms (s, 20, copy, &c);
      /* bytes read and written, per second */
      g_print ("%5d^2 %10.1f %10.3f %10.0f %10.0f %11.0f%% %14.1f\n", n,
          1000.0f / ms, ms, 2.0 * c.bytes / (ms * 1e6),
          2.0 * c.bytes / (copy_ms * 1e6), 100.0f * copy_ms / ms,
          1000.0f / graph_ms);
      cudaFree (c.src);
      cudaFree (c.dst);
      cudaFree (block);
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
