/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the spatial index and the particle system on the GPU against the host
 * references: the index, the neighbour counts, the trajectories with every
 * force and collider on, and the splat, all equal to the bit */
#include <cuda_runtime_api.h>
#include <string.h>

#include "accel-test.h"
#include "particles/particles.h"

static void
check (int status)
{
  g_assert_cmpstr (
      cudaGetErrorString (status), ==, cudaGetErrorString (cudaSuccess));
}

static void *
dev_alloc (size_t size)
{
  void *p;

  check (cudaMalloc (&p, size));
  /* poison: a word the kernels should have written and did not shows */
  check (cudaMemset (p, 0xcd, size));
  return p;
}

static void
download (void *host, const void *dev, size_t size)
{
  check (cudaMemcpy (host, dev, size, cudaMemcpyDeviceToHost));
}

static void
test_scan (gconstpointer data)
{
  size_t n = GPOINTER_TO_SIZE (data);
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32)n);
  g_autofree guint32 *in = g_new (guint32, n), *want = g_new (guint32, n);
  g_autofree guint32 *got = g_new (guint32, n);
  guint32 *d_in = dev_alloc (n * 4), *d_out = dev_alloc (n * 4);
  guint32 *tmp = dev_alloc (accel_spatial_scan_tmp_words (n) * 4 + 4);

  for (size_t i = 0; i < n; i++)
    in[i] = g_rand_int_range (rand, 0, 4);
  check (cudaMemcpy (d_in, in, n * 4, cudaMemcpyHostToDevice));
  check (accel_spatial_exclusive_scan (NULL, d_in, d_out, n, tmp));
  accel_spatial_exclusive_scan_host (in, want, n);
  download (got, d_out, n * 4);
  g_assert_cmpmem (got, n * 4, want, n * 4);
  /* in place */
  check (accel_spatial_exclusive_scan (NULL, d_in, d_in, n, tmp));
  download (got, d_in, n * 4);
  g_assert_cmpmem (got, n * 4, want, n * 4);
  cudaFree (d_in);
  cudaFree (d_out);
  cudaFree (tmp);
}

static void
test_spatial (gconstpointer data)
{
  size_t n = GPOINTER_TO_SIZE (data), nq = n / 3 + 1;
  guint32 count = (guint32)(n - n / 7);
  static const float lo[3] = { -1.0f, 0.0f, 0.0f },
                     hi[3] = { 1.0f, 1.3f, 0.7f };
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autofree float *xyz = g_new (float, 3 * (n + nq));
  AccelSpatialGrid g;
  AccelSpatialIndex hix, dix, bix;
  size_t isize, cells;
  g_autofree gpointer hblock = NULL, bblock = NULL;
  g_autofree guint32 *hcounts = g_new (guint32, nq),
                     *dcounts = g_new (guint32, nq);
  float *d_xyz;
  guint32 *d_count, *d_counts;
  void *dblock;

  for (size_t i = 0; i < 3 * (n + nq); i++)
    xyz[i] = (float)g_rand_double_range (rand, -1.2, 1.5);
  accel_spatial_grid_init (&g, lo, hi, 0.093f);
  cells = accel_spatial_grid_n_cells (&g);
  isize = accel_spatial_index_size (&g, n);
  hblock = g_malloc (isize);
  bblock = g_malloc (isize);
  dblock = dev_alloc (isize);
  accel_spatial_index_init (&hix, hblock, &g, n);
  accel_spatial_index_init (&bix, bblock, &g, n);
  accel_spatial_index_init (&dix, dblock, &g, n);
  d_xyz = dev_alloc (sizeof (float) * 3 * (n + nq));
  d_count = dev_alloc (4);
  d_counts = dev_alloc (4 * nq);
  check (cudaMemcpy (
      d_xyz, xyz, sizeof (float) * 3 * (n + nq), cudaMemcpyHostToDevice));
  check (cudaMemcpy (d_count, &count, 4, cudaMemcpyHostToDevice));

  check (accel_spatial_build (
      NULL, &g, d_xyz, d_xyz + n, d_xyz + 2 * n, n, d_count, &dix));
  accel_spatial_build_host (&g, xyz, xyz + n, xyz + 2 * n, n, &count, &hix);
  download (bblock, dblock, isize);
  g_assert_cmpmem (
      bix.cell_start, (cells + 1) * 4, hix.cell_start, (cells + 1) * 4);
  g_assert_cmpmem (bix.sorted, count * 4, hix.sorted, count * 4);
  g_assert_cmpmem (bix.cell_of, count * 4, hix.cell_of, count * 4);

  check (accel_spatial_count_neighbours (NULL, &g, &dix, d_xyz, d_xyz + n,
      d_xyz + 2 * n, d_xyz + 3 * n, d_xyz + 3 * n + nq, d_xyz + 3 * n + 2 * nq,
      nq, 0.15f, d_counts));
  accel_spatial_count_neighbours_host (&g, &hix, xyz, xyz + n, xyz + 2 * n,
      xyz + 3 * n, xyz + 3 * n + nq, xyz + 3 * n + 2 * nq, nq, 0.15f, hcounts);
  download (dcounts, d_counts, 4 * nq);
  g_assert_cmpmem (dcounts, 4 * nq, hcounts, 4 * nq);

  cudaFree (dblock);
  cudaFree (d_xyz);
  cudaFree (d_count);
  cudaFree (d_counts);
}

/* the header's first words and every row of the first *count slots */
static void
assert_states_equal (const AccelParticleState *a, const AccelParticleState *b)
{
  size_t n = a->count[0] * sizeof (float);

  /* the count and the step's bookkeeping */
  g_assert_cmpmem (
      a->count, 4 * sizeof (guint32), b->count, 4 * sizeof (guint32));
  g_assert_cmpmem (a->px, n, b->px, n);
  g_assert_cmpmem (a->py, n, b->py, n);
  g_assert_cmpmem (a->pz, n, b->pz, n);
  g_assert_cmpmem (a->vx, n, b->vx, n);
  g_assert_cmpmem (a->vy, n, b->vy, n);
  g_assert_cmpmem (a->vz, n, b->vz, n);
  g_assert_cmpmem (a->colour, n, b->colour, n);
  g_assert_cmpmem (a->age, n, b->age, n);
  g_assert_cmpmem (a->life, n, b->life, n);
}

typedef struct
{
  guint32 capacity;
  gboolean collide;
  /* lifetimes without jitter: the system fills, then steps with nothing
   * dying or emitted (slots kept, static rows not rewritten), a changed dt
   * in the middle, until the first deaths */
  gboolean steady;
} Case;

static void
test_particles (gconstpointer data)
{
  const Case *c = data;
  static const float lo[3] = { -1.0f, -1.0f, -1.0f }, hi[3] = { 1, 1, 1 };
  AccelParticlesParams p;
  AccelSplatParams sp = { 173, 97, 0.1f, -0.05f, 45.0f, 2, 0x00ff2020u, 0.7f };
  AccelParticleState hs[2], ds[2], back;
  AccelParticlesScratch hw, dw;
  size_t ssize, wsize, frame = 173 * 4 * 97;
  g_autofree gpointer h0 = NULL, h1 = NULL, hwork = NULL, bblock = NULL;
  g_autofree guint32 *haccum = NULL;
  g_autofree guint8 *hrgba = g_malloc (frame), *drgba = g_malloc (frame);
  void *d0, *d1, *dwork, *daccum, *d_rgba;
  cudaStream_t stream;
  int cur = 0;

  accel_particles_params_init (&p, c->capacity);
  p.emitter.rate = c->capacity / 12 + 1;
  p.emitter.speed = 3.0f;
  p.emitter.spread = 0.8f;
  p.gravity[0] = 0.3f;
  p.gravity[1] = -4.0f;
  p.curl_strength = 3.0f;
  p.n_attractors = 2;
  p.attractors[0] = (AccelParticleAttractor){ 0.4f, 0.3f, 0.1f, 6.0f, 0.9f };
  p.attractors[1] = (AccelParticleAttractor){ -0.4f, 0.2f, -0.1f, -6.0f, 0.7f };
  p.n_planes = 1;
  p.planes[0] = (AccelParticlePlane){ 0.6f, 0.8f, 0.0f, -0.9f };
  p.boxes[p.n_boxes++] = (AccelParticleBox){ { -0.2f, -0.3f, -2.0f },
    { 0.25f, -0.1f, 2.0f }, 0 };
  p.emitter.lifetime = 0.4f;
  if (c->steady)
    {
      p.emitter.lifetime = 0.37f;
      p.emitter.lifetime_jitter = 0.0f;
    }
  p.collide_radius = c->collide ? 0.015f : 0.0f;
  accel_particles_params_set_grid (&p, lo, hi);

  ssize = accel_particle_state_size (p.capacity);
  wsize = accel_particles_scratch_size (&p);
  h0 = g_malloc0 (ssize);
  h1 = g_malloc0 (ssize);
  hwork = g_malloc0 (wsize);
  bblock = g_malloc (ssize);
  haccum = g_new (guint32, accel_particles_splat_accum_size (&sp));
  d0 = dev_alloc (ssize);
  d1 = dev_alloc (ssize);
  dwork = dev_alloc (wsize);
  daccum = dev_alloc (accel_particles_splat_accum_size (&sp) * 4);
  d_rgba = dev_alloc (frame);
  check (cudaMemset (d0, 0, 4)); /* no particles */
  /* the legacy stream's work done before the non-blocking stream's */
  check (cudaDeviceSynchronize ());
  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  accel_particle_state_init (&hs[0], h0, p.capacity);
  accel_particle_state_init (&hs[1], h1, p.capacity);
  accel_particle_state_init (&ds[0], d0, p.capacity);
  accel_particle_state_init (&ds[1], d1, p.capacity);
  accel_particle_state_init (&back, bblock, p.capacity);
  accel_particles_scratch_init (&hw, hwork, &p);
  accel_particles_scratch_init (&dw, dwork, &p);

  for (guint k = 0; k < 30; k++)
    {
      /* one step of another dt: its input's promise is for the old one */
      p.dt = c->steady && k == 15 ? 1.0f / 50.0f : 1.0f / 60.0f;
      check (accel_particles_step (stream, &p, k, &ds[cur], &ds[!cur], &dw));
      accel_particles_step_host (&p, k, &hs[cur], &hs[!cur], &hw);
      cur = !cur;
      if (k % 10 == 9 || (c->steady && k % 3 == 1))
        {
          check (cudaMemcpyAsync (
              bblock, ds[cur].count, ssize, cudaMemcpyDeviceToHost, stream));
          check (cudaStreamSynchronize (stream));
          g_test_message ("step %u: %u particles", k, back.count[0]);
          g_assert_cmpuint (back.count[0], >, 0);
          /* full and none dying: the next step keeps the slots */
          if (c->steady && k == 13)
            g_assert_cmpuint (back.count[1], !=, 0);
          assert_states_equal (&back, &hs[cur]);
        }
    }

  check (accel_particles_splat (
      stream, &sp, &ds[cur], p.capacity, daccum, d_rgba, 173 * 4));
  accel_particles_splat_host (
      &sp, &hs[cur], p.capacity, haccum, hrgba, 173 * 4);
  check (
      cudaMemcpyAsync (drgba, d_rgba, frame, cudaMemcpyDeviceToHost, stream));
  check (cudaStreamSynchronize (stream));
  g_assert_cmpmem (drgba, frame, hrgba, frame);

  cudaFree (d0);
  cudaFree (d1);
  cudaFree (dwork);
  cudaFree (daccum);
  cudaFree (d_rgba);
  cudaStreamDestroy (stream);
}

int
main (int argc, char **argv)
{
  static const Case cases[] = { { 16, FALSE, FALSE }, { 1001, FALSE, FALSE },
    { 1001, TRUE, FALSE }, { 100003, TRUE, FALSE }, { 1001, FALSE, TRUE },
    { 100003, FALSE, TRUE }, { 1001, TRUE, TRUE } };

  g_test_init (&argc, &argv, NULL);
  accel_test_require_gpu ();
  g_test_add_data_func (
      "/gpu/spatial/scan/n=1", GSIZE_TO_POINTER (1), test_scan);
  g_test_add_data_func (
      "/gpu/spatial/scan/n=1025", GSIZE_TO_POINTER (1025), test_scan);
  g_test_add_data_func (
      "/gpu/spatial/scan/n=3145735", GSIZE_TO_POINTER (3145735), test_scan);
  g_test_add_data_func (
      "/gpu/spatial/index/n=1", GSIZE_TO_POINTER (1), test_spatial);
  g_test_add_data_func (
      "/gpu/spatial/index/n=4099", GSIZE_TO_POINTER (4099), test_spatial);
  g_test_add_data_func (
      "/gpu/spatial/index/n=200003", GSIZE_TO_POINTER (200003), test_spatial);
  g_test_add_data_func ("/gpu/particles/cap=16", &cases[0], test_particles);
  g_test_add_data_func ("/gpu/particles/cap=1001", &cases[1], test_particles);
  g_test_add_data_func (
      "/gpu/particles/cap=1001-collide", &cases[2], test_particles);
  g_test_add_data_func (
      "/gpu/particles/cap=100003-collide", &cases[3], test_particles);
  g_test_add_data_func (
      "/gpu/particles/cap=1001-steady", &cases[4], test_particles);
  g_test_add_data_func (
      "/gpu/particles/cap=100003-steady", &cases[5], test_particles);
  g_test_add_data_func (
      "/gpu/particles/cap=1001-steady-collide", &cases[6], test_particles);
  return g_test_run ();
}
