/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the YAML loader: golden messages for every class of mistake (file, line,
 * column and text), every problem of a file reported together, parameters
 * converted with their types, --set overrides, and loading from a string */
#include "accel-test.h"
#include "test-stages.h"

#include <glib/gstdio.h>
#include <math.h>

/* test.params: a sink with a parameter of every type the loader converts */
typedef enum
{
  TEST_MODE_FAST,
  TEST_MODE_ACCURATE,
} TestMode;

typedef enum
{
  TEST_CHANNEL_RED = 1 << 0,
  TEST_CHANNEL_GREEN = 1 << 1,
  TEST_CHANNEL_BLUE = 1 << 2,
} TestChannels;

#define TEST_TYPE_PARAMS (test_params_get_type ())
G_DECLARE_FINAL_TYPE (TestParams, test_params, TEST, PARAMS, AccelStage)

struct _TestParams
{
  AccelStage parent;
  gint count;
  guint size;
  gint64 big;
  guint64 huge;
  gfloat gain;
  gdouble rate;
  gboolean enabled;
  TestMode mode;
  guint channels;
  gchar *label;
};
G_DEFINE_FINAL_TYPE (TestParams, test_params, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_COUNT,
  PROP_SIZE,
  PROP_BIG,
  PROP_HUGE,
  PROP_GAIN,
  PROP_RATE,
  PROP_ENABLED,
  PROP_MODE,
  PROP_CHANNELS,
  PROP_LABEL,
};

static GType
test_mode_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { TEST_MODE_FAST, "TEST_MODE_FAST", "fast" },
    { TEST_MODE_ACCURATE, "TEST_MODE_ACCURATE", "accurate" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("TestMode", values));
  return (GType)type;
}

static GType
test_channels_get_type (void)
{
  static gsize type;
  static const GFlagsValue values[] = {
    { TEST_CHANNEL_RED, "TEST_CHANNEL_RED", "red" },
    { TEST_CHANNEL_GREEN, "TEST_CHANNEL_GREEN", "green" },
    { TEST_CHANNEL_BLUE, "TEST_CHANNEL_BLUE", "blue" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_flags_register_static ("TestChannels", values));
  return (GType)type;
}

static void
params_set_property (
    GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  TestParams *self = TEST_PARAMS (object);

  switch (id)
    {
    case PROP_COUNT:
      self->count = g_value_get_int (value);
      break;
    case PROP_SIZE:
      self->size = g_value_get_uint (value);
      break;
    case PROP_BIG:
      self->big = g_value_get_int64 (value);
      break;
    case PROP_HUGE:
      self->huge = g_value_get_uint64 (value);
      break;
    case PROP_GAIN:
      self->gain = g_value_get_float (value);
      break;
    case PROP_RATE:
      self->rate = g_value_get_double (value);
      break;
    case PROP_ENABLED:
      self->enabled = g_value_get_boolean (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_CHANNELS:
      self->channels = g_value_get_flags (value);
      break;
    case PROP_LABEL:
      g_free (self->label);
      self->label = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
params_get_property (
    GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
params_finalize (GObject *object)
{
  g_free (TEST_PARAMS (object)->label);
  G_OBJECT_CLASS (test_params_parent_class)->finalize (object);
}

static void
test_params_class_init (TestParamsClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  GParamFlags rw = G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS;
  AccelType in;

  oc->set_property = params_set_property;
  oc->get_property = params_get_property;
  oc->finalize = params_finalize;
  accel_stage_class_set_metadata (sc, "test.params", "A parameter per type");
  accel_type_init_any (&in);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &in, NULL);

  g_object_class_install_property (
      oc, PROP_COUNT, g_param_spec_int ("count", NULL, NULL, 0, 100, 0, rw));
  g_object_class_install_property (
      oc, PROP_SIZE, g_param_spec_uint ("size", NULL, NULL, 1, 64, 1, rw));
  g_object_class_install_property (oc, PROP_BIG,
      g_param_spec_int64 ("big", NULL, NULL, G_MININT64, G_MAXINT64, 0, rw));
  g_object_class_install_property (oc, PROP_HUGE,
      g_param_spec_uint64 ("huge", NULL, NULL, 0, G_MAXUINT64, 0, rw));
  g_object_class_install_property (
      oc, PROP_GAIN, g_param_spec_float ("gain", NULL, NULL, -1, 1, 0, rw));
  g_object_class_install_property (
      oc, PROP_RATE, g_param_spec_double ("rate", NULL, NULL, 0, 1e9, 0, rw));
  g_object_class_install_property (oc, PROP_ENABLED,
      g_param_spec_boolean ("enabled", NULL, NULL, FALSE, rw));
  g_object_class_install_property (oc, PROP_MODE,
      g_param_spec_enum (
          "mode", NULL, NULL, test_mode_get_type (), TEST_MODE_FAST, rw));
  g_object_class_install_property (oc, PROP_CHANNELS,
      g_param_spec_flags (
          "channels", NULL, NULL, test_channels_get_type (), 0, rw));
  g_object_class_install_property (
      oc, PROP_LABEL, g_param_spec_string ("label", NULL, NULL, NULL, rw));
}

static void
test_params_init (TestParams *self)
{
}

/* the problems @yaml is reported with, as one message */
static gchar *
string_error (const char *yaml)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "lim", &error);

  g_assert_null (g);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  return g_strdup (error->message);
}

/* the problems a file in bad/ is reported with, its folder left out so
 * they read the same anywhere */
static gchar *
load_error (const char *name)
{
  g_autofree gchar *path
      = g_test_build_filename (G_TEST_DIST, "bad", name, NULL);
  g_autofree gchar *prefix
      = g_strdup_printf ("%s/", g_test_get_dir (G_TEST_DIST));
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_file (path, &error);
  g_autoptr (GString) s = NULL;

  g_assert_null (g);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  s = g_string_new (error->message);
  g_string_replace (s, prefix, "", 0);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

typedef struct
{
  const char *file;
  const char *expected;
} Golden;

/* one file per class of mistake, and the exact problems it is reported with
 */
static const Golden goldens[] = {
  /* at the alias that repeats a key, a stage, a name or a link (it was at
   * the anchor, which the alias points back to) */
  { "aliases.yaml",
      "bad/aliases.yaml:5:46: key 'name' appears twice in a stage (first at "
      "line 5); here the alias *k repeats it from its anchor at line 5\n"
      "bad/aliases.yaml:6:5: a stage named 'src' is already declared at line "
      "4; here the alias *src repeats it from its anchor at line 4\n"
      "bad/aliases.yaml:7:12: a stage named 'sink' is already declared at "
      "line 5; here the alias *n repeats it from its anchor at line 5\n"
      "bad/aliases.yaml:10:5: input 'sink.in' is already linked, from 'src' "
      "at line 9; an input takes one link" },
  /* parameters an alias repeats, said for the stage where the alias is
   * (they were said at the anchor, where they are right for its stage) */
  { "alias-params.yaml",
      "bad/alias-params.yaml:4:41: stage 'k' (core.scale) has no parameter "
      "'num-buffers'; here the alias *p repeats it from its anchor at line 3\n"
      "bad/alias-params.yaml:5:49: parameter 'scale' of stage 'j' "
      "(core.scale) must be a number, not 'banana'\n"
      "bad/alias-params.yaml:5:68: parameter 'offset' of stage 'j' "
      "(core.scale) must be a number, not 'banana'; here the alias *v "
      "repeats it from its anchor at line 5" },
  { "merge.yaml",
      "bad/merge.yaml:5:42: merge keys ('<<') are not read in params: write "
      "its keys out (an alias may stand for a whole value)\n"
      "bad/merge.yaml:6:37: merge keys ('<<') are not read in a stage: write "
      "its keys out (an alias may stand for a whole value)" },
  { "malformed.yaml", "bad/malformed.yaml:4:6: did not find expected ',' or "
                      "'}' (while parsing a flow mapping that starts at 3:5)" },
  { "tab.yaml", "bad/tab.yaml:3:1: found character that cannot start any token "
                "(while scanning for the next token that starts at 3:1); YAML "
                "indents with spaces, never tabs" },
  { "latin1.yaml", "bad/latin1.yaml:1:14: not UTF-8 text (byte 0xe9); a "
                   "pipeline is UTF-8 text" },
  { "control.yaml",
      "bad/control.yaml:3:1: control characters are not allowed (byte 0x01)" },
  { "empty.yaml", "bad/empty.yaml:1:1: the file is empty; expected a mapping "
                  "with pipeline, stages and links" },
  { "not-a-mapping.yaml", "bad/not-a-mapping.yaml:1:1: the pipeline must be a "
                          "mapping, not a list" },
  { "two-documents.yaml", "bad/two-documents.yaml:2:9: the pipeline needs "
                          "stages, and this list is empty\n"
                          "bad/two-documents.yaml:3:1: a second document; a "
                          "file declares one pipeline" },
  { "unknown-key.yaml",
      "bad/unknown-key.yaml:1:1: the pipeline needs stages "
      "(stages: - {name: ..., kind: ...})\n"
      "bad/unknown-key.yaml:2:1: unknown key 'stagse' in the "
      "pipeline (did you mean 'stages'?); expected one of "
      "pipeline, device, placement, defaults, supervision, stages, links" },
  { "supervision.yaml",
      "bad/supervision.yaml:2:25: supervision 'on-fault' must be one of "
      "auto, restart, resume, stop, escalate, not 'sometimes'\n"
      "bad/supervision.yaml:2:44: supervision 'within' must be a duration "
      "such as 10s, 500ms or 2min, not 'soon'\n"
      "bad/supervision.yaml:2:64: supervision 'max-restarts' is out of range: "
      "-1 is not in 0 .. 65535\n"
      "bad/supervision.yaml:5:54: unknown key 'deadlin' in supervision (did "
      "you mean 'deadline'?); expected one of on-fault, max-restarts, within, "
      "deadline, watchdog, snapshot-interval\n"
      "bad/supervision.yaml:5:77: supervision 'deadline' must be a scalar, "
      "not a list" },
  { "duplicates.yaml", "bad/duplicates.yaml:2:1: key 'pipeline' appears twice "
                       "in the pipeline (first at line 1)\n"
                       "bad/duplicates.yaml:4:41: key 'kind' appears twice in "
                       "a stage (first at line 4)\n"
                       "bad/duplicates.yaml:5:66: key 'mailbox-size' appears "
                       "twice in params (first at line 5)\n"
                       "bad/duplicates.yaml:6:12: a stage named 'src' is "
                       "already declared at line 4" },
  { "shapes.yaml",
      "bad/shapes.yaml:3:9: device must be auto, host or a GPU number from 0 "
      "to 63, not "
      "'gpu'\n"
      "bad/shapes.yaml:4:11: defaults must be a mapping, not a list\n"
      "bad/shapes.yaml:6:5: a stage must be a mapping, not a scalar\n"
      "bad/shapes.yaml:7:5: a stage needs a name (name: ...)\n"
      "bad/shapes.yaml:8:12: stage 'nokind' needs a kind (kind: ...)\n"
      "bad/shapes.yaml:9:49: params must be a mapping, not a list\n"
      "bad/shapes.yaml:10:12: input 'k.in' (core.scale) is not linked\n"
      "bad/shapes.yaml:10:49: parameter 'scale' of stage 'k' (core.scale) must "
      "be a scalar\n"
      "bad/shapes.yaml:11:12: a stage's name must be a scalar, not a mapping\n"
      "bad/shapes.yaml:13:5: a link must be a scalar, not a list" },
  { "names.yaml",
      "bad/names.yaml:3:12: stage name 'cam.0' may hold only ASCII letters, "
      "digits, '_', '-' and '\"', as links and state files are named after "
      "it\n"
      "bad/names.yaml:4:12: stage name 'my sink' may hold only ASCII letters, "
      "digits, '_', '-' and '\"', as links and state files are named after "
      "it\n"
      "bad/names.yaml:5:12: stage name 'a->b' may hold only ASCII letters, "
      "digits, '_', '-' and '\"', as links and state files are named after "
      "it" },
  { "unknown-kind.yaml",
      "bad/unknown-kind.yaml:3:23: unknown stage kind 'core.test-sourc' (did "
      "you mean 'core.test-source'?)\n"
      "bad/unknown-kind.yaml:4:25: unknown stage kind 'nosuch.stage': no "
      "plugin here provides 'nosuch.' kinds\n"
      "bad/unknown-kind.yaml:5:25: unknown stage kind 'scale' (did you mean "
      "'core.scale'?)" },
  { "defaults.yaml",
      "bad/defaults.yaml:2:24: default 'completion' must be one of poll, "
      "hostfn, sync, not 'pol' (did you mean 'poll'?)\n"
      "bad/defaults.yaml:2:38: default 'mailbox' is out of range: 0 is not in "
      "1 .. 1024\n"
      "bad/defaults.yaml:2:50: default 'streams' must be one of per-stage, "
      "single, pooled, not 'many'\n"
      "bad/defaults.yaml:2:56: unknown key 'mailbxo' in defaults (did you mean "
      "'mailbox'?); expected one of completion, streams, segments, graph, "
      "mailbox, thread\n"
      "bad/defaults.yaml:2:78: default 'segments' must be on or off, not "
      "'sideways'" },
  { "bad-param.yaml",
      "bad/bad-param.yaml:6:20: parameter 'num-buffers' of stage 'src' "
      "(core.test-source) must be an integer, not 'lots'\n"
      "bad/bad-param.yaml:7:14: parameter 'width' of stage 'src' "
      "(core.test-source) is out of range: 0 is not in 1 .. 32767\n"
      "bad/bad-param.yaml:8:7: stage 'src' (core.test-source) has no parameter "
      "'shpe' (did you mean 'shape'?)\n"
      "bad/bad-param.yaml:9:61: parameter 'completion' of stage 'sink' "
      "(core.null-sink) must be one of poll, hostfn, sync, not 'eventually'" },
  { "values.yaml",
      "bad/values.yaml:8:14: parameter 'count' of stage 'p' (test.params) must "
      "be an integer, not '1.5'\n"
      "bad/values.yaml:9:13: parameter 'size' of stage 'p' (test.params) is "
      "out of range: -1 is not in 1 .. 64\n"
      "bad/values.yaml:10:12: parameter 'big' of stage 'p' (test.params) is "
      "out of range: 99999999999999999999 is not in -9223372036854775808 .. "
      "9223372036854775807\n"
      "bad/values.yaml:12:13: parameter 'gain' of stage 'p' (test.params) is "
      "out of range: 2 is not in -1 .. 1\n"
      /* YAML's own spelling of NaN is a number, and no finite one */
      "bad/values.yaml:13:13: parameter 'rate' of stage 'p' (test.params) must "
      "be a finite number, not '.nan'\n"
      "bad/values.yaml:14:16: parameter 'enabled' of stage 'p' (test.params) "
      "must be true or false, not 'maybe'\n"
      "bad/values.yaml:15:13: parameter 'mode' of stage 'p' (test.params) must "
      "be one of fast, accurate, not 'fsat' (did you mean 'fast'?)\n"
      "bad/values.yaml:16:17: parameter 'channels' of stage 'p' (test.params) "
      "takes flags among red, green, blue joined with '+', not 'purple'\n"
      "bad/values.yaml:18:7: stage 'p' (test.params) has no parameter 'cuont' "
      "(did you mean 'count'?)\n"
      "bad/values.yaml:21:21: parameter 'count' of stage 'q' (test.params) is "
      "out of range: 1e3 is not in 0 .. 100\n"
      "bad/values.yaml:21:32: parameter 'rate' of stage 'q' (test.params) must "
      "be a finite number, not '1e400'\n"
      "bad/values.yaml:21:57: parameter 'gain' of stage 'q' (test.params) must "
      "be a finite number, not 'nan'\n"
      /* a whole number too big is out of range; one below the smallest
       * double is no whole number (it read as 0) */
      "bad/values.yaml:22:50: parameter 'count' of stage 'r' (test.params) is "
      "out of range: 1e400 is not in 0 .. 100\n"
      "bad/values.yaml:22:63: parameter 'size' of stage 'r' (test.params) must "
      "be an integer, not '1e-400'\n"
      "bad/values.yaml:22:77: parameter 'rate' of stage 'r' (test.params) must "
      "be a finite number, not '-.Inf'\n"
      /* no whole number, though a double holds none of their fractions:
       * both were taken, as 5 and 9007199254740994 */
      "bad/values.yaml:23:50: parameter 'count' of stage 's' (test.params) "
      "must be an integer, not '5.0000000000000001'\n"
      "bad/values.yaml:23:75: parameter 'big' of stage 's' (test.params) must "
      "be an integer, not '9007199254740993.5'" },
  { "ranks.yaml",
      "bad/ranks.yaml:5:47: stage 'none': 'ranks: []' would run it on no rank; "
      "list the ranks that run it, or leave 'ranks' out for every rank\n"
      "bad/ranks.yaml:6:49: stage 'minus': a rank is a number from 0, not "
      "'-1'\n"
      "bad/ranks.yaml:7:49: a list of ranks must be a list, not a scalar\n"
      "bad/ranks.yaml:8:47: stage 'far' runs on rank 7, but the world has 1 "
      "ranks (0 to 0): a process alone is rank 0 of 1 (run the world with "
      "--ranks or --world)" },
  { "bad-links.yaml", "bad/bad-links.yaml:4:12: a stage named 'src' is already "
                      "declared at line 3\n"
                      "bad/bad-links.yaml:7:12: link to unknown stage 'snik' "
                      "(did you mean 'sink'?)\n"
                      "bad/bad-links.yaml:8:5: stage 'src' (core.test-source) "
                      "has no output port 'bogus'; its output port is out\n"
                      "bad/bad-links.yaml:9:5: a link must read 'stage -> "
                      "stage' or 'stage.port -> stage.port', not 'src sink'\n"
                      /* once, though it ends two links of the chain */
                      "bad/bad-links.yaml:10:12: link to unknown stage 'sinc' "
                      "(did you mean 'sink'?)\n"
                      "bad/bad-links.yaml:10:20: link to unknown stage 'snik' "
                      "(did you mean 'sink'?)" },
  { "ports.yaml",
      "bad/ports.yaml:11:12: stage 'pair' (test.pair-sink) has 2 input ports "
      "(a, b): name one, as 'pair.a'\n"
      "bad/ports.yaml:12:14: stage 'pair' (test.pair-sink) has no input port "
      "'bb' (did you mean 'b'?); its input ports are a, b\n"
      "bad/ports.yaml:14:14: input 'sink.in' is already linked, from 'src' at "
      "line 13; an input takes one link\n"
      "bad/ports.yaml:15:5: stage 'sink' (core.null-sink) has no output ports\n"
      "bad/ports.yaml:16:12: 'k.in' is in the middle of a chain, which takes "
      "the stage's only input and output; name ports in links of their own" },
  { "unlinked.yaml",
      "bad/unlinked.yaml:5:12: input 'pair.b' (test.pair-sink) is not linked\n"
      "bad/unlinked.yaml:6:12: input 'k.in' (core.scale) is not linked\n"
      "bad/unlinked.yaml:7:12: input 'sink.in' (core.null-sink) is not "
      "linked" },
  { "mismatch.yaml",
      "bad/mismatch.yaml:7:5: cannot link 'numbers.out' (core.test-source) to "
      "'blur.in' (realtime.gaussian-blur): output type tensor<f32>[64]@device "
      "does not fit input type image<?>[?x?]@device: kind tensor is not "
      "image" },
  { "cycle.yaml",
      "bad/cycle.yaml:7:5: graph 't' has a cycle through 'a', 'b'" },
  { "aside.yaml",
      "bad/aside.yaml:4:1: unknown key 'stgaes' in the pipeline (did you mean "
      "'stages'?); expected one of pipeline, device, placement, defaults, "
      "supervision, stages, links\n"
      "bad/aside.yaml:10:5: cannot link 'numbers.out' (core.test-source) to "
      "'blur.in' (realtime.gaussian-blur): output type tensor<f32>[64]@device "
      "does not fit input type image<?>[?x?]@device: kind tensor is not "
      "image" },
  { "many.yaml",
      "bad/many.yaml:3:9: device must be auto, host or a GPU number from 0 to "
      "63, not "
      "'gpu0'\n"
      "bad/many.yaml:4:21: default 'mailbox' is out of range: 0 is not in 1 .. "
      "1024\n"
      "bad/many.yaml:6:41: unknown key 'parms' in a stage (did you mean "
      "'params'?); expected one of name, kind, params, device, supervision, "
      "ranks\n"
      "bad/many.yaml:7:21: unknown stage kind 'core.sacle' (did you mean "
      "'core.scale'?)\n"
      "bad/many.yaml:8:50: parameter 'scale' of stage 'k2' (core.scale) must "
      "be a number, not 'twice'\n"
      "bad/many.yaml:8:57: stage 'k2' (core.scale) has no parameter 'ofset' "
      "(did you mean 'offset'?)\n"
      "bad/many.yaml:9:12: a stage named 'k2' is already declared at line 8\n"
      "bad/many.yaml:10:12: input 'sink.in' (core.null-sink) is not linked\n"
      "bad/many.yaml:13:11: link to unknown stage 'snik' (did you mean "
      "'sink'?)\n"
      "bad/many.yaml:14:5: a link must read 'stage -> stage' or 'stage.port -> "
      "stage.port', not 'k2 => sink'" },
  { "unsafe-names.yaml",
      "bad/unsafe-names.yaml:1:11: pipeline name 'my\\tpipe' may not hold "
      "control characters\n"
      "bad/unsafe-names.yaml:3:12: stage name 'a\\tb' may hold only ASCII "
      "letters, "
      "digits, '_', '-' and '\"', as links and state files are named after "
      "it\n"
      "bad/unsafe-names.yaml:4:12: stage name 'x;rm' may hold only ASCII "
      "letters, "
      "digits, '_', '-' and '\"', as links and state files are named after "
      "it\n"
      "bad/unsafe-names.yaml:5:12: stage name '../etc' may hold only ASCII "
      "letters, "
      "digits, '_', '-' and '\"', as links and state files are named after "
      "it\n"
      "bad/unsafe-names.yaml:6:12: stage name 'x}y' may hold only ASCII "
      "letters, "
      "digits, '_', '-' and '\"', as links and state files are named after "
      "it" },
  /* once: the link to it was reported too, as to an unknown stage */
  { "non-ascii-name.yaml",
      "bad/non-ascii-name.yaml:3:12: stage name 'blür' may hold only "
      "ASCII letters, digits, '_', '-' and '\"', as links and state files are "
      "named after it" },
};

static void
test_golden (gconstpointer data)
{
  const Golden *golden = data;
  g_autofree gchar *msg = load_error (golden->file);

  g_assert_cmpstr (msg, ==, golden->expected);
}

/* every file in bad/ has its golden message */
static void
test_golden_complete (void)
{
  g_autofree gchar *dir = g_test_build_filename (G_TEST_DIST, "bad", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    {
      gboolean found = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (goldens) && !found; i++)
        found = g_str_equal (goldens[i].file, name);
      if (!found)
        g_test_message ("%s has no golden message", name);
      g_assert_true (found);
      n++;
    }
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (goldens));
}

static const char *const good_yaml
    = "pipeline: mem\n"
      "defaults: {mailbox: 2, streams: single}\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {shape: 8x8, num-buffers: 3}}\n"
      "  - {name: k, kind: core.scale, params: {scale: 2}}\n"
      "  - {name: sink, kind: core.checksum-sink, params: {mailbox-size: 3}}\n"
      "links: [src -> k, k.out -> sink.in]\n";

/* a string builds a prepared graph that runs; defaults reach every stage
 * unless it sets its own */
static void
test_string (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = NULL;
  AccelStage *sink;
  gfloat scale;
  guint k_mailbox, sink_mailbox;

  g = accel_graph_new_from_yaml_string (good_yaml, "inline", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (accel_graph_get_name (g), ==, "mem");
  g_object_get (accel_graph_get_stage (g, "k"), "scale", &scale, "mailbox-size",
      &k_mailbox, NULL);
  g_object_get (
      accel_graph_get_stage (g, "sink"), "mailbox-size", &sink_mailbox, NULL);
  g_assert_cmpfloat (scale, ==, 2.0f);
  g_assert_cmpuint (k_mailbox, ==, 2);
  g_assert_cmpuint (sink_mailbox, ==, 3);
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  sink = accel_graph_get_stage (g, "sink");
  g_assert_cmpuint (accel_checksum_sink_get_n_received (sink), ==, 3);
}

/* a graph of two stages, its defaults: segments: %s */
#define SEGMENTS_YAML                                                          \
  "pipeline: s\n"                                                              \
  "defaults: {segments: %s}\n"                                                 \
  "stages:\n"                                                                  \
  "  - {name: src, kind: core.test-source}\n"                                  \
  "  - {name: sink, kind: core.null-sink}\n"                                   \
  "links: [src -> sink]\n"

/* defaults: segments: off gives every stage a thread of its own, and the
 * graph drawn says why each stands alone */
static void
test_segments_off (void)
{
  const char *values[] = { "off", "on" };
  const char *reasons[] = { "own thread: segments are off",
    "own thread: runs on the host backend" };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *text = g_strdup_printf (SEGMENTS_YAML, values[i]);
      g_autoptr (AccelGraph) g
          = accel_graph_new_from_yaml_string (text, "inline", &error);
      g_autofree gchar *dot = NULL;

      g_assert_no_error (error);
      g_assert_true (accel_graph_prepare (g, &error));
      dot = accel_graph_to_dot (g);
      g_assert_nonnull (strstr (dot, reasons[i]));
      g_assert_null (strstr (dot, "cluster_"));
    }
}

#define GRAPH_MODE_YAML                                                        \
  "pipeline: s\n"                                                              \
  "defaults: {graph: %s}\n"                                                    \
  "stages:\n"                                                                  \
  "  - {name: src, kind: core.test-source}\n"                                  \
  "  - {name: k, kind: core.scale, params: {graph: off}}\n"                    \
  "  - {name: sink, kind: core.null-sink}\n"                                   \
  "links: [src -> k, k -> sink]\n"

/* defaults: graph sets the graph mode; a stage's graph: its own; other
 * values name the place */
static void
test_graph_mode (void)
{
  const char *values[] = { "auto", "on", "off" };
  AccelCaptureMode modes[]
      = { ACCEL_CAPTURE_AUTO, ACCEL_CAPTURE_ON, ACCEL_CAPTURE_OFF };
  g_autoptr (GError) error = NULL;
  g_autofree gchar *bad = g_strdup_printf (GRAPH_MODE_YAML, "sideways");
  AccelGraph *none;

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree gchar *text = g_strdup_printf (GRAPH_MODE_YAML, values[i]);
      g_autoptr (AccelGraph) g
          = accel_graph_new_from_yaml_string (text, "inline", &error);
      AccelCaptureMode stage_mode;

      g_assert_no_error (error);
      g_assert_cmpint (accel_graph_get_capture_mode (g), ==, modes[i]);
      g_object_get (accel_graph_get_stage (g, "k"), "graph", &stage_mode, NULL);
      g_assert_cmpint (stage_mode, ==, ACCEL_CAPTURE_OFF);
    }
  none = accel_graph_new_from_yaml_string (bad, "inline", &error);
  g_assert_null (none);
  g_assert_nonnull (strstr (error->message,
      "inline:2:19: default 'graph' must be auto, on or off, not 'sideways'"));
}

/* without an origin, messages still say where */
static void
test_string_origin (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_string (
      "pipeline: x\nstages:\n  - {name: a, kind: core.nope}\n", NULL, &error);

  g_assert_null (g);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_true (g_str_has_prefix (
      error->message, "<string>:3:21: unknown stage kind 'core.nope'"));
}

/* overrides are applied before the graph is checked: one can repair it */
static void
test_overrides (void)
{
  const char *overrides[]
      = { "k.scale=0.5", "k.offset=-1", "sink.mailbox-size=7",
          "src.num-buffers=4", "device=host", "k.device=host", NULL };
  /* an image instead of the tensor: its shape taken back */
  const char *repair[] = { "numbers.format=RGBA8", "numbers.shape=", NULL };
  g_autofree gchar *mismatch
      = g_test_build_filename (G_TEST_DIST, "bad", "mismatch.yaml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = NULL, repaired = NULL;
  gfloat scale, offset;
  guint mailbox;

  g = accel_graph_new_from_yaml_string_full (
      good_yaml, "inline", overrides, &error);
  g_assert_no_error (error);
  g_object_get (
      accel_graph_get_stage (g, "k"), "scale", &scale, "offset", &offset, NULL);
  g_object_get (
      accel_graph_get_stage (g, "sink"), "mailbox-size", &mailbox, NULL);
  g_assert_cmpfloat (scale, ==, 0.5f);
  g_assert_cmpfloat (offset, ==, -1.0f);
  g_assert_cmpuint (mailbox, ==, 7);
  g_assert_true (accel_device_is_host (accel_graph_get_device (g)));
  g_assert_true (accel_graph_run (g, &error));
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (accel_graph_get_stage (g, "sink")),
      ==, 4);

  repaired = accel_graph_new_from_yaml_file_full (mismatch, repair, &error);
  g_assert_no_error (error);
  g_assert_nonnull (repaired);
}

/* problems of overrides come after the file's, in the order given */
static void
test_override_errors (void)
{
  const char *bad[] = { "k.scael=1", "nope.scale=1", "k=1", "k.scale=x", "=1",
    "device=gpu", "sink.device=-1", NULL };
  const char *file_bad = "pipeline: t\n"
                         "stages:\n"
                         "  - {name: src, kind: core.test-source}\n"
                         "  - {name: k, kind: core.scale, params: {x: 1}}\n"
                         "  - {name: sink, kind: core.null-sink}\n"
                         "links: [src -> k -> sink]\n";
  g_autoptr (GError) error = NULL, error2 = NULL;
  g_autoptr (AccelGraph) none = NULL, none2 = NULL;

  none = accel_graph_new_from_yaml_string_full (
      good_yaml, "inline", bad, &error);
  g_assert_null (none);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "--set k.scael=1: stage 'k' (core.scale) has no parameter 'scael' (did "
      "you mean 'scale'?)\n"
      "--set nope.scale=1: no stage named 'nope'\n"
      "--set k=1: expected stage.param=value\n"
      "--set k.scale=x: parameter 'scale' of stage 'k' (core.scale) must be "
      "a number, not 'x'\n"
      "--set =1: expected stage.param=value\n"
      "--set device=gpu: device must be auto, host or a GPU number from 0 to "
      "63, not "
      "'gpu'\n"
      "--set sink.device=-1: device must be auto, host or a GPU number from 0 "
      "to 63, not "
      "'-1'");

  none2 = accel_graph_new_from_yaml_string_full (file_bad, "f.yaml",
      (const char *[]){ "sinc.mailbox-size=2", NULL }, &error2);
  g_assert_null (none2);
  g_assert_cmpstr (error2->message, ==,
      "f.yaml:4:42: stage 'k' (core.scale) has no parameter 'x'\n"
      "--set sinc.mailbox-size=2: no stage named 'sinc' (did you mean "
      "'sink'?)");

  /* a value --set gave that preparing the graph refused: the setting's
   * problem, where it was put at the stage's name in the file */
  {
    g_autoptr (GError) error3 = NULL;
    g_autoptr (AccelGraph) none3
        = accel_graph_new_from_yaml_string_full (good_yaml, "inline",
            (const char *[]){ "src.shape=0x4", NULL }, &error3);

    g_assert_null (none3);
    g_assert_true (g_str_has_prefix (error3->message,
        "--set src.shape=0x4: stage 'src' (core.test-source): shape '0x4' "));
  }
}

/* an old parameter name given by --set: a warning naming the new one, as
 * in the file; beside a --set of the new name, refused (the last of the
 * two won, and neither was said) */
static void
test_override_old_name (void)
{
  const char *yaml = "stages:\n"
                     "  - {name: sim, kind: realtime.fluid,\n"
                     "     params: {grid-size: 64, num-buffers: 2}}\n"
                     "  - {name: v, kind: core.null-sink}\n"
                     "links: [sim -> v]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) both = NULL;

  if (g_test_subprocess ())
    {
      g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_string_full (
          yaml, "f.yaml", (const char *[]){ "sim.size=32", NULL }, &error);
      gint n = 0;

      g_assert_no_error (error);
      g_object_get (accel_graph_get_stage (g, "sim"), "grid-size", &n, NULL);
      g_assert_cmpint (n, ==, 32);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (
      "*--set sim.size=32: warning: parameter 'size' of stage 'sim' "
      "(realtime.fluid) is deprecated: use grid-size*");

  both = accel_graph_new_from_yaml_string_full (yaml, "f.yaml",
      (const char *[]){ "sim.size=32", "sim.grid-size=16", NULL }, &error);
  g_assert_null (both);
  g_assert_cmpstr (error->message, ==,
      "--set sim.size=32: stage 'sim' (realtime.fluid) sets both "
      "'grid-size' and 'size', its old name: give 'grid-size' alone");
}

/* control characters in a setting and in the file's name are escapes in
 * the problems, as the file's own text is: they broke a problem's line or
 * sent the terminal their sequences */
/* a byte the reader refuses, at its line and column where the file's
 * lines end in CR, CR LF, NEL or LS, as YAML ends lines: only LF was
 * counted, and CR-only files had every such problem on line 1 */
static void
test_byte_problem_lines (void)
{
  static const char *const breaks[]
      = { "\r", "\r\n", "\xc2\x85", "\xe2\x80\xa8", "\n" };

  for (guint i = 0; i < G_N_ELEMENTS (breaks); i++)
    {
      g_autofree gchar *yaml
          = g_strdup_printf ("pipeline: r%sdevice: host%sfoo: \x01%s",
              breaks[i], breaks[i], breaks[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g
          = accel_graph_new_from_yaml_string (yaml, "br", &error);

      g_assert_null (g);
      g_assert_cmpstr (error->message, ==,
          "br:3:6: control characters are not allowed (byte 0x01)");
    }
}

static void
test_controls_escaped (void)
{
  const char *file_bad = "stages:\n"
                         "  - {name: src, kind: core.test-source}\n"
                         "  - {name: k, kind: core.scale, params: {x: 1}}\n"
                         "  - {name: sink, kind: core.null-sink}\n"
                         "links: [src -> k -> sink]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) none
      = accel_graph_new_from_yaml_string_full (file_bad, "a\nb.yaml",
          (const char *[]){ "k.scale=1\n2", "k.offset=\x1b[2J", NULL }, &error);

  g_assert_null (none);
  g_assert_cmpstr (error->message, ==,
      "a\\nb.yaml:3:42: stage 'k' (core.scale) has no parameter 'x'\n"
      "--set k.scale=1\\n2: parameter 'scale' of stage 'k' (core.scale) "
      "must be a number, not '1\\n2'\n"
      "--set k.offset=\\x1b[2J: parameter 'offset' of stage 'k' "
      "(core.scale) must be a number, not '\\x1b[2J'");
}

/* every type of parameter converted from its YAML text */
static void
test_values (void)
{
  const char *yaml
      = "pipeline: values\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source}\n"
        "  - name: p\n"
        "    kind: test.params\n"
        "    params: {count: 1e2, size: 0x10, big: -9223372036854775808,\n"
        "             huge: 18_446_744_073_709_551_615, gain: -0.25,\n"
        "             rate: 2.5e8, enabled: yes, mode: accurate,\n"
        "             channels: red+blue, label: \"12 monkeys\"}\n"
        "links: [src -> p]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "values", &error);
  TestParams *p;

  g_assert_no_error (error);
  p = TEST_PARAMS (accel_graph_get_stage (g, "p"));
  g_assert_cmpint (p->count, ==, 100);
  g_assert_cmpuint (p->size, ==, 16);
  g_assert_cmpint (p->big, ==, G_MININT64);
  g_assert_cmpuint (p->huge, ==, G_MAXUINT64);
  g_assert_cmpfloat (p->gain, ==, -0.25f);
  g_assert_cmpfloat (p->rate, ==, 2.5e8);
  g_assert_true (p->enabled);
  g_assert_cmpint (p->mode, ==, TEST_MODE_ACCURATE);
  g_assert_cmpuint (p->channels, ==, TEST_CHANNEL_RED | TEST_CHANNEL_BLUE);
  g_assert_cmpstr (p->label, ==, "12 monkeys");

  /* hexadecimal exactly, grouped too: through a double, 2^53 + 1 was 2^53 */
  {
    g_autoptr (GError) hex_error = NULL;
    g_autoptr (AccelGraph) hex = accel_graph_new_from_yaml_string (
        "stages:\n"
        "  - {name: src, kind: core.test-source}\n"
        "  - {name: p, kind: test.params, params: {huge: "
        "0x20_0000_0000_0001}}\n"
        "links: [src -> p]\n",
        "hex", &hex_error);

    g_assert_no_error (hex_error);
    p = TEST_PARAMS (accel_graph_get_stage (hex, "p"));
    g_assert_cmpuint (p->huge, ==, G_GUINT64_CONSTANT (0x20000000000001));
  }
  /* a point or an exponent exactly too: through a double 2^53 + 1 was
   * 2^53, and 5.0000000000000001 was 5 */
  {
    g_autoptr (GError) dec_error = NULL;
    g_autoptr (AccelGraph) dec = accel_graph_new_from_yaml_string (
        "stages:\n"
        "  - {name: src, kind: core.test-source}\n"
        "  - {name: p, kind: test.params, params: {huge: 9007199254740993.0, "
        "big: -90071992547409930e-1, count: 0.25e2}}\n"
        "links: [src -> p]\n",
        "dec", &dec_error);

    g_assert_no_error (dec_error);
    p = TEST_PARAMS (accel_graph_get_stage (dec, "p"));
    g_assert_cmpuint (p->huge, ==, G_GUINT64_CONSTANT (9007199254740993));
    g_assert_cmpint (p->big, ==, -G_GINT64_CONSTANT (9007199254740993));
    g_assert_cmpint (p->count, ==, 25);
  }
  /* the largest float as --describe prints it (a little above it) */
  {
    g_autoptr (GError) max_error = NULL;
    g_autoptr (AccelGraph) max = accel_graph_new_from_yaml_string (
        "stages:\n"
        "  - {name: src, kind: core.test-source}\n"
        "  - {name: k, kind: core.scale, params: {scale: 3.4028235e+38}}\n"
        "  - {name: sink, kind: core.null-sink}\n"
        "links: [src -> k -> sink]\n",
        "max", &max_error);
    gfloat scale = 0;

    g_assert_no_error (max_error);
    g_object_get (accel_graph_get_stage (max, "k"), "scale", &scale, NULL);
    g_assert_cmpfloat (scale, ==, G_MAXFLOAT);
  }
}

/* supervision for the whole pipeline, a stage's own over it, params over
 * both */
static void
test_supervision (void)
{
  const char *yaml
      = "pipeline: sup\n"
        "supervision: {on-fault: restart, max-restarts: 5, within: 30s,\n"
        "              deadline: 250ms}\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source}\n"
        "  - name: k\n"
        "    kind: core.scale\n"
        "    supervision: {on-fault: resume, within: 2min,\n"
        "                  snapshot-interval: 10, deadline: 1.5s,\n"
        "                  watchdog: 1min}\n"
        "    params: {max-restarts: 1}\n"
        "  - {name: sink, kind: core.null-sink}\n"
        "links: [src -> k -> sink]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "sup", &error);
  gint on_fault;
  guint max_restarts, interval;
  gint64 window, deadline, watchdog;

  g_assert_no_error (error);
  g_object_get (accel_graph_get_stage (g, "sink"), "on-fault", &on_fault,
      "max-restarts", &max_restarts, "restart-window", &window, "deadline",
      &deadline, "watchdog", &watchdog, NULL);
  g_assert_cmpint (on_fault, ==, ACCEL_SUPERVISION_RESTART);
  g_assert_cmpuint (max_restarts, ==, 5);
  g_assert_cmpint (window, ==, 30000);
  g_assert_cmpint (deadline, ==, 250);
  g_assert_cmpint (watchdog, ==, 0);
  g_object_get (accel_graph_get_stage (g, "k"), "on-fault", &on_fault,
      "max-restarts", &max_restarts, "restart-window", &window, "deadline",
      &deadline, "snapshot-interval", &interval, "watchdog", &watchdog, NULL);
  g_assert_cmpint (on_fault, ==, ACCEL_SUPERVISION_RESUME);
  g_assert_cmpuint (max_restarts, ==, 1);
  g_assert_cmpint (window, ==, 120000);
  g_assert_cmpint (deadline, ==, 1500);
  g_assert_cmpuint (interval, ==, 10);
  g_assert_cmpint (watchdog, ==, 60000);
}

/* "a -> b -> c" links like "a -> b" and "b -> c"; an output may feed
 * several inputs */
static void
test_chain_and_fan_out (void)
{
  const char *yaml = "pipeline: fan\n"
                     "stages:\n"
                     "  - {name: src, kind: core.test-source,\n"
                     "     params: {shape: 16, num-buffers: 5}}\n"
                     "  - {name: a, kind: core.scale}\n"
                     "  - {name: b, kind: core.scale, params: {scale: -1}}\n"
                     "  - {name: left, kind: core.checksum-sink}\n"
                     "  - {name: right, kind: core.checksum-sink}\n"
                     "links:\n"
                     "  - src -> a -> left\n"
                     "  - src.out -> b.in\n"
                     "  - b -> right\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "fan", &error);
  g_autofree gchar *dot = NULL;

  g_assert_no_error (error);
  dot = accel_graph_to_dot (g);
  g_assert_nonnull (strstr (dot, "\"src\" -> \"a\""));
  g_assert_nonnull (strstr (dot, "\"a\" -> \"left\""));
  g_assert_nonnull (strstr (dot, "\"src\" -> \"b\""));
  g_assert_true (accel_graph_run (g, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (accel_graph_get_stage (g, "left")),
      ==, 5);
  g_assert_cmpuint (
      accel_checksum_sink_get_n_received (accel_graph_get_stage (g, "right")),
      ==, 5);
}

/* null values read as absent where that makes sense */
static void
test_nulls (void)
{
  const char *yaml = "pipeline: nulls\n"
                     "defaults:\n"
                     "stages:\n"
                     "  - {name: src, kind: core.test-source, params: ~}\n"
                     "  - name: sink\n"
                     "    kind: core.null-sink\n"
                     "    params:\n"
                     "links: [src -> sink]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "nulls", &error);

  g_assert_no_error (error);
  g_assert_nonnull (g);
}

/* a key of a mapping, empty, ~ or null, is absent too: `device` (top and
 * per stage), a default, a supervision setting and a parameter said "must
 * be auto, host or a GPU number from 0 to 63, not '~'" and the like; a
 * parameter the stage lacks is still named */
static void
test_null_values (void)
{
  const char *yaml
      = "pipeline: nulls\n"
        "device: ~\n"
        "defaults: {mailbox: ~}\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source, device: null,\n"
        "     params: {shape: '4', dtype: ~}, supervision: {within: }}\n"
        "  - {name: sink, kind: core.null-sink, params: {widht: ~}}\n"
        "links: [src -> sink]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "nulls", &error);

  g_assert_null (g);
  g_assert_cmpstr (error->message, ==,
      "nulls:7:49: stage 'sink' (core.null-sink) has no parameter 'widht'");
}

/* tags were ignored: "!include other.yaml" read as the text after it */
static void
test_tags (void)
{
  static const struct
  {
    const char *yaml, *problem;
  } cases[] = {
    { "stages:\n  - {name: s, kind: core.test-source,\n"
      "     params: {shape: !include shape.yaml}}\n",
        "tags:3:22: the tag '!include' is not understood" },
    { "stages: !!map [a]\n", "tags:1:9: the tag '!!map' does not fit a list" },
    { "stages:\n  - !!seq {name: s}\n",
        "tags:2:5: the tag '!!seq' does not fit a mapping" },
    { "stages: [{name: s, kind: !!timestamp 2001-12-14}]\n",
        "tags:1:26: the tag '!!timestamp' does not fit a value" },
  };
  /* YAML's own tags where they fit are taken */
  const char *fits = "pipeline: !!str tagged\n"
                     "stages: !!seq\n"
                     "  - !!map {name: !!str src, kind: core.test-source,\n"
                     "     params: {shape: ! '4', num-buffers: !!int 2,\n"
                     "              dtype: !!null }}\n"
                     "  - {name: sink, kind: core.null-sink}\n"
                     "links: [src -> sink]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (fits, "tags", &error);

  g_assert_no_error (error);
  g_assert_nonnull (g);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (AccelGraph) none
          = accel_graph_new_from_yaml_string (cases[i].yaml, "tags", &e);

      g_assert_null (none);
      g_assert_nonnull (e);
      if (!g_str_has_prefix (e->message, cases[i].problem))
        g_error ("case %u: %s", i, e->message);
    }
}

/* a tag that is not understood leaves the rest of the file to be read:
 * the file's other problems are said with it (it hid them all) */
static void
test_tag_hides_nothing (void)
{
  g_autofree gchar *msg = string_error (
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {num-bufers: 2}}\n"
      "  - {name: sink, kind: core.nul-sink, params: {x: !foo 1}}\n"
      "links: [src -> sink]\n");

  g_assert_cmpstr (msg, ==,
      "lim:2:50: stage 'src' (core.test-source) has no parameter "
      "'num-bufers' (did you mean 'num-buffers'?)\n"
      "lim:3:24: unknown stage kind 'core.nul-sink' (did you mean "
      "'core.null-sink'?)\n"
      "lim:3:51: the tag '!foo' is not understood: a pipeline file takes "
      "YAML's own tags (!!str, !!int, !!float, !!bool, !!null) and no "
      "others, so no !include or type of its own; write the value itself");
}

static void
test_file_errors (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-yaml-XXXXXX", NULL);
  g_autofree gchar *missing = g_build_filename (dir, "missing.yaml", NULL);
  g_autofree gchar *nul = g_build_filename (dir, "nul.yaml", NULL);
  g_autofree gchar *expected = NULL;
  g_autoptr (GError) error = NULL, error2 = NULL;
  g_autoptr (AccelGraph) g = NULL, g2 = NULL;

  g = accel_graph_new_from_yaml_file (missing, &error);
  g_assert_null (g);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_nonnull (strstr (error->message, missing));

  g_assert_true (
      g_file_set_contents (nul, "pipeline: t\nsta\0ges: []\n", 25, NULL));
  g2 = accel_graph_new_from_yaml_file (nul, &error2);
  g_assert_null (g2);
  expected
      = g_strdup_printf ("%s:2:4: a NUL byte; a pipeline is UTF-8 text", nul);
  g_assert_cmpstr (error2->message, ==, expected);
  g_unlink (nul);
  g_rmdir (dir);
}

/* a sink whose location is the pipeline file itself (p.yaml for p.raw)
 * wrote over it, and the run exited 0: refused at the location, or at the
 * stage where --set gives it */
static void
test_writes_itself (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("accel-yaml-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "p.yaml", NULL);
  g_autofree gchar *text = g_strdup_printf (
      "pipeline: itself\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '4'}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: '%s'}}\n"
      "links: [src -> out]\n",
      path);
  g_autofree gchar *at_location = g_strdup_printf (
      "%s:4:60: stage 'out' (io.raw-file-sink): location %s is the "
      "pipeline file itself: the run would write over it",
      path, path);
  g_autofree gchar *override = g_strdup_printf ("out.location=%s", path);
  g_autofree gchar *at_stage = g_strdup_printf (
      "%s:4:12: stage 'out' (io.raw-file-sink): location %s is the "
      "pipeline file itself",
      path, path);
  const char *overrides[] = { override, NULL };
  g_autofree gchar *other = g_build_filename (dir, "out.raw", NULL);
  g_autoptr (GError) error = NULL, error2 = NULL;
  g_autoptr (AccelGraph) g = NULL, g2 = NULL, g3 = NULL;
  g_autofree gchar *kept = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g = accel_graph_new_from_yaml_file (path, &error);
  g_assert_null (g);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==, at_location);

  /* --set out.location=p.yaml over a location of its own */
  g_assert_true (g_file_set_contents (path,
      "pipeline: itself\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source, params: {shape: '4'}}\n"
      "  - {name: out, kind: io.raw-file-sink, params: {location: o.raw}}\n"
      "links: [src -> out]\n",
      -1, NULL));
  g2 = accel_graph_new_from_yaml_file_full (path, overrides, &error2);
  g_assert_null (g2);
  g_assert_nonnull (strstr (error2->message, at_stage));
  g_assert_true (g_file_get_contents (path, &kept, NULL, NULL));
  g_assert_nonnull (strstr (kept, "pipeline: itself"));

  /* as a string it is no file: nothing to write over */
  g3 = accel_graph_new_from_yaml_string (text, path, NULL);
  g_assert_nonnull (g3);
  g_unlink (path);
  g_unlink (other);
  g_rmdir (dir);
}

/* on the host backend a GPU number runs on the host, and the loader says
 * so where the file names it */
static void
test_gpu_on_host (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_string (
          "device: 3\n"
          "stages:\n"
          "  - {name: src, kind: core.test-source, device: 1}\n"
          "  - {name: out, kind: core.null-sink}\n"
          "links: [src -> out]\n",
          "gpus", &error);
      g_assert_no_error (error);
      g_assert_true (accel_device_is_host (
          accel_stage_get_device (accel_graph_get_stage (g, "src"))));
      g_assert_true (accel_device_is_host (
          accel_stage_get_device (accel_graph_get_stage (g, "out"))));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*gpus:1:9: warning: device 3 is a GPU, but "
                             "the host backend runs every stage: on the host "
                             "instead*gpus:3:49: warning: device 1 is a GPU*");
}

/* runs @test in a subprocess that must finish within @seconds: a loader
 * that takes minutes fails here instead of hanging the suite */
static void
trap_within (const char *test, guint seconds)
{
  g_autofree gchar *path = g_strdup_printf ("/yaml/limits/%s", test);

  g_test_trap_subprocess (
      path, (guint64)seconds * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* a file larger than the cap is refused before it is all read */
static void
test_limit_size (void)
{
  g_autofree gchar *dir = NULL, *big = NULL, *expected = NULL;
  g_autoptr (GString) text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("size", 20);
      return;
    }
  dir = g_dir_make_tmp ("accel-yaml-XXXXXX", NULL);
  big = g_build_filename (dir, "big.yaml", NULL);
  text = g_string_new (good_yaml);
  while (text->len <= 17 * 1024 * 1024)
    g_string_append (text, "# padding, a comment line of the file ...\n");
  g_assert_true (g_file_set_contents (big, text->str, text->len, NULL));
  g = accel_graph_new_from_yaml_file (big, &error);
  g_unlink (big);
  g_rmdir (dir);
  g_assert_null (g);
  expected = g_strdup_printf (
      "%s:0:0: the file is larger than 16777216 bytes, the most a pipeline "
      "may be",
      big);
  g_assert_cmpstr (error->message, ==, expected);
}

/* an endless input with no size to stat: read up to the cap, then refused */
static void
test_limit_endless (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = NULL;

  if (!g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/zero");
      return;
    }
  if (!g_test_subprocess ())
    {
      trap_within ("endless", 20);
      return;
    }
  g = accel_graph_new_from_yaml_file ("/dev/zero", &error);
  g_assert_null (g);
  g_assert_cmpstr (error->message, ==,
      "/dev/zero:0:0: the file is larger than 16777216 bytes, the most a "
      "pipeline may be");
}

/* anchors that refer to anchors: ten levels of ten aliases each */
static void
test_limit_aliases (void)
{
  g_autoptr (GString) s = NULL;
  g_autofree gchar *msg = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("aliases", 10);
      return;
    }
  s = g_string_new ("pipeline: t\nx0: &a0 [lol]\n");
  for (guint i = 1; i < 10; i++)
    g_string_append_printf (s,
        "x%u: &a%u [*a%u, *a%u, *a%u, *a%u, *a%u, *a%u, *a%u, *a%u, *a%u, "
        "*a%u]\n",
        i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
        i - 1);
  g_string_append (s, "stages: &s [*a9, *a9, *a9, *a9, *a9]\n"
                      "links: [*s, *s, *s, *s, *s, *s, *s, *s]\n");
  msg = string_error (s->str);
  g_assert_cmpstr (msg, ==,
      "lim:8:25: the aliases reach more than 1000000 nodes; a pipeline is "
      "smaller, and alias expansion stops here");
}

/* a long scalar named by many aliases: each counts as its bytes, so the
 * loader stops at the limit instead of building (and quoting in its
 * messages) gigabytes of text */
static void
test_limit_aliased_bytes (void)
{
  g_autoptr (GString) s = NULL;
  g_autofree gchar *msg = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("aliased-bytes", 10);
      return;
    }
  s = g_string_new ("pipeline: t\nbig: &b \"");
  for (guint i = 0; i < 1024 * 1024; i++)
    g_string_append_c (s, 'x');
  g_string_append (s, "\"\n");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (s, "k%u: *b\n", i);
  msg = string_error (s->str);
  g_assert_cmpstr (msg, ==,
      "lim:17:6: the aliases reach more than 16 MiB of text; a pipeline is "
      "smaller, and alias expansion stops here");
}

/* a document past the node limit without an alias says so (it was said
 * that its aliases reached that many) */
static void
test_limit_nodes (void)
{
  g_autoptr (GString) s = g_string_new ("pipeline: t\nmany:\n");
  g_autofree gchar *msg = NULL;

  for (guint i = 0; i < 1000001; i++)
    g_string_append (s, "  - 1\n");
  msg = string_error (s->str);
  g_assert_true (g_str_has_suffix (msg,
      ": the document has more than 1000000 nodes; a pipeline is smaller"));
}

/* "\0" in a quoted value is refused where it is, not cut short there */
static void
test_nul_in_scalar (void)
{
  g_autofree gchar *msg = string_error (
      "pipeline: t\nstages:\n  - {name: s, kind: core.test-source, params: "
      "{shape: \"4\\0x\"}}\n");

  g_assert_cmpstr (msg, ==,
      "lim:3:55: a value holds a NUL character (\\0); no setting takes one");
}

/* a duration is digits, a fraction and a unit, nothing else; a value
 * under a millisecond but not zero is one; one too large is out of the
 * parameter's range, its largest taken (it was "not a duration" from
 * 10^15 ms on) */
static void
test_durations (void)
{
  static const char *const refused[]
      = { "0x10s", "\" 10s\"", "1e3ms", "-5s", "10 s", ".5s" };
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = NULL;
  g_autofree gchar *too_large = NULL;
  gint64 deadline = 0;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree gchar *yaml
          = g_strdup_printf ("pipeline: t\nsupervision: {deadline: %s}\n"
                             "stages: [{name: s, kind: core.test-source}]\n",
              refused[i]);
      g_autofree gchar *msg = string_error (yaml);

      g_assert_nonnull (
          strstr (msg, "supervision 'deadline' must be a duration such as"));
    }
  g = accel_graph_new_from_yaml_string ("pipeline: t\n"
                                        "supervision: {deadline: 0.1ms}\n"
                                        "stages: [{name: s, kind: "
                                        "core.test-source}]\n",
      "t", &error);
  g_assert_no_error (error);
  g_object_get (accel_graph_get_stage (g, "s"), "deadline", &deadline, NULL);
  g_assert_cmpint (deadline, ==, 1);
  g_clear_object (&g);

  too_large = string_error ("pipeline: t\n"
                            "supervision: {deadline: 99999999999999min}\n"
                            "stages: [{name: s, kind: core.test-source}]\n");
  g_assert_cmpstr (too_large, ==,
      "lim:2:25: supervision 'deadline' is out of range: 99999999999999min "
      "is not in 0ms .. 9223372036854775ms");
  g = accel_graph_new_from_yaml_string ("pipeline: t\n"
                                        "supervision: {deadline: "
                                        "9223372036854775ms}\n"
                                        "stages: [{name: s, kind: "
                                        "core.test-source}]\n",
      "t", &error);
  g_assert_no_error (error);
  g_object_get (accel_graph_get_stage (g, "s"), "deadline", &deadline, NULL);
  g_assert_cmpint (deadline, ==, G_GINT64_CONSTANT (9223372036854775));
}

/* flow collections nested ever deeper */
static void
test_limit_depth (void)
{
  g_autoptr (GString) s = NULL;
  g_autofree gchar *msg = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("depth", 10);
      return;
    }
  s = g_string_new ("pipeline: t\nstages: ");
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (s, i % 2 ? '{' : '[');
  msg = string_error (s->str);
  g_assert_cmpstr (msg, ==,
      "lim:2:72: collections nested more than 64 deep; a pipeline needs a "
      "few levels");
}

/* a name far longer than any it could be a misspelling of is not compared
 * with them: no suggestion, and no time spent on one (each comparison costs
 * the product of the lengths) */
static void
test_limit_long_names (void)
{
  g_autofree gchar *kind = NULL, *param = NULL, *msg = NULL;
  g_autoptr (GString) s = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("long-names", 10);
      return;
    }
  kind = g_strnfill (300000, 'k');
  param = g_strnfill (300000, 'p');
  s = g_string_new ("pipeline: t\nstages:\n");
  g_string_append_printf (s, "  - {name: a, kind: %s}\n", kind);
  g_string_append (s, "  - name: b\n    kind: core.test-source\n    params:\n");
  /* a key of more than 1024 characters is written explicitly, with '?' */
  for (guint i = 0; i < 30; i++)
    g_string_append_printf (s, "      ? %s%u\n      : 1\n", param, i);
  msg = string_error (s->str);
  g_assert_null (strstr (msg, "did you mean"));
  g_assert_true (g_str_has_prefix (msg, "lim:3:21: unknown stage kind 'kkkk"));
  g_assert_nonnull (strstr (msg, "\nlim:7:9: stage 'b' (core.test-source) has "
                                 "no parameter 'pppp"));
}

/* thousands of keys: each checked once, not against every other */
static void
test_limit_many_keys (void)
{
  g_autoptr (GString) s = NULL;
  g_autofree gchar *msg = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("many-keys", 10);
      return;
    }
  s = g_string_new ("pipeline: t\nstages:\n"
                    "  - name: sink\n    kind: core.null-sink\n"
                    "    params:\n");
  for (guint i = 0; i < 60000; i++)
    g_string_append_printf (s, "      parameter-number-%u: 1\n", i);
  msg = string_error (s->str);
  g_assert_nonnull (
      strstr (msg, "lim:6:7: stage 'sink' (core.null-sink) has no parameter "
                   "'parameter-number-0'\n"));
  /* the first thousand problems, then how many more: the other keys and
   * the input left unlinked */
  g_assert_true (
      g_str_has_suffix (msg, "\nlim: 59001 more problems not shown"));
}

/* more stages than any pipeline has: refused at once, not checked */
static void
test_limit_many_stages (void)
{
  g_autoptr (GString) s = NULL;
  g_autofree gchar *msg = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("many-stages", 10);
      return;
    }
  s = g_string_new ("pipeline: t\nstages:\n");
  for (guint i = 0; i < 100000; i++)
    g_string_append_printf (s, "  - {name: s%u, kind: core.null-sink}\n", i);
  g_string_append (s, "links:\n");
  for (guint i = 0; i < 100000; i++)
    g_string_append_printf (s, "  - nosuch%u -> s%u\n", i, i);
  msg = string_error (s->str);
  g_assert_cmpstr (
      msg, ==, "lim:3:3: a pipeline has at most 1024 stages, not 100000");
}

/* a chain counts a link an arrow against the cap on links: 5.5 million
 * arrows in one item took 1.4 GB and seconds where 4097 are refused */
static void
test_limit_long_chain (void)
{
  g_autoptr (GString) s = NULL;
  g_autofree gchar *msg = NULL;

  if (!g_test_subprocess ())
    {
      trap_within ("long-chain", 10);
      return;
    }
  s = g_string_new ("pipeline: t\nstages:\n"
                    "  - {name: a, kind: core.test-source}\nlinks:\n  - a");
  for (guint i = 0; i < 1000000; i++)
    g_string_append (s, " -> a");
  g_string_append (s, "\n");
  msg = string_error (s->str);
  g_assert_cmpstr (msg, ==,
      "lim:5:5: a pipeline has at most 4096 links, and this chain takes it "
      "past them");
}

/* text from the file in a problem keeps it one line, and without the
 * terminal's escape sequences */
/* an empty pipeline name says so (it said the name held control
 * characters) */
static void
test_empty_pipeline_name (void)
{
  g_autofree gchar *msg
      = string_error ("pipeline: ''\n"
                      "stages:\n"
                      "  - {name: s, kind: core.test-source}\n"
                      "  - {name: k, kind: core.null-sink}\n"
                      "links: [s -> k]\n");

  g_assert_cmpstr (msg, ==, "lim:1:11: the pipeline name is empty");
}

static void
test_problem_one_line (void)
{
  g_autofree gchar *msg
      = string_error ("pipeline: t\nstages:\n"
                      "  - {name: s, kind: core.test-source,\n"
                      "     params: {format: \"\\e[31mRED\\nlim:1:1: fake\"}}\n"
                      "  - {name: k, kind: core.null-sink}\n"
                      "links: [s -> k]\n");

  g_autofree gchar *name = string_error (
      "pipeline: t\nstages:\n  - {name: \"a\\eb\", kind: core.null-sink}\n");

  g_assert_cmpstr (msg, ==,
      "lim:4:23: stage 's': format '\\x1b[31mRED\\nlim:1:1: fake' is not one "
      "of RGBA8, BGRA8, GRAY8, NV12, I420, RGBAF32");
  /* a stage's name the same way (it was octal, \033) */
  g_assert_true (g_str_has_prefix (name, "lim:3:12: stage name 'a\\x1bb' "));
}

/* a stage's shape, format or size that does not fit, found as the graph
 * is prepared, is reported at the value (it was at the stage's name); one
 * that --set gives, which has no place in the file, as the setting's
 * problem (it was at the stage's name, as if the file's) */
static void
test_prepare_at_value (void)
{
  static const struct
  {
    const char *params, *override, *at;
  } cases[] = {
    { "{num-buffers: 1, shape: 0x4}", NULL, "lim:4:38: stage 's' " },
    { "{num-buffers: 1,\n     format: RGBA9}", NULL, "lim:5:14: stage 's': " },
    { "{num-buffers: 1, format: RGBA8, shape: 64}", NULL,
        "lim:4:53: stage 's' (core.test-source) sets 'shape' beside" },
    { "{height: 8, num-buffers: 1}", NULL, "lim:4:23: stage 's' " },
    { "{num-buffers: 1, shape: 8}", "s.shape=0",
        "--set s.shape=0: stage 's' " },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *yaml
          = g_strdup_printf ("pipeline: t\nstages:\n"
                             "  - {name: s, kind: core.test-source,\n"
                             "     params: %s}\n"
                             "  - {name: k, kind: core.null-sink}\n"
                             "links: [s -> k]\n",
              cases[i].params);
      const char *overrides[] = { cases[i].override, NULL };
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_string_full (
          yaml, "lim", overrides, &error);

      g_test_message ("%s", error ? error->message : "(no error)");
      g_assert_null (g);
      g_assert_true (g_str_has_prefix (error->message, cases[i].at));
    }
}

/* realtime.effects' description that does not parse is said at its value,
 * naming the parameter (it was at the stage's name, and named none) */
static void
test_effects_at_value (void)
{
  static const char yaml[] = "pipeline: t\nstages:\n"
                             "  - {name: s, kind: core.test-source,\n"
                             "     params: {format: RGBA8, num-buffers: 1}}\n"
                             "  - {name: fx, kind: realtime.effects,\n"
                             "     params: {effects: 'contrast=nan'}}\n"
                             "  - {name: k, kind: core.null-sink}\n"
                             "links: [s -> fx -> k]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g
      = accel_graph_new_from_yaml_string (yaml, "lim", &error);

  g_assert_null (g);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "lim:6:24: stage 'fx' (realtime.effects): effects: 'contrast=nan': "
      "'nan' is not a number");
}

/* a plugin's shape problem that names a parameter is said at that
 * parameter's value: dnn's dilation and padding, fft's rank (they were
 * at the stage's name) */
static void
test_plugin_params_at_value (void)
{
  static const struct
  {
    const char *stages, *at;
  } cases[] = {
    { "  - {name: s, kind: rand.uniform, params: {shape: 1x1x6x6}}\n"
      "  - {name: w, kind: rand.normal, params: {shape: 1x1x3x3}}\n"
      "  - {name: c, kind: dnn.conv2d,\n"
      "     params: {pad-h: 1, dilation-h: 4}}\n",
        "lim:6:37: stage 'c' (dnn.conv2d): in is 1x1x6x6 but weights is "
        "1x1x3x3; with dilation-h 4 and dilation-w 1 the filter spans 9x3" },
    { "  - {name: s, kind: rand.uniform, params: {shape: 1x1x6x6}}\n"
      "  - {name: w, kind: rand.normal, params: {shape: 1x1x3x3}}\n"
      "  - {name: c, kind: dnn.conv2d,\n"
      "     params: {stride-h: 1, pad-w: 0}}\n",
        NULL },
    { "  - {name: s, kind: core.test-source, params: {shape: '64'}}\n"
      "  - {name: f, kind: fft.forward,\n"
      "     params: {normalize: true, rank: 2}}\n",
        "lim:5:38: stage 'f' (fft.forward): rank 2 transforms a tensor of at "
        "least 2 dimensions" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean conv = strstr (cases[i].stages, "conv2d") != NULL;
      g_autofree gchar *yaml = g_strdup_printf ("pipeline: t\nstages:\n%s"
                                                "  - {name: k, kind: "
                                                "core.null-sink}\n"
                                                "links: [%s]\n",
          cases[i].stages,
          conv ? "s -> c.in, w -> c.weights, c -> k" : "s -> f -> k");
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g
          = accel_graph_new_from_yaml_string (yaml, "lim", &error);

      g_test_message ("%s", error ? error->message : "(no error)");
      if (!cases[i].at)
        {
          /* a 3x3 filter fits a 6x6 input */
          g_assert_no_error (error);
          continue;
        }
      g_assert_null (g);
      g_assert_true (g_str_has_prefix (error->message, cases[i].at));
    }
}

/* a type a stage refuses names the stage it came from too, and is said
 * at the link between them (it named the stage that refused it alone, at
 * its name) */
static void
test_refused_type_names_both (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelGraph) g = accel_graph_new_from_yaml_string (
      "pipeline: t\n"
      "stages:\n"
      "  - {name: src, kind: core.test-source,\n"
      "     params: {format: NV12, width: 8, height: 8}}\n"
      "  - {name: edges, kind: realtime.sobel}\n"
      "  - {name: k, kind: core.null-sink}\n"
      "links: [src -> edges -> k]\n",
      "t.yaml", &error);

  g_assert_null (g);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
  g_assert_cmpstr (error->message, ==,
      "t.yaml:7:9: stage 'edges' (realtime.sobel) takes RGBA8, BGRA8, GRAY8 "
      "or RGBAF32 images, not image<NV12>[8x8]@device; its input 'in' comes "
      "from stage 'src' (core.test-source)");
}

/* every stage with a shape parameter takes it the one way, and a size
 * past the largest is told as such, with the limit (rand's and io's said
 * "positive sizes" of 4294967296) */
static void
test_shape_limit (void)
{
  static const char *const stages[] = {
    "{name: s, kind: core.test-source, params: {shape: 4294967296x4}}",
    "{name: s, kind: rand.uniform, params: {shape: 4294967296x4}}",
    "{name: s, kind: io.raw-file-source,\n"
    "     params: {location: /dev/null, dtype: f32, shape: 4294967296x4}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (stages); i++)
    {
      g_autofree gchar *yaml = g_strdup_printf ("pipeline: t\nstages:\n"
                                                "  - %s\n"
                                                "  - {name: k, kind: "
                                                "core.null-sink}\n"
                                                "links: [s -> k]\n",
          stages[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g
          = accel_graph_new_from_yaml_string (yaml, "lim", &error);

      g_test_message ("%s", error ? error->message : "(no error)");
      g_assert_null (g);
      g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE);
      g_assert_nonnull (strstr (error->message,
          "): shape '4294967296x4' is not a list of 1 to 8 sizes from 1 to "
          "2147483647 such as '1024' or '480x640'"));
    }
}

/* the examples are valid as they are */
static void
test_examples_load (void)
{
  g_autofree gchar *dir = g_test_build_filename (
      G_TEST_DIST, "..", "..", "pipelines", "examples", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    {
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (AccelGraph) g = NULL;
      if (!g_str_has_suffix (name, ".yaml"))
        continue;
      g = accel_graph_new_from_yaml_file (path, &error);
      /* a GPU-only stage (nvrtc.kernel) refuses the host backend, with a
       * mark and a reason; the rest of the file was read by then */
      if (error && error->domain == ACCEL_ERROR
          && strstr (error->message, "needs a GPU; this graph runs on the "
                                     "host backend"))
        {
          g_test_message ("%s", error->message);
          g_clear_error (&error);
        }
      g_assert_no_error (error);
      n++;
    }
  g_assert_cmpuint (n, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  test_stages_register ();
  accel_registry_register (accel_registry_get_default (), TEST_TYPE_PARAMS);

  for (guint i = 0; i < G_N_ELEMENTS (goldens); i++)
    {
      g_autofree gchar *base = g_strndup (
          goldens[i].file, strlen (goldens[i].file) - strlen (".yaml"));
      g_autofree gchar *path = g_strdup_printf ("/yaml/error/%s", base);
      g_test_add_data_func (path, &goldens[i], test_golden);
    }
  g_test_add_func ("/yaml/error/every-file-has-a-golden", test_golden_complete);
  g_test_add_func ("/yaml/string", test_string);
  g_test_add_func ("/yaml/segments-off", test_segments_off);
  g_test_add_func ("/yaml/graph-mode", test_graph_mode);
  g_test_add_func ("/yaml/string-without-origin", test_string_origin);
  g_test_add_func ("/yaml/overrides", test_overrides);
  g_test_add_func ("/yaml/override-errors", test_override_errors);
  g_test_add_func ("/yaml/values", test_values);
  g_test_add_func ("/yaml/supervision", test_supervision);
  g_test_add_func ("/yaml/chain-and-fan-out", test_chain_and_fan_out);
  g_test_add_func ("/yaml/nulls", test_nulls);
  g_test_add_func ("/yaml/null-values", test_null_values);
  g_test_add_func ("/yaml/tags", test_tags);
  g_test_add_func ("/yaml/tag-hides-nothing", test_tag_hides_nothing);
  g_test_add_func ("/yaml/controls-escaped", test_controls_escaped);
  g_test_add_func ("/yaml/byte-problem-lines", test_byte_problem_lines);
  g_test_add_func ("/yaml/override-old-name", test_override_old_name);
  g_test_add_func ("/yaml/gpu-on-host", test_gpu_on_host);
  g_test_add_func ("/yaml/file-errors", test_file_errors);
  g_test_add_func ("/yaml/writes-itself", test_writes_itself);
  g_test_add_func ("/yaml/examples-load", test_examples_load);
  g_test_add_func ("/yaml/limits/size", test_limit_size);
  g_test_add_func ("/yaml/limits/endless", test_limit_endless);
  g_test_add_func ("/yaml/limits/aliases", test_limit_aliases);
  g_test_add_func ("/yaml/limits/aliased-bytes", test_limit_aliased_bytes);
  g_test_add_func ("/yaml/limits/nodes", test_limit_nodes);
  g_test_add_func ("/yaml/nul-in-scalar", test_nul_in_scalar);
  g_test_add_func ("/yaml/durations", test_durations);
  g_test_add_func ("/yaml/limits/depth", test_limit_depth);
  g_test_add_func ("/yaml/limits/long-names", test_limit_long_names);
  g_test_add_func ("/yaml/limits/many-keys", test_limit_many_keys);
  g_test_add_func ("/yaml/limits/many-stages", test_limit_many_stages);
  g_test_add_func ("/yaml/limits/long-chain", test_limit_long_chain);
  g_test_add_func ("/yaml/problem-one-line", test_problem_one_line);
  g_test_add_func ("/yaml/prepare-at-value", test_prepare_at_value);
  g_test_add_func ("/yaml/shape-limit", test_shape_limit);
  g_test_add_func ("/yaml/effects-at-value", test_effects_at_value);
  g_test_add_func ("/yaml/plugin-params-at-value", test_plugin_params_at_value);
  g_test_add_func (
      "/yaml/refused-type-names-both", test_refused_type_names_both);
  g_test_add_func ("/yaml/empty-pipeline-name", test_empty_pipeline_name);
  return g_test_run ();
}
