/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rand.uniform, rand.normal and rand.log-normal on a GPU (cuRAND): the
 * distributions by moments and a Kolmogorov-Smirnov test, odd counts, and
 * frames that depend on (generator, seed, sequence) only, across runs and
 * restarts. Skips without a GPU. */
#include <string.h>

#include "accel-test.h"
#include "rand-check.h"
#include "tensor-io.h"

static const char *const kinds[] = {
  "rand.uniform",
  "rand.normal",
  "rand.log-normal",
};
static const double parameters[][2] = {
  { -2.0, 3.0 },
  { 1.5, 2.0 },
  { 0.2, 0.5 },
};
static const char *const generators[] = { "philox", "xorwow" };
static const char *const dtypes[] = { "f32", "f64" };

static RandCase
make_case (guint i, const char *shape)
{
  RandCase c = { kinds[i / 4], generators[(i / 2) % 2], dtypes[i % 2], shape,
    g_test_rand_int () };

  memcpy (c.parameters, parameters[i / 4], sizeof (c.parameters));
  return c;
}

static void
test_distribution (gconstpointer data)
{
  RandCase c = make_case (GPOINTER_TO_UINT (data), "1024x1024");
  g_autoptr (GPtrArray) frames = rand_run (&c, FALSE, 3, NULL, 0, NULL);

  g_assert_cmpuint (frames->len, ==, 3);
  rand_check_distribution (&c, frames);
}

/* normal values come in pairs: an odd count goes through a scratch buffer */
static void
test_odd_count (gconstpointer data)
{
  RandCase c = make_case (GPOINTER_TO_UINT (data), "262143");
  g_autoptr (GPtrArray) frames = rand_run (&c, FALSE, 2, NULL, 0, NULL);

  rand_check_distribution (&c, frames);
}

static void
test_reproducible (void)
{
  for (guint i = 0; i < 12; i++)
    {
      RandCase c = make_case (i, "4097");
      RandCase other = c;
      g_autoptr (GPtrArray) a = rand_run (&c, FALSE, 4, NULL, 0, NULL);
      g_autoptr (GPtrArray) b = rand_run (&c, FALSE, 4, NULL, 0, NULL);
      g_autoptr (GPtrArray) d = NULL;

      other.seed = c.seed + 1;
      d = rand_run (&other, FALSE, 4, NULL, 0, NULL);
      for (guint f = 0; f < 4; f++)
        {
          g_assert_true (g_bytes_equal (a->pdata[f], b->pdata[f]));
          g_assert_false (g_bytes_equal (a->pdata[f], d->pdata[f]));
          if (f > 0)
            g_assert_false (g_bytes_equal (a->pdata[f], a->pdata[f - 1]));
        }
    }
}

/* a restart makes a new generator: frame s is still frame s */
static void
test_restart_same_frames (void)
{
  for (guint gen = 0; gen < G_N_ELEMENTS (generators); gen++)
    {
      RandCase c = { "rand.normal", generators[gen], "f32", "100001", 3,
        { 0.0, 1.0 } };
      g_autoptr (GPtrArray) clean = rand_run (&c, FALSE, 6, NULL, 0, NULL);
      g_autoptr (GArray) seqs = NULL;
      g_autoptr (GPtrArray) restarted = rand_run (&c, FALSE, 6, NULL, 3, &seqs);

      g_assert_cmpuint (restarted->len, >=, 5);
      for (guint i = 0; i < restarted->len; i++)
        {
          guint64 s = g_array_index (seqs, guint64, i);
          g_assert_true (g_bytes_equal (restarted->pdata[i], clean->pdata[s]));
        }
    }
}

int
main (int argc, char **argv)
{
  accel_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < 12; i++)
    {
      g_autofree gchar *path
          = g_strdup_printf ("/rand-gpu/distribution/%s/%s/%s",
              kinds[i / 4] + 5, generators[(i / 2) % 2], dtypes[i % 2]);
      g_test_add_data_func (path, GUINT_TO_POINTER (i), test_distribution);
    }
  for (guint i = 4; i < 12; i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/rand-gpu/odd-count/%s/%s/%s",
          kinds[i / 4] + 5, generators[(i / 2) % 2], dtypes[i % 2]);
      g_test_add_data_func (path, GUINT_TO_POINTER (i), test_odd_count);
    }
  g_test_add_func ("/rand-gpu/reproducible", test_reproducible);
  g_test_add_func ("/rand-gpu/restart-keeps-frames", test_restart_same_frames);
  return g_test_run ();
}
