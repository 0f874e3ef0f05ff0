/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* one-line descriptions (gst-launch syntax): the YAML they stand for, the
 * same graph as that YAML, errors at the description's columns, and
 * accel-run -e / --print-yaml */
#include "accel-test.h"

/* the branch, port and quoting cases in one line */
static const char branches[]
    = "core.test-source num-buffers=4 shape=16x8 dtype=f32 name=src "
      "! core.scale scale=2 offset=\"1.5\" "
      "! core.checksum-sink name=scaled  "
      "src.out ! core.checksum-sink name=raw";

static const char branches_yaml[]
    = "pipeline: description\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {num-buffers: 4, "
      "shape: 16x8, dtype: f32}}\n"
      "  - {name: scale0, kind: core.scale, params: {scale: 2, offset: "
      "1.5}}\n"
      "  - {name: scaled, kind: core.checksum-sink}\n"
      "  - {name: raw, kind: core.checksum-sink}\n"
      "links:\n"
      "  - src -> scale0\n"
      "  - scale0 -> scaled\n"
      "  - src.out -> raw\n";

static void
test_to_yaml (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *yaml = accel_description_to_yaml (branches, "-e", &error);
  g_autofree gchar *quoted = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (yaml, ==, branches_yaml);

  /* unnamed stages are numbered per kind; values YAML would read otherwise
   * are quoted; device= places the stage */
  quoted = accel_description_to_yaml (
      "core.test-source device=host ! core.scale ! core.scale "
      "name=\"x\" ! core.checksum-sink location='a b: c.txt'",
      NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (quoted, ==,
      "pipeline: description\n"
      "stages:\n"
      "  - {name: test-source0, kind: core.test-source, device: host}\n"
      "  - {name: scale0, kind: core.scale}\n"
      "  - {name: x, kind: core.scale}\n"
      "  - {name: checksum-sink0, kind: core.checksum-sink, params: "
      "{location: \"a b: c.txt\"}}\n"
      "links:\n"
      "  - test-source0 -> scale0\n"
      "  - scale0 -> x\n"
      "  - x -> checksum-sink0\n");
  g_free (quoted);

  /* a number never takes a name given further on */
  quoted = accel_description_to_yaml (
      "core.test-source ! core.scale ! core.scale name=scale0 ! "
      "core.null-sink",
      NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (quoted, "  - {name: scale1, kind: core.scale}\n"
                                    "  - {name: scale0, kind: core.scale}\n"));
}

static gchar *
digest_of (AccelGraph *graph, const char *stage)
{
  gchar *digest = NULL;

  g_object_get (accel_graph_get_stage (graph, stage), "digest", &digest, NULL);
  return digest;
}

/* a line and the YAML written by hand build and run the same graph */
static void
test_same_graph (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) line = NULL;
  g_autoptr (AccelGraph) file = NULL;
  g_autofree gchar *line_dot = NULL, *file_dot = NULL;
  g_autofree gchar *line_scaled = NULL, *file_scaled = NULL;
  g_autofree gchar *line_raw = NULL, *file_raw = NULL;

  line = accel_graph_new_from_description (branches, &error);
  g_assert_no_error (error);
  file
      = accel_graph_new_from_yaml_string (branches_yaml, "description", &error);
  g_assert_no_error (error);
  line_dot = accel_graph_to_dot (line);
  file_dot = accel_graph_to_dot (file);
  g_assert_cmpstr (line_dot, ==, file_dot);

  g_assert_true (accel_graph_run (line, &error));
  g_assert_no_error (error);
  g_assert_true (accel_graph_run (file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (
      accel_stage_get_n_processed (accel_graph_get_stage (line, "raw")), ==, 4);
  line_scaled = digest_of (line, "scaled");
  file_scaled = digest_of (file, "scaled");
  line_raw = digest_of (line, "raw");
  file_raw = digest_of (file, "raw");
  g_assert_cmpstr (line_scaled, ==, file_scaled);
  g_assert_cmpstr (line_raw, ==, file_raw);
  /* the branches carry different data */
  g_assert_cmpstr (line_scaled, !=, line_raw);
}

typedef struct
{
  const char *description;
  const char *message;
} BadCase;

/* every problem at once, each at its column of the line */
static const BadCase bad_cases[] = {
  /* the syntax */
  { "! core.null-sink",
      "-e:1:1: '!' links a stage to the next one, but comes first" },
  { "core.test-source ! ! core.null-sink",
      "-e:1:20: '!' follows another '!'; a stage kind or a reference (name. "
      "or name.port) goes between them" },
  { "core.test-source !", "-e:1:18: '!' at the end links to nothing" },
  { "core.t\xe9st-source ! core.null-sink",
      "-e:1:7: the description is not UTF-8 text (byte 0xe9)" },
  { "core.test-source shape=\"4x4 ! core.null-sink",
      "-e:1:24: this quote is never closed; close it with \"" },
  { "sigma=3 core.test-source ! core.null-sink",
      "-e:1:1: 'sigma=' comes before any stage kind" },
  { "core.test-source ! nullsink",
      "-e:1:20: 'nullsink' is neither a stage kind (plugin.kind, such as "
      "core.scale) nor a reference to a named stage (name. or name.port)" },
  { "core.test-source ! t.", "-e:1:20: no stage is named 't' (name=t)" },
  { "core.test-source name=a ! core.null-sink name=a",
      "-e:1:47: a stage named 'a' is already declared at column 1" },
  { "core.test-source name=a:b ! core.null-sink",
      "-e:1:23: stage name 'a:b' may hold only ASCII letters, digits, '_' and "
      "'-', "
      "as links name it" },
  { "core.test-source name=s ! core.null-sink  s. sigma=2 ! core.null-sink",
      "-e:1:46: a reference to stage 's' takes no properties; set them where "
      "the stage is declared" },
  /* what the loader finds, at the line's columns */
  { "core.test-source ! core.scal scale=x ! core.null-sink",
      "-e:1:20: unknown stage kind 'core.scal' (did you mean 'core.scale'?)" },
  { "core.test-source ! core.scale scale=x ofset=2 ! core.null-sink",
      "-e:1:37: parameter 'scale' of stage 'scale0' (core.scale) must be a "
      "number, not 'x'\n"
      "-e:1:39: stage 'scale0' (core.scale) has no parameter 'ofset' (did "
      "you mean 'offset'?)" },
  /* a place the loader names in the YAML, told as the line's column
   * (it was a line of a file never written) */
  { "core.test-source name=s ! core.null-sink name=k s. ! k.",
      "-e:1:54: input 'k.in' is already linked, from 's' at column 25; an "
      "input takes one link" },
  /* by the line's syntax: --print-yaml wrote a file that held the key
   * twice, and exited 0 */
  { "core.test-source ! core.scale scale=1 scale=2 ! core.null-sink",
      "-e:1:39: 'scale=' is given twice for this stage (first at column "
      "31)" },
  /* after text that is not ASCII: at the value (it was at the key, the
   * YAML's columns counted in bytes) */
  { "core.test-source thread=\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\" "
    "mailbox-size=x ! core.null-sink",
      "-e:1:45: parameter 'mailbox-size' of stage 'test-source0' "
      "(core.test-source) must be an integer, not 'x'" },
  /* "at line" in a value is the value's */
  { "core.test-source ! core.null-sink on-fault='no at line 3'",
      "-e:1:44: parameter 'on-fault' of stage 'null-sink0' (core.null-sink) "
      "must be one of auto, restart, resume, stop, escalate, not 'no at line "
      "3'" },
  /* it was an unknown stage kind 'a.' */
  { "core.test-source name=a ! core.null-sink a. name=b ! core.null-sink",
      "-e:1:50: 'a.' is a reference to a named stage, which takes no name= "
      "of its own" },
  /* a problem preparing the graph finds, at the value it is about (it was
   * at the stage's kind) */
  { "core.test-source format=RGBA8 shape=64 num-buffers=1 ! core.null-sink",
      "-e:1:37: stage 'test-source0' (core.test-source) sets 'shape' beside "
      "'format': format makes an image of width x height, 'shape' is a "
      "tensor's; set one kind of output" },
  /* several problems in the order of their columns, as a file's are in
   * that of their lines (they were in the order found: the names' after
   * the syntax's, a stage's before a link's further left) */
  { "core.test-source name=a ! core.null-sink name=a !",
      "-e:1:47: a stage named 'a' is already declared at column 1\n"
      "-e:1:49: '!' at the end links to nothing" },
  { "core.test-source name=s ! core.null-sink name=k s. ! k. "
    "core.test-source mailbox-size=x ! core.null-sink",
      "-e:1:54: input 'k.in' is already linked, from 's' at column 25; an "
      "input takes one link\n"
      "-e:1:87: parameter 'mailbox-size' of stage 'test-source0' "
      "(core.test-source) must be an integer, not 'x'" },
  /* a kind with a character no name holds: the kind is the problem (the
   * name made of it was refused, or made YAML of its own in the links) */
  { "core.[x ! core.null-sink", "-e:1:1: unknown stage kind 'core.[x'" },
  { "core.test-source name=t core.sc@le ! core.null-sink",
      "-e:1:25: unknown stage kind 'core.sc@le' (did you mean "
      "'core.scale'?)" },
  { "core.test-source ! core.scale", NULL }, /* an output may stay unlinked */
  { "core.scale ! core.null-sink",
      "-e:1:1: input 'scale0.in' (core.scale) is not linked" },
  /* a control character in a name stays an escape: it broke the line or
   * sent the terminal its sequence */
  { "core.test-source name=a\x1b[2J ! core.null-sink",
      "-e:1:23: stage name 'a\\x1b[2J' may hold only ASCII letters, digits, "
      "'_' and '-', as links name it" },
};

static void
test_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      const BadCase *c = &bad_cases[i];
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) graph = accel_graph_new_from_description_full (
          c->description, "-e", NULL, &error);

      g_test_message ("%s", c->description);
      if (!c->message)
        {
          g_assert_no_error (error);
          g_assert_nonnull (graph);
          continue;
        }
      g_assert_null (graph);
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_assert_cmpstr (error->message, ==, c->message);
    }
}

static gchar *
run_accel_run (const char *const *args, gint *status, gchar **err)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  gchar *out = NULL;

  g_ptr_array_add (argv, (gpointer)g_getenv ("ACCEL_RUN"));
  g_ptr_array_add (argv, (gpointer) "--backend=host");
  g_ptr_array_add (argv, (gpointer) "--quiet");
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer)args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **)argv->pdata, NULL,
      G_SPAWN_DEFAULT, NULL, NULL, &out, err, status, &error));
  g_assert_no_error (error);
  return out;
}

/* problems are listed as for a file: the first 1000, then a count, each
 * at its column (counted on from the last one asked: counted from the
 * start each time, 60 000 of them took 26 s) */
static void
test_many_problems (void)
{
  g_autoptr (GString) line = g_string_new ("core.scale ");
  g_autoptr (GError) error = NULL;
  g_autofree gchar *yaml = NULL;
  g_auto (GStrv) lines = NULL;

  for (guint i = 0; i < 5000; i++)
    g_string_append (line, "! ");
  yaml = accel_description_to_yaml (line->str, "-e", &error);
  g_assert_null (yaml);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  lines = g_strsplit (error->message, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1001);
  g_assert_true (g_str_has_prefix (lines[0], "-e:1:14: "));
  g_assert_true (g_str_has_prefix (lines[999], "-e:1:2012: "));
  g_assert_cmpstr (lines[1000], ==, "-e: 4000 more problems not shown");
}

/* a stage of 32000 parameters on its one line, every one after the first
 * a problem, its value not ASCII: each problem at its own column in
 * characters. The line's
 * YAML columns were counted from the start of its line for each
 * parameter, 30 s for such a line */
static void
test_long_stage_line (void)
{
  g_autoptr (GString) line = g_string_new ("core.scale");
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = NULL;
  g_auto (GStrv) lines = NULL;

  for (guint i = 0; i < 32000; i++)
    g_string_append (line, " q=\xc3\xa9");
  graph = accel_graph_new_from_description_full (line->str, "-e", NULL, &error);
  g_assert_null (graph);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  lines = g_strsplit (error->message, "\n", -1);
  g_test_message ("%s\n%s", lines[0], lines[999]);
  /* each " q=é" is 4 characters; every q after the first is one too many */
  g_assert_cmpstr (lines[0], ==,
      "-e:1:16: 'q=' is given twice for this stage (first at column 12)");
  g_assert_true (g_str_has_prefix (lines[999], "-e:1:4012: "));
}

/* a line of more than 1024 stages: said once, at the first past the
 * bound (it said also that a '!' in the middle of the line was at the
 * end, linking to nothing) */
static void
test_too_many_stages (void)
{
  g_autoptr (GString) line = g_string_new ("core.test-source");
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) graph = NULL;

  for (guint i = 0; i < 1100; i++)
    g_string_append (line, " ! core.scale");
  g_string_append (line, " ! core.null-sink");
  graph = accel_graph_new_from_description_full (line->str, "-e", NULL, &error);
  g_assert_null (graph);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  /* at the 1025th item, the 1024th core.scale */
  g_assert_cmpstr (
      error->message, ==, "-e:1:13319: more than 1024 stages and references");
}

/* accel-run -e runs the line, --print-yaml prints the file it stands for,
 * and a problem is shown under the line */
static void
test_accel_run (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-description-XXXXXX", NULL);
  g_autofree gchar *sums = g_build_filename (dir, "sums.txt", NULL);
  g_autofree gchar *line = g_strdup_printf (
      "core.test-source num-buffers=3 ! core.scale scale=3 ! "
      "core.checksum-sink location=%s",
      sums);
  g_autofree gchar *yaml = accel_description_to_yaml (line, "-e", NULL);
  g_autofree gchar *want
      = g_strdup_printf ("# accel-run -e '%s'\n%s", line, yaml);
  g_autofree gchar *out = NULL, *err = NULL, *written = NULL;
  g_auto (GStrv) lines = NULL;
  gint status;

  out = run_accel_run (
      (const char *[]){ "--print-yaml", "-e", line, NULL }, &status, &err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (out, ==, want);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a line that quotes its own values: the comment reads back through a
   * shell as the line (its quotes were nested, and it did not) */
  {
    const char *quoting = "core.test-source num-buffers=1 ! io.gst-sink "
                          "description='fakesink sync=false'";
    g_auto (GStrv) argv = NULL;
    gchar *nl;

    out = run_accel_run (
        (const char *[]){ "--print-yaml", "-e", quoting, NULL }, &status, &err);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (g_str_has_prefix (out, "# "));
    nl = strchr (out, '\n');
    *nl = '\0';
    g_assert_true (g_shell_parse_argv (out + 2, NULL, &argv, NULL));
    g_assert_cmpstr (argv[2], ==, quoting);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }

  /* YAML's own line breaks, control characters and DEL in a value: the
   * file reads back as the same graph (the comment line ended at the
   * break, and the rest of it was read as YAML, or held a control
   * character libyaml refuses; quoted, the breaks read back as spaces) */
  {
    const char *value = "a\xc2\x85"
                        "b\xe2\x80\xa8"
                        "c\xe2\x80\xa9"
                        "d\x7f"
                        "e\x01"
                        "f\xc2\x9f"
                        "g\xef\xbf\xbe"
                        "h\xc3\xa9";
    g_autofree gchar *breaking = g_strdup_printf (
        "core.test-source num-buffers=1 thread='%s' ! core.null-sink", value);
    g_autoptr (GError) error = NULL;
    g_autoptr (AccelGraph) graph = NULL;
    g_autofree gchar *thread = NULL;

    out = run_accel_run (
        (const char *[]){ "--print-yaml", "-e", breaking, NULL }, &status,
        &err);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_false (g_str_has_prefix (out, "#"));
    graph = accel_graph_new_from_yaml_string (out, "printed", &error);
    g_assert_no_error (error);
    g_object_get (
        accel_graph_get_stage (graph, "test-source0"), "thread", &thread, NULL);
    g_assert_cmpstr (thread, ==, value);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }

  out = run_accel_run ((const char *[]){ "-e", line, NULL }, &status, &err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_file_get_contents (sums, &written, NULL, NULL));
  lines = g_strsplit (written, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4); /* three and "" */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  out = run_accel_run (
      (const char *[]){ "-e", "core.test-source ! core.nul-sink", NULL },
      &status, &err);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  g_assert_nonnull (
      strstr (err, "-e:1:20: unknown stage kind 'core.nul-sink' (did you mean "
                   "'core.null-sink'?)\n"
                   "  core.test-source ! core.nul-sink\n"
                   "                     ^\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a line that is not UTF-8 is refused at the byte's column, as the
   * loader refuses it (GOption refused the option, naming neither) */
  for (guint print = 0; print < 2; print++)
    {
      out = run_accel_run (
          (const char *[]){ print ? "--print-yaml" : "-q", "-e",
              "core.t\xe9st-source ! core.null-sink", NULL },
          &status, &err);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 2);
      g_assert_true (g_str_has_prefix (
          err, "-e:1:7: the description is not UTF-8 text (byte 0xe9)\n"));
      /* under the line, where the line is shown */
      g_assert_true (print || strstr (err, "\n        ^\n"));
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
    }

  /* a key given twice: --print-yaml printed a file no load takes */
  out = run_accel_run ((const char *[]){ "--print-yaml", "-e",
                           "core.test-source ! core.scale scale=1 scale=2 ! "
                           "core.null-sink",
                           NULL },
      &status, &err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  g_assert_true (g_str_has_prefix (
      err, "-e:1:39: 'scale=' is given twice for this stage"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (g_remove (sums), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* one vocabulary with the elements: grid-size as accelfluid and accelcloth
 * call it; the fluid's old name still works, with a warning naming the new */
static void
test_grid_size (void)
{
  g_autoptr (GError) error = NULL, both_error = NULL;
  g_autoptr (AccelGraph) cloth = NULL, both = NULL;
  gint w = 0, h = 0;

  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) fluid = accel_graph_new_from_description (
          "realtime.fluid size=16 num-buffers=1 ! core.null-sink", &error);
      gint n = 0;

      g_assert_no_error (error);
      g_object_get (
          accel_graph_get_stage (fluid, "fluid0"), "grid-size", &n, NULL);
      g_assert_cmpint (n, ==, 16);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  /* at the line's column, not the YAML's it stands for */
  g_test_trap_assert_stderr (
      "*description:1:16: warning: parameter 'size' of stage 'fluid0' "
      "(realtime.fluid) is deprecated: use grid-size*");

  cloth = accel_graph_new_from_description (
      "realtime.cloth grid-size=12 num-buffers=1 ! core.null-sink", &error);
  g_assert_no_error (error);
  g_object_get (accel_graph_get_stage (cloth, "cloth0"), "grid-width", &w,
      "grid-height", &h, NULL);
  g_assert_cmpint (w, ==, 12);
  g_assert_cmpint (h, ==, 12);

  /* an old name beside its new one: the order of the keys chose */
  both = accel_graph_new_from_description (
      "realtime.fluid grid-size=32 size=16 num-buffers=1 ! core.null-sink",
      &both_error);
  g_assert_null (both);
  g_assert_cmpstr (both_error->message, ==,
      "description:1:29: stage 'fluid0' (realtime.fluid) sets both "
      "'grid-size' and 'size', its old name: give 'grid-size' alone");
}

/* the digest of core.checksum-sink "sum" after running @description */
static gchar *
blend_digest (const char *description)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_description (description, &error);

  g_assert_no_error (error);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  return digest_of (g, "sum");
}

/* as gst-launch: a link into a stage of several inputs that names no port
 * takes the next input not linked yet, skipping those a link names */
static void
test_next_input_port (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *yaml = NULL, *reserved = NULL, *digest = NULL;
  g_autofree gchar *named = NULL, *swapped = NULL;

  yaml = accel_description_to_yaml (
      "core.test-source format=rgba8 ! realtime.blend name=mix ! "
      "core.null-sink  core.test-source format=rgba8 ! mix.",
      NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (yaml, "  - test-source0 -> mix.a\n"));
  g_assert_nonnull (strstr (yaml, "  - test-source1 -> mix.b\n"));

  /* a port named anywhere in the line is not picked for a bare link, and
   * a stage may be referred to before it is declared */
  reserved
      = accel_description_to_yaml ("core.test-source format=rgba8 ! mix.  "
                                   "core.test-source format=rgba8 ! mix.a  "
                                   "realtime.blend name=mix ! core.null-sink",
          NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (reserved, "  - test-source0 -> mix.b\n"));
  g_assert_nonnull (strstr (reserved, "  - test-source1 -> mix.a\n"));

  /* the graph builds and runs with the base and the layer where the line
   * with named ports puts them, and not where the swapped ports would */
  digest = blend_digest ("io.pattern-source pattern=smpte num-buffers=2 ! "
                         "realtime.blend name=mix opacity=0.25 ! "
                         "core.checksum-sink name=sum  "
                         "io.pattern-source pattern=checkerboard "
                         "num-buffers=2 ! mix.");
  named = blend_digest ("io.pattern-source pattern=smpte num-buffers=2 ! "
                        "mix.a  realtime.blend name=mix opacity=0.25 ! "
                        "core.checksum-sink name=sum  "
                        "io.pattern-source pattern=checkerboard "
                        "num-buffers=2 ! mix.b");
  swapped = blend_digest ("io.pattern-source pattern=smpte num-buffers=2 ! "
                          "mix.b  realtime.blend name=mix opacity=0.25 ! "
                          "core.checksum-sink name=sum  "
                          "io.pattern-source pattern=checkerboard "
                          "num-buffers=2 ! mix.a");
  g_assert_cmpstr (digest, ==, named);
  g_assert_cmpstr (digest, !=, swapped);
}

/* each stage's place, as a program's own message about it names it: the
 * file's line and column of its kind, a description's column */
static void
test_stage_places (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) from_yaml = NULL, from_line = NULL;
  g_autoptr (AccelStage) made = NULL;
  g_autofree gchar *scale_at = NULL;

  from_yaml
      = accel_graph_new_from_yaml_string (branches_yaml, "b.yaml", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (
      accel_yaml_stage_get_place (accel_graph_get_stage (from_yaml, "src")), ==,
      "b.yaml:3:23");
  g_assert_cmpstr (
      accel_yaml_stage_get_place (accel_graph_get_stage (from_yaml, "raw")), ==,
      "b.yaml:6:23");

  from_line
      = accel_graph_new_from_description_full (branches, "-e", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (
      accel_yaml_stage_get_place (accel_graph_get_stage (from_line, "src")), ==,
      "-e:1:1");
  scale_at = g_strdup_printf (
      "-e:1:%d", (int)(strstr (branches, "core.scale") - branches) + 1);
  g_assert_cmpstr (
      accel_yaml_stage_get_place (accel_graph_get_stage (from_line, "scale0")),
      ==, scale_at);

  made = accel_stage_new ("core.scale", "alone", &error);
  g_assert_no_error (error);
  g_assert_null (accel_yaml_stage_get_place (made));
}

/* collide-radius as accelparticles calls it; the old pair collisions +
 * particle-radius still works, with a warning naming the new name */
static void
test_collide_radius (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = NULL;
  gfloat r = -1.0f;
  gboolean on = FALSE;

  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) old = accel_graph_new_from_description (
          "realtime.particles collisions=true particle-radius=0.02 "
          "num-buffers=1 ! core.null-sink",
          &error);
      g_assert_no_error (error);
      g_object_get (accel_graph_get_stage (old, "particles0"), "collide-radius",
          &r, NULL);
      g_assert_cmpfloat (r, ==, 0.02f);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (
      "*description:1:20: warning: parameter 'collisions' of stage "
      "'particles0' (realtime.particles) is deprecated: use collide-radius*");
  g_test_trap_assert_stderr (
      "*description:1:36: warning: parameter 'particle-radius' of stage "
      "'particles0' (realtime.particles) is deprecated: use collide-radius*");

  g = accel_graph_new_from_description (
      "realtime.particles collide-radius=0.03 num-buffers=2 ! core.null-sink",
      &error);
  g_assert_no_error (error);
  g_object_get (accel_graph_get_stage (g, "particles0"), "collisions", &on,
      "particle-radius", &r, NULL);
  g_assert_true (on);
  g_assert_cmpfloat (r, ==, 0.03f);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  /* 0 switches them off */
  g_object_set (
      accel_graph_get_stage (g, "particles0"), "collide-radius", 0.0f, NULL);
  g_object_get (accel_graph_get_stage (g, "particles0"), "collisions", &on,
      "collide-radius", &r, NULL);
  g_assert_false (on);
  g_assert_cmpfloat (r, ==, 0.0f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("ACCEL_BACKEND", "host", TRUE);
  g_test_add_func ("/description/to-yaml", test_to_yaml);
  g_test_add_func ("/description/same-graph-as-yaml", test_same_graph);
  g_test_add_func ("/description/errors-at-columns", test_errors);
  g_test_add_func ("/description/accel-run", test_accel_run);
  g_test_add_func ("/description/next-input-port", test_next_input_port);
  g_test_add_func ("/description/many-problems", test_many_problems);
  g_test_add_func ("/description/long-stage-line", test_long_stage_line);
  g_test_add_func ("/description/too-many-stages", test_too_many_stages);
  g_test_add_func ("/description/stage-places", test_stage_places);
  g_test_add_func ("/vocabulary/grid-size", test_grid_size);
  g_test_add_func ("/vocabulary/collide-radius", test_collide_radius);
  return g_test_run ();
}
