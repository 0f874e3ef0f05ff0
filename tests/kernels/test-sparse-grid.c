/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the sparse grid's host reference against a dense brute force: the list,
 * gather and scatter, the stencil within active blocks, overflow */
#include "accel-test.h"
#include "sparse/sparse-grid.h"

typedef struct
{
  int nx, ny, b;
} Size;

typedef struct
{
  AccelSparseGrid g;
  gpointer block;
  gboolean *on; /* the brute force's view of the blocks */
} Grid;

static void
grid_init (Grid *s, int nx, int ny, int b, int max_blocks)
{
  int nb = ((nx + b - 1) / b) * ((ny + b - 1) / b);

  if (max_blocks == 0)
    max_blocks = nb;
  s->block = g_malloc (accel_sparse_grid_size (nx, ny, b, max_blocks));
  g_assert_cmpint (
      accel_sparse_grid_init (&s->g, s->block, nx, ny, b, max_blocks), ==, 0);
  g_assert_cmpint (accel_sparse_grid_clear_host (&s->g), ==, 0);
  s->on = g_new0 (gboolean, nb);
}

static void
grid_free (Grid *s)
{
  g_free (s->block);
  g_free (s->on);
}

/* switches about @percent of the blocks to @on, a few coordinates outside
 * the grid among them */
static void
grid_switch (Grid *s, int percent, gboolean on)
{
  int nb = s->g.bx * s->g.by, n = 0;
  g_autofree gint32 *coords = g_new (gint32, 2 * (nb + 4));

  for (int i = 0; i < nb; i++)
    if (g_test_rand_int_range (0, 100) < percent)
      {
        coords[2 * n] = i % s->g.bx;
        coords[2 * n + 1] = i / s->g.bx;
        s->on[i] = on;
        n++;
      }
  coords[2 * n] = -1;
  coords[2 * n + 1] = 0;
  coords[2 * n + 2] = s->g.bx;
  coords[2 * n + 3] = 0;
  n += 2;
  g_assert_cmpint (
      accel_sparse_grid_set_blocks_host (&s->g, coords, n, on), ==, 0);
  g_assert_cmpint (accel_sparse_grid_rebuild_host (&s->g), ==, 0);
}

static gboolean
cell_on (Grid *s, int x, int y)
{
  int b = s->g.b;

  return x >= 0 && y >= 0 && x < s->g.nx && y < s->g.ny
         && s->on[(y / b) * s->g.bx + x / b];
}

static void
assert_list (Grid *s)
{
  int nb = s->g.bx * s->g.by, k = 0;

  for (int i = 0; i < nb; i++)
    {
      g_assert_cmpint (s->g.table[i], ==, s->on[i] ? k : -1);
      if (s->on[i])
        g_assert_cmpint (s->g.list[k++], ==, i);
    }
  g_assert_cmpint (s->g.counts->active, ==, k);
  g_assert_cmpint (s->g.counts->dropped, ==, 0);
}

/* the dense field masked to active blocks, then one stencil step */
static float
masked (Grid *s, const float *f, int x, int y)
{
  return cell_on (s, x, y) ? f[y * s->g.nx + x] : 0.0f;
}

static void
test_brute_force (gconstpointer data)
{
  const Size *z = data;
  int nx = z->nx, ny = z->ny, n = nx * ny;
  const float k = 0.2f;
  Grid s;
  gsize cells;
  g_autofree float *field = g_new (float, n), *dense = g_new (float, n);
  g_autofree float *storage = NULL, *next = NULL;

  grid_init (&s, nx, ny, z->b, 0);
  cells = accel_sparse_grid_storage_floats (&s.g);
  storage = g_new (float, cells);
  next = g_new (float, cells);
  for (int i = 0; i < n; i++)
    field[i] = (float)g_test_rand_double_range (-1.0, 1.0);

  for (int round = 0; round < 3; round++)
    {
      grid_switch (&s, 40, TRUE);
      grid_switch (&s, 20, FALSE);
      assert_list (&s);

      accel_sparse_grid_gather_host (&s.g, field, storage);
      /* untouched: other blocks keep what was there */
      for (int i = 0; i < n; i++)
        dense[i] = -7.0f;
      accel_sparse_grid_scatter_host (&s.g, storage, dense, FALSE);
      for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
          g_assert_cmpfloat (dense[y * nx + x], ==,
              cell_on (&s, x, y) ? field[y * nx + x] : -7.0f);
      /* zeroed */
      accel_sparse_grid_scatter_host (&s.g, storage, dense, TRUE);
      for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
          g_assert_cmpfloat (dense[y * nx + x], ==, masked (&s, field, x, y));

      accel_sparse_grid_diffuse_host (&s.g, storage, next, k);
      accel_sparse_grid_scatter_host (&s.g, next, dense, TRUE);
      for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
          {
            float c = masked (&s, field, x, y), lap, want = 0.0f;

            if (cell_on (&s, x, y))
              {
                lap = masked (&s, field, x - 1, y)
                      + masked (&s, field, x + 1, y);
                lap = lap + masked (&s, field, x, y - 1);
                lap = lap + masked (&s, field, x, y + 1);
                lap = lap - 4.0f * c;
                want = c + k * lap;
              }
            g_assert_cmpfloat (dense[y * nx + x], ==, want);
          }
    }
  /* cells of edge blocks outside the domain hold 0 */
  for (int slot = 0; slot < s.g.counts->active; slot++)
    for (int c = 0; c < z->b * z->b; c++)
      {
        int bi = s.g.list[slot];
        int x = (bi % s.g.bx) * z->b + c % z->b;
        int y = (bi / s.g.bx) * z->b + c / z->b;

        if (x >= nx || y >= ny)
          g_assert_cmpfloat (next[slot * z->b * z->b + c], ==, 0.0f);
      }
  grid_free (&s);
}

/* more active blocks than storage: the first max_blocks by index are kept */
static void
test_overflow (void)
{
  gint32 coords[] = { 3, 3, 0, 1, 2, 0, 1, 2, 0, 0 };
  Grid s;

  grid_init (&s, 16, 16, 4, 3);
  accel_sparse_grid_set_blocks_host (&s.g, coords, 5, TRUE);
  accel_sparse_grid_rebuild_host (&s.g);
  g_assert_cmpint (s.g.counts->active, ==, 3);
  g_assert_cmpint (s.g.counts->dropped, ==, 2);
  g_assert_cmpint (s.g.list[0], ==, 0);
  g_assert_cmpint (s.g.list[1], ==, 2);
  g_assert_cmpint (s.g.list[2], ==, 4);
  g_assert_cmpint (s.g.table[9], ==, -1);
  g_assert_cmpint (s.g.table[15], ==, -1);
  grid_free (&s);
}

static void
test_misuse (void)
{
  AccelSparseGrid g;
  guint64 block[64];

  g_assert_cmpint (accel_sparse_grid_init (&g, block, 8, 8, 0, 1), ==, -1);
  g_assert_cmpint (accel_sparse_grid_init (&g, block, 8, 8, 33, 1), ==, -1);
  g_assert_cmpint (accel_sparse_grid_init (&g, block, 0, 8, 4, 1), ==, -1);
  /* 8 x 8 cells are 2 x 2 blocks of 4 */
  g_assert_cmpint (accel_sparse_grid_init (&g, block, 8, 8, 4, 5), ==, -1);
  g_assert_cmpuint (accel_sparse_grid_size (8, 8, 4, 4), <=, sizeof (block));
  g_assert_cmpint (accel_sparse_grid_init (&g, block, 8, 8, 4, 4), ==, 0);
  g_assert_cmpint (g.bx, ==, 2);
  g_assert_cmpint (g.by, ==, 2);
  g_assert_cmpuint (accel_sparse_grid_storage_floats (&g), ==, 64);
}

int
main (int argc, char **argv)
{
  static const Size sizes[] = { { 1, 1, 1 }, { 1, 7, 4 }, { 37, 23, 8 },
    { 64, 64, 8 }, { 100, 61, 16 }, { 65, 33, 32 } };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *path = g_strdup_printf (
          "/sparse-grid/host/%dx%d/b=%d", sizes[i].nx, sizes[i].ny, sizes[i].b);

      g_test_add_data_func (path, &sizes[i], test_brute_force);
    }
  g_test_add_func ("/sparse-grid/host/overflow", test_overflow);
  g_test_add_func ("/sparse-grid/host/misuse", test_misuse);
  return g_test_run ();
}
