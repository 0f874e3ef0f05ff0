/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the fuzz harnesses' driver (see fuzz-driver.h): every file of a corpus,
 * then seeded mutations of them, bounded so CI runs them */
#include "fuzz-driver.h"

#include <accel/accel.h>
#include <stdlib.h>

#include <string.h>

static void
insert_bytes (GByteArray *b, guint pos, const guint8 *data, guint len)
{
  guint old = b->len;

  g_byte_array_set_size (b, old + len);
  memmove (b->data + pos + len, b->data + pos, old - pos);
  memcpy (b->data + pos, data, len);
}

/* flips, inserts and deletes bytes of a corpus file; half the bytes put in
 * are @tokens, the input's syntax */
static GByteArray *
mutate (GRand *rand, const guint8 *data, gsize len, const char *tokens)
{
  GByteArray *b = g_byte_array_new ();
  gint32 n_tokens = (gint32)strlen (tokens);
  guint n = g_rand_int_range (rand, 1, 8);

  g_byte_array_append (b, data, (guint)len);
  for (guint i = 0; i < n; i++)
    {
      guint op = g_rand_int_range (rand, 0, 4);
      guint pos = b->len ? g_rand_int_range (rand, 0, (gint32)b->len) : 0;
      guint8 c = g_rand_boolean (rand)
                     ? (guint8)tokens[g_rand_int_range (rand, 0, n_tokens)]
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

/**
 * fuzz_driver_main:
 * @argc: main()'s
 * @argv: main()'s: [CORPUS-DIR [ITERATIONS]]
 * @corpus_dir: the corpus directory without arguments; every file in it is
 *   one input
 * @seed: the mutations' seed, so that a failure can be run again
 * @tokens: bytes of the input's syntax, which mutations favour
 *
 * Runs every file of the corpus, then ITERATIONS (2000 without arguments)
 * mutations of them, through LLVMFuzzerTestOneInput() (which asserts what
 * it expects), on the host backend: the parsers, not the stages' devices,
 * are under test.
 *
 * Returns: 0
 */
int
fuzz_driver_main (int argc, char **argv, const char *corpus_dir, guint32 seed,
    const char *tokens)
{
  const char *dir = argc > 1 ? argv[1] : corpus_dir;
  guint iterations = argc > 2 ? (guint)atoi (argv[2]) : 2000;
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (GPtrArray) corpus
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_bytes_unref);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

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
      GBytes *input
          = corpus->pdata[g_rand_int_range (rand, 0, (gint32)corpus->len)];
      const guint8 *data = g_bytes_get_data (input, &len);
      g_autoptr (GByteArray) mutated = mutate (rand, data, len, tokens);
      LLVMFuzzerTestOneInput (mutated->data, mutated->len);
    }
  g_print ("%u corpus files, %u mutated inputs: no crash\n", corpus->len,
      iterations);
  return 0;
}
