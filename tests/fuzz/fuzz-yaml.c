/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzzing the YAML loader: LLVMFuzzerTestOneInput for libFuzzer, and a small
 * driver of its own (corpus replay plus seeded mutations, bounded) so the
 * same harness runs as an ordinary test */
#include <accel/accel.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* any input: a graph or an error, never a crash, a leak or a hang */
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree gchar *text = g_strndup ((const gchar *)data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = NULL;

  graph = accel_graph_new_from_yaml_string (text, "fuzz", &error);
  g_assert_true ((graph != NULL) != (error != NULL));
  if (error)
    g_assert_true (g_str_has_prefix (error->message, "fuzz:")
                   || g_str_has_prefix (error->message, "--set "));
  return 0;
}

#ifndef ACCEL_FUZZ_LIBFUZZER
static void
insert_bytes (GByteArray *b, guint pos, const guint8 *data, guint len)
{
  guint old = b->len;

  g_byte_array_set_size (b, old + len);
  memmove (b->data + pos + len, b->data + pos, old - pos);
  memcpy (b->data + pos, data, len);
}

/* flips, inserts and deletes bytes of a corpus file */
static GByteArray *
mutate (GRand *rand, const guint8 *data, gsize len)
{
  GByteArray *b = g_byte_array_new ();
  const char tokens[] = "{}[]:-,>.\"' \n#&*!|";
  guint n = g_rand_int_range (rand, 1, 8);

  g_byte_array_append (b, data, (guint)len);
  for (guint i = 0; i < n; i++)
    {
      guint op = g_rand_int_range (rand, 0, 4);
      guint pos = b->len ? g_rand_int_range (rand, 0, (gint32)b->len) : 0;
      guint8 c = g_rand_boolean (rand)
                     ? (guint8)tokens[g_rand_int_range (
                         rand, 0, (gint32)sizeof (tokens) - 1)]
                     : (guint8)g_rand_int_range (rand, 1, 256);
      if (op == 0 && b->len)
        b->data[pos] = c;
      else if (op == 1)
        insert_bytes (b, pos, &c, 1);
      else if (op == 2 && b->len)
        {
          guint cut = (guint)g_rand_int_range (rand, 1, 16);
          g_byte_array_remove_range (b, pos, MIN (cut, b->len - pos));
        }
      else if (b->len)
        {
          /* duplicate a slice: nesting and repeated keys */
          guint want = (guint)g_rand_int_range (rand, 1, 64);
          guint len2 = MIN (want, b->len - pos);
          g_autofree guint8 *slice = g_memdup2 (b->data + pos, len2);
          insert_bytes (b, pos, slice, len2);
        }
    }
  return b;
}

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : "corpus";
  guint iterations = argc > 2 ? (guint)atoi (argv[2]) : 2000;
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261122);
  g_autoptr (GPtrArray) corpus
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  /* no plugins: the loader, not the stages, is under test */
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      gchar *data;
      gsize len;
      if (g_file_get_contents (path, &data, &len, NULL))
        g_ptr_array_add (corpus, g_bytes_new_take (data, len));
    }
  g_assert_cmpuint (corpus->len, >, 0);

  for (guint i = 0; i < corpus->len; i++)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (corpus->pdata[i], &len);
      LLVMFuzzerTestOneInput (data, len);
    }
  for (guint i = 0; i < iterations; i++)
    {
      gsize len;
      GBytes *seed
          = corpus->pdata[g_rand_int_range (rand, 0, (gint32)corpus->len)];
      const guint8 *data = g_bytes_get_data (seed, &len);
      g_autoptr (GByteArray) input = mutate (rand, data, len);
      LLVMFuzzerTestOneInput (input->data, input->len);
    }
  g_print ("%u corpus files, %u mutated inputs: no crash\n", corpus->len,
      iterations);
  return 0;
}
#endif
