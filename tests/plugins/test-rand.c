/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rand.uniform, rand.normal and rand.log-normal on the host backend: the
 * distributions by moments and a Kolmogorov-Smirnov test, frames that
 * depend on (generator, seed, sequence) only, Philox's known answers */
#include <glib/gstdio.h>
#include <string.h>

#include "accel-test.h"
#include "accelrandhost.h"
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

static void
test_distribution (gconstpointer data)
{
  guint i = GPOINTER_TO_UINT (data);
  RandCase c = { kinds[i / 4], generators[(i / 2) % 2], dtypes[i % 2],
    "256x1024", g_test_rand_int () };
  g_autoptr (GPtrArray) frames = NULL;

  memcpy (c.parameters, parameters[i / 4], sizeof (c.parameters));
  frames = rand_run (&c, TRUE, 2, NULL, 0, NULL);
  g_assert_cmpuint (frames->len, ==, 2);
  rand_check_distribution (&c, frames);
}

static gboolean
same_bytes (GBytes *a, GBytes *b)
{
  return g_bytes_equal (a, b);
}

static void
test_reproducible (void)
{
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint gen = 0; gen < G_N_ELEMENTS (generators); gen++)
      {
        RandCase c = { kinds[k], generators[gen], "f32", "1000", 7 };
        RandCase other = c;
        g_autoptr (GPtrArray) a = NULL, b = NULL, d = NULL;

        memcpy (c.parameters, parameters[k], sizeof (c.parameters));
        other = c;
        other.seed = 8;
        a = rand_run (&c, TRUE, 4, NULL, 0, NULL);
        b = rand_run (&c, TRUE, 4, NULL, 0, NULL);
        d = rand_run (&other, TRUE, 4, NULL, 0, NULL);
        for (guint f = 0; f < 4; f++)
          {
            g_assert_true (same_bytes (a->pdata[f], b->pdata[f]));
            g_assert_false (same_bytes (a->pdata[f], d->pdata[f]));
            if (f > 0)
              g_assert_false (same_bytes (a->pdata[f], a->pdata[f - 1]));
          }
      }
}

/* a restart after a fault makes a new generator: frame s is still frame s */
static void
test_restart_same_frames (void)
{
  for (guint gen = 0; gen < G_N_ELEMENTS (generators); gen++)
    {
      RandCase c
          = { "rand.normal", generators[gen], "f64", "333", 99, { 0.0, 1.0 } };
      g_autoptr (GPtrArray) clean = rand_run (&c, TRUE, 6, NULL, 0, NULL);
      g_autoptr (GArray) seqs = NULL;
      g_autoptr (GPtrArray) restarted = rand_run (&c, TRUE, 6, NULL, 3, &seqs);

      g_assert_cmpuint (restarted->len, >=, 5);
      for (guint i = 0; i < restarted->len; i++)
        {
          guint64 s = g_array_index (seqs, guint64, i);
          g_assert_cmpuint (s, <, clean->len);
          g_assert_true (same_bytes (restarted->pdata[i], clean->pdata[s]));
        }
    }
}

/* a second run resumes where the first one's sink stopped committing: the
 * frames it makes are those of one uninterrupted run */
static void
test_resume_from_state_dir (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-rand-XXXXXX", NULL);
  RandCase c = { "rand.uniform", "xorwow", "f32", "64x3", 1234, { 0.0, 1.0 } };
  g_autoptr (GPtrArray) clean = rand_run (&c, TRUE, 6, NULL, 0, NULL);
  g_autoptr (GPtrArray) first = NULL, second = NULL;
  g_autoptr (GArray) s1 = NULL, s2 = NULL;
  g_autoptr (GDir) d = NULL;
  const char *entry;

  g_assert_nonnull (dir);
  first = rand_run (&c, TRUE, 3, dir, 0, &s1);
  second = rand_run (&c, TRUE, 6, dir, 0, &s2);
  g_assert_cmpuint (first->len, ==, 3);
  g_assert_cmpuint (second->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpuint (g_array_index (s1, guint64, i), ==, i);
      g_assert_cmpuint (g_array_index (s2, guint64, i), ==, i + 3);
      g_assert_true (same_bytes (first->pdata[i], clean->pdata[i]));
      g_assert_true (same_bytes (second->pdata[i], clean->pdata[i + 3]));
    }

  d = g_dir_open (dir, 0, NULL);
  while (d && (entry = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, entry, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* normal values come in pairs: an odd count still works, frame by frame */
static void
test_odd_count (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      RandCase c
          = { "rand.log-normal", "philox", dtypes[d], "7x3", 5, { 0.0, 1.0 } };
      g_autoptr (GPtrArray) a = rand_run (&c, TRUE, 3, NULL, 0, NULL);
      g_autoptr (GPtrArray) b = rand_run (&c, TRUE, 3, NULL, 0, NULL);

      for (guint f = 0; f < 3; f++)
        {
          g_assert_cmpuint (
              g_bytes_get_size (a->pdata[f]), ==, 21 * (d ? 8 : 4));
          g_assert_true (same_bytes (a->pdata[f], b->pdata[f]));
        }
    }
}

/* Random123's known-answer vectors for Philox4x32-10 */
static void
test_philox_known_answers (void)
{
  static const guint32 vectors[][10] = {
    { 0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
    { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
        0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
    { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
        0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 },
  };

  for (guint v = 0; v < G_N_ELEMENTS (vectors); v++)
    {
      guint32 out[4];
      accel_rand_philox4x32_10 (vectors[v] + 4, vectors[v], out);
      for (guint i = 0; i < 4; i++)
        g_assert_cmphex (out[i], ==, vectors[v][6 + i]);
    }
}

static void
expect_invalid (const char *shape, const char *dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("invalid");
  AccelStage *src;

  accel_graph_set_device (g, accel_device_get_host ());
  src = accel_test_stage (g, "rand.normal", "rand");
  accel_test_stage (g, "test.tensor-sink", "sink");
  g_object_set (src, "shape", shape, "dtype", dtype, NULL);
  g_assert_true (accel_graph_link (g, "rand", "sink", &error));
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'rand' (rand.normal)"));
}

/* a distribution's parameters that the dtype cannot hold, or a range with
 * nothing in it, are refused at prepare, saying which (they gave
 * infinities, or values outside the range asked for) */
static void
expect_bad_distribution (const char *kind, const char *dtype, const char *p0,
    double a, const char *p1, double b, const char *says)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("invalid");
  AccelStage *src;

  accel_graph_set_device (g, accel_device_get_host ());
  src = accel_test_stage (g, kind, "rand");
  accel_test_stage (g, "test.tensor-sink", "sink");
  g_object_set (src, "shape", "16", "dtype", dtype, p0, a, p1, b, NULL);
  g_assert_true (accel_graph_link (g, "rand", "sink", &error));
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, says));
}

static void
test_invalid_parameters (void)
{
  expect_invalid ("16", "i32");
  expect_invalid ("16", "c64");
  expect_invalid ("0x3", "f32");
  expect_invalid ("4xx3", "f32");
  expect_bad_distribution ("rand.uniform", "f32", "low", 5.0, "high", 1.0,
      "high must be above low (low 5, high 1)");
  expect_bad_distribution ("rand.uniform", "f64", "low", -1e308, "high", 1e308,
      "their difference must be finite");
  expect_bad_distribution ("rand.uniform", "f32", "low", 0.0, "high", 1e39,
      "their difference must be finite");
  expect_bad_distribution (
      "rand.normal", "f32", "mean", 1e39, "stddev", 1.0, "mean must be finite");
  expect_bad_distribution (
      "rand.log-normal", "f32", "mean", 0.0, "stddev", 1e39, "stddev from 0");
  /* every value exp (100 + ...) was infinite as an f32 */
  expect_bad_distribution ("rand.log-normal", "f32", "mean", 100.0, "stddev",
      0.1, "exp (mean + 9 stddev), past which no value lies, must be finite");
  /* half the values were infinite: exp (z 2^31) */
  expect_bad_distribution ("rand.log-normal", "f32", "mean", 0.0, "stddev",
      2147483648.0, "exp (mean + 9 stddev)");
  /* 3 values of 8 were infinite */
  expect_bad_distribution ("rand.normal", "f64", "mean", 0.0, "stddev",
      G_MAXDOUBLE, "mean plus and minus 9 stddev must be finite");
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  for (guint i = 0; i < 12; i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/rand/distribution/%s/%s/%s",
          kinds[i / 4] + 5, generators[(i / 2) % 2], dtypes[i % 2]);
      g_test_add_data_func (path, GUINT_TO_POINTER (i), test_distribution);
    }
  g_test_add_func ("/rand/reproducible", test_reproducible);
  g_test_add_func ("/rand/restart-keeps-frames", test_restart_same_frames);
  g_test_add_func ("/rand/resume-from-state-dir", test_resume_from_state_dir);
  g_test_add_func ("/rand/odd-count", test_odd_count);
  g_test_add_func ("/rand/philox-known-answers", test_philox_known_answers);
  g_test_add_func ("/rand/invalid-parameters", test_invalid_parameters);
  return g_test_run ();
}
