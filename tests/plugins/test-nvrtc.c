/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvrtc on a machine without a GPU: NVRTC compiles for sm_90 without one,
 * so the compiler, its cache and its error messages are checked here; the
 * stage itself refuses the host backend with an error that says why */
#include <glib/gstdio.h>
#include <string.h>

#include "accel-test.h"
#include "accelnvrtccache.h"
#include "tensor-io.h"

static const char good_source[]
    = "extern \"C\" __global__ void\n"
      "kernel (const float *in, float *out, long long n)\n"
      "{\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    out[i] = in[i] * GAIN + 1.0f;\n"
      "}\n";

/* line 6 lacks an operand */
static const char bad_source[]
    = "extern \"C\" __global__ void\n"
      "kernel (const float *in, float *out, long long n)\n"
      "{\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    out[i] = in[i] * ;\n"
      "}\n";

typedef struct
{
  gchar *dir;
} CacheFixture;

static void
cache_setup (CacheFixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("accel-nvrtc-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
}

static void
cache_teardown (CacheFixture *f, gconstpointer data)
{
  g_autoptr (GDir) d = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (f->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
}

static guint
count_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d && g_dir_read_name (d))
    n++;
  return n;
}

static void
test_compile_cubin (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;
  const guint8 *data;
  gsize size;

  cubin = accel_nvrtc_compile_full (
      good_source, "good.cu", "-DGAIN=2", "sm_90", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (cubin);
  data = g_bytes_get_data (cubin, &size);
  g_assert_cmpuint (size, >, 4);
  /* a CUBIN is an ELF image */
  g_assert_cmpmem (data, 4, "\177ELF", 4);
}

static void
test_cache_hit (CacheFixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) first = NULL, second = NULL;
  g_autofree gchar *key
      = accel_nvrtc_cache_key (good_source, "-DGAIN=2", "sm_90");
  g_autofree gchar *path = g_build_filename (f->dir, key, NULL);
  GStatBuf before, after;
  gboolean hit = TRUE;

  g_assert_cmpuint (strlen (key), ==, 64);
  first = accel_nvrtc_compile_full (
      good_source, "good.cu", "-DGAIN=2", "sm_90", f->dir, &hit, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (hit);
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  g_assert_cmpuint (count_entries (f->dir), ==, 1);

  second = accel_nvrtc_compile_full (
      good_source, "good.cu", "-DGAIN=2", "sm_90", f->dir, &hit, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (hit);
  g_assert_true (g_bytes_equal (first, second));
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpint (before.st_mtime, ==, after.st_mtime);
  g_assert_cmpint (before.st_ino, ==, after.st_ino);
  g_assert_cmpuint (count_entries (f->dir), ==, 1);
}

/* an entry as the cache writes it: the SHA-256 of @cubin, then @cubin */
static void
write_entry (const char *path, const char *cubin)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 entry[64 + 32];
  gsize n = 32, size = strlen (cubin);

  g_assert_cmpuint (size, <=, 64);
  g_checksum_update (sum, (const guchar *)cubin, size);
  g_checksum_get_digest (sum, entry, &n);
  memcpy (entry + 32, cubin, size);
  g_assert_true (
      g_file_set_contents (path, (const gchar *)entry, 32 + size, NULL));
}

/* the cache answers from the file alone: what is stored is what comes back,
 * with no NVRTC call (a CUBIN that NVRTC could not make proves it) */
static void
test_cache_hit_skips_nvrtc (CacheFixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;
  g_autofree gchar *key = accel_nvrtc_cache_key (bad_source, NULL, "sm_90");
  g_autofree gchar *path = g_build_filename (f->dir, key, NULL);
  gboolean hit = FALSE;

  write_entry (path, "stored");
  cubin = accel_nvrtc_compile_full (
      bad_source, "bad.cu", NULL, "sm_90", f->dir, &hit, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (hit);
  g_assert_cmpmem (
      g_bytes_get_data (cubin, NULL), g_bytes_get_size (cubin), "stored", 6);
}

/* an entry cut short, or one whose bytes changed, is compiled again and
 * replaced; never handed on as a CUBIN */
static void
test_cache_damaged (CacheFixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) first = NULL;
  g_autofree gchar *key
      = accel_nvrtc_cache_key (good_source, "-DGAIN=2", "sm_90");
  g_autofree gchar *path = g_build_filename (f->dir, key, NULL);
  g_autofree gchar *whole = NULL;
  gsize length = 0;

  first = accel_nvrtc_compile_full (
      good_source, "good.cu", "-DGAIN=2", "sm_90", f->dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &whole, &length, NULL));
  for (guint damage = 0; damage < 2; damage++)
    {
      g_autoptr (GBytes) again = NULL;
      g_autofree gchar *changed = g_memdup2 (whole, length);
      gboolean hit = TRUE;

      /* cut in half, or one byte of the CUBIN changed */
      if (damage == 1)
        changed[length - 10] ^= 0x40;
      g_assert_true (g_file_set_contents (
          path, changed, damage == 0 ? length / 2 : length, NULL));
      g_test_expect_message (
          "accel-nvrtc", G_LOG_LEVEL_MESSAGE, "*NVRTC cache entry*is damaged*");
      again = accel_nvrtc_compile_full (good_source, "good.cu", "-DGAIN=2",
          "sm_90", f->dir, &hit, NULL, &error);
      g_test_assert_expected_messages ();
      g_assert_no_error (error);
      g_assert_false (hit);
      g_assert_true (g_bytes_equal (first, again));
    }
}

/* a source that reads headers of its own is compiled every time: the key
 * covers the source and options, not the files they name. Each way of
 * naming a header: quoted, through a macro (with no option at all), and
 * through include paths in options quoted as a shell would */
static void
test_cache_headers (CacheFixture *f, gconstpointer data)
{
  static const char kernel[]
      = "extern \"C\" __global__ void\n"
        "kernel (const float *in, float *out, long long n)\n"
        "{\n"
        "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
        "  if (i < n)\n"
        "    out[i] = in[i] * GAIN;\n"
        "}\n";
  g_autofree gchar *headers = g_dir_make_tmp ("accel-nvrtc-h-XXXXXX", NULL);
  g_autofree gchar *header = g_build_filename (headers, "gain.cuh", NULL);
  struct
  {
    gchar *include, *options;
  } ways[] = {
    { g_strdup ("#include \"gain.cuh\"\n"), g_strdup_printf ("-I%s", headers) },
    { g_strdup_printf ("#define GAIN_H \"%s\"\n#include GAIN_H\n", header),
        NULL },
    { g_strdup ("#include <gain.cuh>\n"), g_strdup_printf ("'-I%s'", headers) },
    { g_strdup ("#include <gain.cuh>\n"),
        g_strdup_printf ("\"--include-path=%s\"", headers) },
    /* after a comment in Latin-1 (GRegex matched nothing in the source) */
    { g_strdup_printf ("// gr\xf6\xdf"
                       "e\n#include \"%s\"\n",
          header),
        NULL },
  };

  for (guint w = 0; w < G_N_ELEMENTS (ways); w++)
    {
      g_autofree gchar *source = g_strconcat (ways[w].include, kernel, NULL);
      g_autoptr (GBytes) two = NULL, three = NULL;
      g_autoptr (GError) error = NULL;
      gboolean hit = TRUE;

      g_test_message ("%s with options %s", ways[w].include, ways[w].options);
      g_assert_true (
          g_file_set_contents (header, "#define GAIN 2.0f\n", -1, NULL));
      two = accel_nvrtc_compile_full (source, "gain.cu", ways[w].options,
          "sm_90", f->dir, &hit, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (hit);
      g_assert_true (
          g_file_set_contents (header, "#define GAIN 3.0f\n", -1, NULL));
      three = accel_nvrtc_compile_full (source, "gain.cu", ways[w].options,
          "sm_90", f->dir, &hit, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (hit);
      g_assert_false (g_bytes_equal (two, three));
      g_assert_cmpuint (count_entries (f->dir), ==, 0);
      g_free (ways[w].include);
      g_free (ways[w].options);
    }
  g_unlink (header);
  g_rmdir (headers);
}

static void
test_cache_key (CacheFixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) a = NULL, b = NULL;
  g_autofree gchar *k1
      = accel_nvrtc_cache_key (good_source, "-DGAIN=2", "sm_90");
  g_autofree gchar *k2
      = accel_nvrtc_cache_key (good_source, "-DGAIN=3", "sm_90");
  g_autofree gchar *k3
      = accel_nvrtc_cache_key (good_source, "-DGAIN=2", "sm_80");
  g_autofree gchar *k4
      = accel_nvrtc_cache_key (good_source, "-DGAIN=2", "sm_90");
  g_autofree gchar *k5
      = accel_nvrtc_cache_key (bad_source, "-DGAIN=2", "sm_90");
  gboolean hit = TRUE;

  g_assert_cmpstr (k1, !=, k2);
  g_assert_cmpstr (k1, !=, k3);
  g_assert_cmpstr (k1, !=, k5);
  g_assert_cmpstr (k1, ==, k4);

  a = accel_nvrtc_compile_full (
      good_source, "good.cu", "-DGAIN=2", "sm_90", f->dir, &hit, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (hit);
  b = accel_nvrtc_compile_full (
      good_source, "good.cu", "-DGAIN=3", "sm_90", f->dir, &hit, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (hit);
  g_assert_cmpuint (count_entries (f->dir), ==, 2);
  g_assert_false (g_bytes_equal (a, b));
}

/* the default cache: $XDG_CACHE_HOME/accel/nvrtc, off with
 * ACCEL_NVRTC_CACHE=0 (main() points XDG_CACHE_HOME at a fresh directory) */
static void
test_cache_default_dir (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;
  g_autofree gchar *dir = accel_nvrtc_cache_get_dir ();
  g_autofree gchar *want
      = g_build_filename (g_getenv ("XDG_CACHE_HOME"), "accel", "nvrtc", NULL);
  g_autofree gchar *key
      = accel_nvrtc_cache_key (good_source, "-DGAIN=5", "sm_90");
  g_autofree gchar *path = g_build_filename (want, key, NULL);

  g_assert_cmpstr (dir, ==, want);
  cubin = accel_nvrtc_compile (
      good_source, "good.cu", "-DGAIN=5", "sm_90", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_unlink (path);

  g_setenv ("ACCEL_NVRTC_CACHE", "0", TRUE);
  g_clear_pointer (&dir, g_free);
  dir = accel_nvrtc_cache_get_dir ();
  g_assert_null (dir);
  g_clear_pointer (&cubin, g_bytes_unref);
  cubin = accel_nvrtc_compile (
      good_source, "good.cu", "-DGAIN=5", "sm_90", NULL, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_unsetenv ("ACCEL_NVRTC_CACHE");
}

static void
test_compile_error (CacheFixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;
  g_autofree gchar *log = NULL;

  cubin = accel_nvrtc_compile_full (
      bad_source, "bad.cu", NULL, "sm_90", f->dir, NULL, &log, &error);
  g_assert_null (cubin);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
  g_test_message ("%s", error->message);
  /* NVRTC's own log, and the line quoted */
  g_assert_nonnull (log);
  g_assert_nonnull (strstr (log, "bad.cu(6): error"));
  g_assert_nonnull (strstr (error->message, "bad.cu(6): error"));
  g_assert_true (g_str_has_prefix (error->message,
      "NVRTC could not compile bad.cu for sm_90 (NVRTC_ERROR_COMPILATION"));
  g_assert_nonnull (
      strstr (error->message, "\nbad.cu:6: error: expected an expression\n"
                              "     6 | out[i] = in[i] * ;\n"));
  /* nothing is cached */
  g_assert_cmpuint (count_entries (f->dir), ==, 0);
}

/* a source in Latin-1 (a comment "größe" saved by an older editor), or
 * a file name that is not UTF-8, still gives an error message in UTF-8,
 * as a GError's must be (it was handed on byte for byte) */
static void
test_compile_error_utf8 (void)
{
  static const char latin1[]
      = "extern \"C\" __global__ void\n"
        "kernel (const float *in, float *out, long long n)\n"
        "{\n"
        "  out[0] = in[0] * ; /* gr\xf6\xdf"
        "e */\n"
        "}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;

  cubin = accel_nvrtc_compile_full (latin1,
      "gr\xf6\xdf"
      "e.cu",
      NULL, "sm_90", NULL, NULL, NULL, &error);
  g_assert_null (cubin);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_test_message ("%s", error->message);
  /* the line is still quoted, its bytes replaced */
  g_assert_nonnull (
      strstr (error->message, ":4: error: expected an expression"));
  g_assert_nonnull (strstr (error->message, "4 | out[0] = in[0] * ;"));
}

static void
test_quote_log (void)
{
  g_autofree gchar *q = NULL;

  q = accel_nvrtc_quote_log ("a.cu(2): error: identifier \"x\" is undefined\n"
                             "    x;\n"
                             "    ^\n"
                             "inc.h(9): error: something\n"
                             "a.cu(40): warning: unused\n"
                             "a.cu(99): error: past the end\n",
      "a.cu", "int y;\n  x;\n");
  g_assert_cmpstr (q, ==,
      "a.cu:2: error: identifier \"x\" is undefined\n"
      "     2 | x;\n"
      "inc.h:9: error: something\n"
      "a.cu:99: error: past the end\n");
  g_clear_pointer (&q, g_free);
  q = accel_nvrtc_quote_log ("", "a.cu", "");
  g_assert_cmpstr (q, ==, "");
}

static void
test_bad_options (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;

  cubin = accel_nvrtc_compile_full (
      good_source, "good.cu", "-DGAIN=\"2", "sm_90", NULL, NULL, NULL, &error);
  g_assert_null (cubin);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  /* an unknown option is NVRTC's to refuse */
  cubin = accel_nvrtc_compile_full (good_source, "good.cu",
      "-DGAIN=2 --no-such-option", "sm_90", NULL, NULL, NULL, &error);
  g_assert_null (cubin);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
  g_test_message ("%s", error->message);
}

/* src -> nvrtc.kernel (configured by @first_property...) -> sink on the
 * host backend: prepare fails */
static GError *
prepare_on_host (const char *first_property, ...)
{
  GError *error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new ("nvrtc");
  const gint64 dims[] = { 16 };
  AccelStage *src, *stage;
  AccelType t;
  va_list args;

  accel_graph_set_device (g, accel_device_get_host ());
  src = accel_test_stage (g, "test.tensor-source", "src");
  stage = accel_test_stage (g, "nvrtc.kernel", "gain");
  accel_test_stage (g, "test.tensor-sink", "sink");
  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_DEVICE, 1, dims);
  test_tensor_source_set_type (TEST_TENSOR_SOURCE (src), &t);
  va_start (args, first_property);
  g_object_set_valist (G_OBJECT (stage), first_property, args);
  va_end (args);
  g_assert_true (accel_graph_link (g, "src", "gain", &error));
  g_assert_no_error (error);
  g_assert_true (accel_graph_link (g, "gain", "sink", &error));
  g_assert_no_error (error);
  g_assert_false (accel_graph_prepare (g, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  return error;
}

static void
test_host_backend (void)
{
  g_autoptr (GError) error
      = prepare_on_host ("source", good_source, "options", "-DGAIN=2", NULL);

  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED);
  g_assert_cmpstr (error->message, ==,
      "stage 'gain' (nvrtc.kernel): runs CUDA kernels compiled at run time "
      "and needs a GPU; this graph runs on the host backend");
}

static void
test_source_or_file (void)
{
  g_autoptr (GError) both
      = prepare_on_host ("source", good_source, "file", "k.cu", NULL);
  g_autoptr (GError) neither = prepare_on_host ("entry", "kernel", NULL);

  g_assert_error (both, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (both->message, ==,
      "stage 'gain' (nvrtc.kernel): both 'source' and 'file' are set; give "
      "the kernel's CUDA source inline in 'source' or its path in 'file'");
  g_assert_error (neither, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (
      strstr (neither->message, "neither 'source' nor 'file' is set"));
}

/* a file that cannot be read is said when the graph is prepared, as any
 * source's file, before the backend is looked at */
static void
test_unreadable_file (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-nvrtc-XXXXXX", NULL);
  g_autofree gchar *missing = g_build_filename (dir, "gone.cu", NULL);
  g_autoptr (GError) gone = prepare_on_host ("file", missing, NULL);
  g_autoptr (GError) directory = prepare_on_host ("file", dir, NULL);

  g_assert_error (gone, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_true (g_str_has_prefix (gone->message,
      "stage 'gain' (nvrtc.kernel): cannot read the kernel source"));
  g_assert_nonnull (strstr (gone->message, missing));
  g_assert_error (directory, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (directory->message, dir));
  g_rmdir (dir);
}

/* a device given as the file is read up to a bound: /dev/zero was read
 * until the process had all the memory there was */
static void
test_endless_file (void)
{
  g_autoptr (GError) zero = prepare_on_host ("file", "/dev/zero", NULL);

  g_assert_error (zero, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (zero->message, ==,
      "stage 'gain' (nvrtc.kernel): cannot read the kernel source "
      "/dev/zero: the file is larger than 16777216 bytes, the most a "
      "kernel's source may be");
}

/* an empty source or file is no source: a YAML 'source:' left empty is
 * said to be unset (it was compiled, to no kernel, on a GPU), and --set
 * gain.source= moves a stage to a file */
static void
test_empty_is_unset (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-nvrtc-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "k.cu", NULL);
  g_autoptr (GError) empty = prepare_on_host ("source", "", NULL);
  g_autoptr (GError) to_file = NULL;

  g_assert_error (empty, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (
      strstr (empty->message, "neither 'source' nor 'file' is set"));
  g_assert_true (g_file_set_contents (path, good_source, -1, NULL));
  to_file = prepare_on_host ("source", "", "file", path, NULL);
  g_assert_error (to_file, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED);
  g_unlink (path);
  g_rmdir (dir);
}

/* every mistake that needs no GPU to be seen is said when the graph is
 * prepared, before the backend is looked at: --validate finds it, and the
 * host does not hide it behind the GPU it lacks */
static void
test_checked_when_prepared (void)
{
  g_autoptr (GError) dtype
      = prepare_on_host ("source", good_source, "out-dtype", "flaot", NULL);
  g_autoptr (GError) quote = prepare_on_host (
      "source", good_source, "options", "-DNAME='unclosed", NULL);

  g_assert_error (dtype, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (dtype->message, ==,
      "stage 'gain' (nvrtc.kernel): unknown out-dtype \"flaot\"");
  g_assert_error (quote, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_true (g_str_has_prefix (quote->message,
      "stage 'gain' (nvrtc.kernel): cannot read the NVRTC options "
      "\"-DNAME='unclosed\": "));
}

/* the architecture is the stage's GPU's: options that set another one
 * are refused (NVRTC took the last, and a CUBIN for sm_80 failed to load
 * on an sm_90 GPU, or ran code built for a smaller one) */
static void
test_options_set_arch (void)
{
  static const char *const options[]
      = { "-DGAIN=2 -arch=sm_80", "-DGAIN=2 --gpu-architecture=compute_80",
          "-DGAIN=2 -arch sm_80", "-DGAIN=2 '-arch=sm_80'" };

  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      g_autoptr (GError) stage = prepare_on_host (
          "source", good_source, "options", options[i], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) cubin = accel_nvrtc_compile_full (good_source,
          "good.cu", options[i], "sm_90", NULL, NULL, NULL, &error);

      g_test_message ("%s", options[i]);
      g_assert_error (stage, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_assert_nonnull (strstr (stage->message, "set the GPU architecture"));
      g_assert_null (cubin);
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
    }
}

static void
test_properties (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStage) stage = accel_stage_new ("nvrtc.kernel", "k", &error);
  g_autofree gchar *entry = NULL;
  guint block = 0, grid = 1;
  gboolean cache = FALSE;

  g_assert_no_error (error);
  g_object_get (stage, "entry", &entry, "block", &block, "grid", &grid, "cache",
      &cache, NULL);
  g_assert_cmpstr (entry, ==, "kernel");
  g_assert_cmpuint (block, ==, 256);
  g_assert_cmpuint (grid, ==, 0);
  g_assert_true (cache);
}

/* what start () reads is fixed once the graph is prepared: a change while
 * it runs would be taken by a restart only, mid-stream, or never */
static void
test_fixed_params (void)
{
  static const char *const fixed[]
      = { "source", "file", "entry", "options", "out-dtype", "cache" };
  static const char *const per_frame[] = { "block", "grid" };
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStage) stage = accel_stage_new ("nvrtc.kernel", "k", &error);
  GObjectClass *klass;

  g_assert_no_error (error);
  klass = G_OBJECT_GET_CLASS (stage);
  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    {
      GParamSpec *pspec = g_object_class_find_property (klass, fixed[i]);

      g_test_message ("%s", fixed[i]);
      g_assert_nonnull (pspec);
      g_assert_true (pspec->flags & ACCEL_PARAM_FIXED);
    }
  for (guint i = 0; i < G_N_ELEMENTS (per_frame); i++)
    g_assert_false (g_object_class_find_property (klass, per_frame[i])->flags
                    & ACCEL_PARAM_FIXED);
}

int
main (int argc, char **argv)
{
  g_autofree gchar *cache_home = g_dir_make_tmp ("accel-xdg-XXXXXX", NULL);
  int status;

  /* before anything reads it: g_get_user_cache_dir() keeps its first
   * answer */
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_unsetenv ("ACCEL_NVRTC_CACHE");
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  test_tensor_stages_register ();

  g_test_add_func ("/nvrtc/compile/cubin", test_compile_cubin);
  g_test_add ("/nvrtc/compile/error-quotes-line", CacheFixture, NULL,
      cache_setup, test_compile_error, cache_teardown);
  g_test_add_func ("/nvrtc/compile/error-in-utf8", test_compile_error_utf8);
  g_test_add_func ("/nvrtc/compile/quote-log", test_quote_log);
  g_test_add_func ("/nvrtc/compile/bad-options", test_bad_options);
  g_test_add ("/nvrtc/cache/second-compile-hits", CacheFixture, NULL,
      cache_setup, test_cache_hit, cache_teardown);
  g_test_add ("/nvrtc/cache/hit-skips-nvrtc", CacheFixture, NULL, cache_setup,
      test_cache_hit_skips_nvrtc, cache_teardown);
  g_test_add ("/nvrtc/cache/key", CacheFixture, NULL, cache_setup,
      test_cache_key, cache_teardown);
  g_test_add ("/nvrtc/cache/damaged-entry", CacheFixture, NULL, cache_setup,
      test_cache_damaged, cache_teardown);
  g_test_add ("/nvrtc/cache/own-headers", CacheFixture, NULL, cache_setup,
      test_cache_headers, cache_teardown);
  g_test_add_func ("/nvrtc/cache/default-dir", test_cache_default_dir);
  g_test_add_func ("/nvrtc/stage/host-backend", test_host_backend);
  g_test_add_func ("/nvrtc/stage/source-or-file", test_source_or_file);
  g_test_add_func ("/nvrtc/stage/unreadable-file", test_unreadable_file);
  g_test_add_func ("/nvrtc/stage/endless-file", test_endless_file);
  g_test_add_func (
      "/nvrtc/stage/checked-when-prepared", test_checked_when_prepared);
  g_test_add_func ("/nvrtc/stage/empty-is-unset", test_empty_is_unset);
  g_test_add_func ("/nvrtc/stage/options-set-arch", test_options_set_arch);
  g_test_add_func ("/nvrtc/stage/properties", test_properties);
  g_test_add_func ("/nvrtc/stage/fixed-params", test_fixed_params);
  status = g_test_run ();

  /* the default cache test's directories, and whatever else the
   * libraries loaded cached there (GStreamer's registry) */
  accel_test_remove_tree (cache_home);
  return status;
}
