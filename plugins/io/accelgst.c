/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel io plugin: the GStreamer bridge's shared parts: building a
 * description, watching its bus, caps and images */
#define G_LOG_DOMAIN "accel-gst"

#include "accelgst-private.h"
#include "accelio-private.h"
#include "gstaccelframecopy.h"

#include <string.h>

void
accel_gst_watch_init (AccelGstWatch *watch)
{
  g_mutex_init (&watch->lock);
  g_cond_init (&watch->cond);
  watch->error = NULL;
  watch->eos = FALSE;
  watch->context = NULL;
}

void
accel_gst_watch_clear (AccelGstWatch *watch)
{
  g_clear_error (&watch->error);
  g_clear_pointer (&watch->context, gst_context_unref);
  g_mutex_clear (&watch->lock);
  g_cond_clear (&watch->cond);
}

/* forgets what a previous run of the pipeline said */
void
accel_gst_watch_reset (AccelGstWatch *watch)
{
  g_mutex_lock (&watch->lock);
  g_clear_error (&watch->error);
  watch->eos = FALSE;
  g_mutex_unlock (&watch->lock);
}

/**
 * accel_gst_watch_get_error:
 * @watch: a watch
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE, with a copy of it in @error, when an element posted an
 * error. MT safe.
 */
gboolean
accel_gst_watch_get_error (AccelGstWatch *watch, GError **error)
{
  gboolean failed;

  g_mutex_lock (&watch->lock);
  failed = watch->error != NULL;
  if (failed)
    g_propagate_error (error, g_error_copy (watch->error));
  g_mutex_unlock (&watch->lock);
  return failed;
}

/**
 * accel_gst_watch_wait_error:
 * @watch: a watch
 * @timeout_us: the longest wait
 * @error: return location for a #GError, or %NULL
 *
 * After a failed state change: the element that failed may post its error
 * a moment after the change returns.
 *
 * Returns: %TRUE, with a copy of the error in @error, when an element
 * posted one in time. MT safe.
 */
gboolean
accel_gst_watch_wait_error (
    AccelGstWatch *watch, gint64 timeout_us, GError **error)
{
  gint64 deadline = accel_deadline_after (timeout_us);

  g_mutex_lock (&watch->lock);
  while (
      !watch->error && g_cond_wait_until (&watch->cond, &watch->lock, deadline))
    ;
  g_mutex_unlock (&watch->lock);
  return accel_gst_watch_get_error (watch, error);
}

/**
 * accel_gst_watch_wait_eos:
 * @watch: a watch
 * @timeout_us: the longest wait
 * @error: return location for a #GError, or %NULL
 *
 * Waits for the pipeline's end of stream: every sink has had it, so files
 * are complete.
 *
 * Returns: %FALSE with the element's error or %ACCEL_ERROR_TIMEOUT.
 */
gboolean
accel_gst_watch_wait_eos (
    AccelGstWatch *watch, gint64 timeout_us, GError **error)
{
  gint64 deadline = accel_deadline_after (timeout_us);
  gboolean ok = TRUE;

  g_mutex_lock (&watch->lock);
  while (!watch->eos && !watch->error && ok)
    ok = g_cond_wait_until (&watch->cond, &watch->lock, deadline);
  if (watch->error)
    {
      g_propagate_error (error, g_error_copy (watch->error));
      ok = FALSE;
    }
  else if (!ok)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
          "the GStreamer pipeline did not finish within %" G_GINT64_FORMAT
          " ms of its end of stream",
          timeout_us / 1000);
    }
  g_mutex_unlock (&watch->lock);
  return ok;
}

/* the last line of an element's debug text says why; the rest is where */
static const char *
debug_reason (const char *debug)
{
  const char *nl = debug ? strrchr (debug, '\n') : NULL;

  return nl ? nl + 1 : debug;
}

static GError *
error_from_message (GstMessage *msg)
{
  g_autoptr (GError) gerr = NULL;
  g_autofree gchar *debug = NULL;
  const char *reason, *hint = "";

  gst_message_parse_error (msg, &gerr, &debug);
  reason = debug_reason (debug);
  if (debug && strstr (debug, "not-negotiated"))
    hint = "; the data must be video/x-raw in RGBA, BGRA, GRAY8, NV12 or "
           "I420 system memory, or on a GPU in CUDA memory (a videoconvert "
           "may help)";
  return g_error_new (ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "GStreamer element '%s' failed: %s%s%s%s%s", GST_MESSAGE_SRC_NAME (msg),
      gerr->message, reason ? " (" : "", reason ? reason : "",
      reason ? ")" : "", hint);
}

static GstBusSyncReply
on_bus_message (GstBus *bus, GstMessage *msg, gpointer user_data)
{
  AccelGstWatch *watch = user_data;

  switch (GST_MESSAGE_TYPE (msg))
    {
    case GST_MESSAGE_ERROR:
      {
        GError *error = error_from_message (msg);
        g_debug ("%s", error->message);
        g_mutex_lock (&watch->lock);
        if (!watch->error)
          watch->error = g_steal_pointer (&error);
        g_cond_broadcast (&watch->cond);
        g_mutex_unlock (&watch->lock);
        g_clear_error (&error);
        break;
      }
    case GST_MESSAGE_EOS:
      g_mutex_lock (&watch->lock);
      watch->eos = TRUE;
      g_cond_broadcast (&watch->cond);
      g_mutex_unlock (&watch->lock);
      break;
    case GST_MESSAGE_NEED_CONTEXT:
      {
        const gchar *type = NULL;
        GstContext *context = NULL;
        /* elements made after the pipeline was given the context (inside
         * decodebin, say) ask for it here, on their own thread */
        gst_message_parse_context_type (msg, &type);
        g_mutex_lock (&watch->lock);
        if (watch->context
            && g_strcmp0 (type, gst_context_get_context_type (watch->context))
                   == 0)
          context = gst_context_ref (watch->context);
        g_mutex_unlock (&watch->lock);
        if (context)
          {
            gst_element_set_context (
                GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
            gst_context_unref (context);
          }
        break;
      }
    case GST_MESSAGE_WARNING:
      {
        g_autoptr (GError) gerr = NULL;
        g_autofree gchar *debug = NULL;
        gst_message_parse_warning (msg, &gerr, &debug);
        g_message ("GStreamer element '%s' warns: %s",
            GST_MESSAGE_SRC_NAME (msg), gerr->message);
        break;
      }
    default:
      break;
    }
  /* nobody runs a main loop for this bus: keep nothing on it (a handler
   * that drops a message owns it) */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* whether the element factory @name makes elements with no source pads:
 * a sink, whose location is a file it writes (filesink, multifilesink,
 * splitmuxsink, hlssink2); %FALSE for a name that is no factory */
static gboolean
factory_is_sink (const char *name)
{
  g_autoptr (GstElementFactory) factory = gst_element_factory_find (name);
  const GList *templates;

  if (!factory)
    return FALSE;
  templates = gst_element_factory_get_static_pad_templates (factory);
  for (const GList *l = templates; l; l = l->next)
    if (((GstStaticPadTemplate *)l->data)->direction == GST_PAD_SRC)
      return FALSE;
  return TRUE;
}

/**
 * accel_gst_description_files:
 * @description: a gst-launch description
 * @reads: (out) (transfer full): the locations its other elements name
 *   (a filesrc's), in order
 * @writes: (out) (transfer full): the locations its sinks name, in order
 *
 * The files @description reads and writes, from its words, without
 * building it (building opens nothing, but prerolling opens a filesink's
 * file and empties it): each `location=` belongs to the element named
 * before it.
 */
void
accel_gst_description_files (
    const char *description, GStrv *reads, GStrv *writes)
{
  g_autoptr (GStrvBuilder) read = g_strv_builder_new ();
  g_autoptr (GStrvBuilder) written = g_strv_builder_new ();
  g_auto (GStrv) words = NULL;
  gboolean sink = FALSE;

  if (description && g_shell_parse_argv (description, NULL, &words, NULL))
    for (guint i = 0; words[i]; i++)
      {
        const char *w = words[i];

        if (g_str_has_prefix (w, "location=") && w[9])
          g_strv_builder_add (sink ? written : read, w + strlen ("location="));
        else if (!strchr (w, '=') && !strchr (w, '.') && !g_str_equal (w, "!"))
          sink = factory_is_sink (w);
      }
  *reads = g_strv_builder_end (read);
  *writes = g_strv_builder_end (written);
}

/* the elements that fill their location with a number, by printf () */
static const char *const numbering_factories[]
    = { "multifilesink", "multifilesrc", "splitmuxsink", "hlssink", "hlssink2",
        "imagesequencesrc", NULL };

/* whether @pattern has at most one conversion, of an int (%d, %05d, %u,
 * %x): the one number printf () is given. Anything else read what was
 * never passed (%s crashed, %n aborted) */
static gboolean
is_number_pattern (const char *pattern)
{
  guint n = 0;

  for (const char *p = pattern; (p = strchr (p, '%')); p++)
    {
      if (p[1] == '%')
        {
          p++;
          continue;
        }
      p += 1 + strspn (p + 1, "-+ #0");
      p += strspn (p, "0123456789");
      if (*p == '.')
        p += 1 + strspn (p + 1, "0123456789");
      if (!*p || !strchr ("diuxXo", *p) || ++n > 1)
        return FALSE;
    }
  return TRUE;
}

/**
 * accel_gst_description_first_written:
 * @description: a gst-launch description
 *
 * Returns: (transfer full) (nullable): the first file its sinks write
 * (accel_gst_description_files ()), the stage's AccelFileOutput path.
 */
gchar *
accel_gst_description_first_written (const char *description)
{
  g_auto (GStrv) reads = NULL;
  g_auto (GStrv) writes = NULL;

  accel_gst_description_files (description, &reads, &writes);
  return g_strdup (writes[0]);
}

/**
 * accel_gst_pipeline_check_elements:
 * @stage: the stage the pipeline is for
 * @pipeline: a pipeline, not started
 * @check: called on each element of @pipeline, its bins' included, with
 *   a pointer value holding @stage and @error as user data; returns
 *   %FALSE with @error set to stop
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE with the error the first element @check refused set.
 */
gboolean
accel_gst_pipeline_check_elements (AccelStage *stage, GstElement *pipeline,
    GstIteratorFoldFunction check, GError **error)
{
  g_autoptr (GstIterator) it = NULL;
  g_auto (GValue) ret = G_VALUE_INIT;
  GError *local = NULL;

  if (!GST_IS_BIN (pipeline))
    return TRUE;
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  g_value_init (&ret, G_TYPE_POINTER);
  g_value_set_pointer (&ret, stage);
  gst_iterator_fold (it, check, &ret, &local);
  if (!local)
    return TRUE;
  g_propagate_error (error, local);
  return FALSE;
}

/**
 * accel_gst_check_location_pattern:
 * @item: an element
 * @ret: a pointer value holding its stage
 * @user_data: a GError ** to set
 *
 * An accel_gst_pipeline_check_elements () check: an element that fills
 * its location with a frame number (multifilesink, multifilesrc,
 * splitmuxsink) is given a pattern it can fill, one %d at most, where
 * GStreamer hands the pattern to printf () as is. Refuses with
 * %ACCEL_ERROR_INVALID_PIPELINE naming the element.
 */
gboolean
accel_gst_check_location_pattern (
    const GValue *item, GValue *ret, gpointer user_data)
{
  GstElement *element = g_value_get_object (item);
  GstElementFactory *factory = gst_element_get_factory (element);
  g_autofree gchar *location = NULL;
  GError **error = user_data;

  if (!factory
      || !g_strv_contains (numbering_factories,
          gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (factory))))
    return TRUE;
  g_object_get (element, "location", &location, NULL);
  if (!location || is_number_pattern (location))
    return TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
      "stage '%s' (%s): element '%s' fills its location %s with a frame "
      "number, which takes one %%d (%%05d, %%u, %%x) and no other %% but "
      "%%%%",
      accel_stage_get_name (g_value_get_pointer (ret)),
      accel_stage_get_kind_name (g_value_get_pointer (ret)),
      GST_ELEMENT_NAME (element), location);
  return FALSE;
}

/**
 * accel_gst_pipeline_new:
 * @stage: the stage it is for, for error messages
 * @description: the stage's gst-launch description, for error messages
 * @full: @description with the stage's appsrc or appsink added
 * @watch: gets what the pipeline's bus says
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the pipeline, in the NULL state, or %NULL with
 * %ACCEL_ERROR_INVALID_PIPELINE naming the stage and GStreamer's reason.
 */
GstElement *
accel_gst_pipeline_new (AccelStage *stage, const char *description,
    const char *full, AccelGstWatch *watch, GError **error)
{
  g_autoptr (GError) parse_error = NULL;
  GstElement *pipeline;
  GstBus *bus;

  pipeline = gst_parse_launch_full (
      full, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &parse_error);
  if (!pipeline)
    {
      /* the bridge's own element names: one in the description is
       * linked in its place, and the message spoke of neither */
      const char *own = strstr (description, "accelsink")  ? "accelsink"
                        : strstr (description, "accelsrc") ? "accelsrc"
                                                           : NULL;
      g_autofree gchar *hint
          = own ? g_strdup_printf (" (the name '%s' is the bridge's own: "
                                   "name the element otherwise)",
                own)
                : g_strdup ("");

      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): cannot build the GStreamer description '%s': "
          "%s%s",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          description, parse_error ? parse_error->message : "no reason given",
          hint);
      return NULL;
    }
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, on_bus_message, watch, NULL);
  gst_object_unref (bus);
  accel_gst_watch_reset (watch);
  return pipeline;
}

/* a state change run on a thread of its own, so its caller can give up on
 * it: shared by the two until both are done with it */
typedef struct
{
  gint refs;
  GMutex lock;
  GCond cond;
  GstElement *pipeline;
  GstState state;
  GstStateChangeReturn ret;
  gboolean done;
  gboolean abandoned;
} StateChange;

static void
state_change_unref (StateChange *change)
{
  if (!g_atomic_int_dec_and_test (&change->refs))
    return;
  gst_object_unref (change->pipeline);
  g_mutex_clear (&change->lock);
  g_cond_clear (&change->cond);
  g_free (change);
}

static gpointer
state_change_thread (gpointer data)
{
  StateChange *change = data;
  GstStateChangeReturn ret;
  gboolean abandoned;

  ret = gst_element_set_state (change->pipeline, change->state);
  g_mutex_lock (&change->lock);
  change->ret = ret;
  change->done = TRUE;
  abandoned = change->abandoned;
  g_cond_signal (&change->cond);
  g_mutex_unlock (&change->lock);
  /* its stage gave up on it and let it go: nobody else stops it */
  if (abandoned)
    gst_element_set_state (change->pipeline, GST_STATE_NULL);
  state_change_unref (change);
  return NULL;
}

/**
 * accel_gst_pipeline_set_state_within:
 * @stage: (nullable): the stage whose interrupted start (or stop, in its
 *   start ()) also ends the wait (accel_stage_is_interrupted ())
 * @pipeline: a pipeline from accel_gst_pipeline_new()
 * @state: the state to go to
 * @timeout_us: how long the state change may block
 * @error: return location for a #GError, or %NULL: set when the thread
 *   of the change cannot be made
 *
 * gst_element_set_state() that gives up after @timeout_us, or once @stage
 * is interrupted (a start interrupted by Ctrl-C waited out @timeout_us): an
 * element can block in its change for good (filesrc or filesink opening a
 * FIFO with no one at its other end). The change then goes on on a thread
 * of its own; the pipeline is abandoned (accel_gst_pipeline_free() lets it
 * go without stopping it, and the thread stops it if its change ever
 * ends).
 *
 * Returns: what gst_element_set_state() returned, or
 *   %GST_STATE_CHANGE_FAILURE with @pipeline abandoned or @error set (no
 *   change made)
 */
GstStateChangeReturn
accel_gst_pipeline_set_state_within (AccelStage *stage, GstElement *pipeline,
    GstState state, gint64 timeout_us, GError **error)
{
  StateChange *change = g_new0 (StateChange, 1);
  gint64 deadline = g_get_monotonic_time () + MAX (timeout_us, 0);
  GstStateChangeReturn ret;
  GThread *thread;

  change->refs = 2;
  g_mutex_init (&change->lock);
  g_cond_init (&change->cond);
  change->pipeline = gst_object_ref (pipeline);
  change->state = state;
  thread = accel_thread_try_new (
      "accel-gst-state", state_change_thread, change, error);
  if (!thread)
    {
      change->refs = 1;
      state_change_unref (change);
      return GST_STATE_CHANGE_FAILURE;
    }
  g_thread_unref (thread);

  g_mutex_lock (&change->lock);
  while (!change->done && g_get_monotonic_time () < deadline
         && !(stage && accel_stage_is_interrupted (stage)))
    g_cond_wait_until (&change->cond, &change->lock,
        MIN (deadline, g_get_monotonic_time () + ACCEL_IO_WAIT_SLICE_US));
  if (!change->done)
    {
      change->abandoned = TRUE;
      g_object_set_data (
          G_OBJECT (pipeline), "accel-gst-abandoned", GINT_TO_POINTER (TRUE));
    }
  ret = change->done ? change->ret : GST_STATE_CHANGE_FAILURE;
  g_mutex_unlock (&change->lock);
  state_change_unref (change);
  return ret;
}

/**
 * accel_gst_set_start_timeout_error:
 * @error: return location for a #GError, or %NULL
 * @timeout_ms: the timeout that ran out
 * @option: the parameter that set it
 * @example: an element that would block so
 *
 * The error of a state change accel_gst_pipeline_set_state_within() gave up
 * on (%ACCEL_ERROR_TIMEOUT).
 */
void
accel_gst_set_start_timeout_error (
    GError **error, gint64 timeout_ms, const char *option, const char *example)
{
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT,
      "an element of the GStreamer pipeline was still starting after "
      "%" G_GINT64_FORMAT " ms (%s), such as %s",
      timeout_ms, option, example);
}

/**
 * accel_gst_pipeline_is_abandoned:
 * @pipeline: a pipeline from accel_gst_pipeline_new()
 *
 * Returns: whether accel_gst_pipeline_set_state_within() gave up on it
 */
gboolean
accel_gst_pipeline_is_abandoned (GstElement *pipeline)
{
  return g_object_get_data (G_OBJECT (pipeline), "accel-gst-abandoned") != NULL;
}

static gboolean
add_unprerolled_sink (const GValue *item, GValue *ret, gpointer user_data)
{
  GstElement *element = g_value_get_object (item);
  GString *names = user_data;
  GstState state;

  if (!GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SINK)
      || GST_IS_BIN (element))
    return TRUE;
  GST_OBJECT_LOCK (element);
  state = GST_STATE (element);
  GST_OBJECT_UNLOCK (element);
  if (state < GST_STATE_PAUSED)
    g_string_append_printf (
        names, "%s'%s'", names->len ? ", " : "", GST_OBJECT_NAME (element));
  return TRUE;
}

/**
 * accel_gst_pipeline_get_unprerolled:
 * @pipeline: a pipeline from accel_gst_pipeline_new(), set to PAUSED or
 *   PLAYING
 *
 * A pipeline plays once every one of its sinks has a frame (prerolled): a
 * sink that never gets one (a branch of a tee that drops every frame, or
 * waits for something) holds the others, which wait in their preroll, and
 * so the whole pipeline.
 *
 * Returns: (transfer full) (nullable): the quoted names of the sink
 *   elements that have not prerolled, or %NULL when all have. MT safe.
 */
gchar *
accel_gst_pipeline_get_unprerolled (GstElement *pipeline)
{
  g_autoptr (GstIterator) it = NULL;
  GString *names = g_string_new (NULL);

  if (GST_IS_BIN (pipeline))
    {
      it = gst_bin_iterate_recurse (GST_BIN (pipeline));
      gst_iterator_fold (it, add_unprerolled_sink, NULL, names);
    }
  return g_string_free (names, names->len == 0);
}

/**
 * accel_gst_pipeline_free:
 * @pipeline: (transfer full) (nullable): a pipeline from
 *   accel_gst_pipeline_new()
 *
 * Stops the pipeline (its threads end) and lets it go.
 */
void
accel_gst_pipeline_free (GstElement *pipeline)
{
  GstBus *bus;

  if (!pipeline)
    return;
  /* one whose state change blocks would block this too: its thread stops
   * it */
  if (!accel_gst_pipeline_is_abandoned (pipeline))
    gst_element_set_state (pipeline, GST_STATE_NULL);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

/**
 * accel_gst_pipeline_share_context:
 * @pipeline: a pipeline from accel_gst_pipeline_new(), not started
 * @watch: the pipeline's watch
 * @context: (transfer none): a context, such as the stage's CUDA context
 *
 * Gives @context to every element of @pipeline now and to every element
 * that asks for it later, so no element makes one of its own.
 */
void
accel_gst_pipeline_share_context (
    GstElement *pipeline, AccelGstWatch *watch, GstContext *context)
{
  g_mutex_lock (&watch->lock);
  gst_context_replace (&watch->context, context);
  g_mutex_unlock (&watch->lock);
  gst_element_set_context (pipeline, context);
}

static const struct
{
  GstVideoFormat video;
  AccelFormat accel;
} formats[] = {
  { GST_VIDEO_FORMAT_RGBA, ACCEL_FORMAT_RGBA8 },
  { GST_VIDEO_FORMAT_BGRA, ACCEL_FORMAT_BGRA8 },
  { GST_VIDEO_FORMAT_GRAY8, ACCEL_FORMAT_GRAY8 },
  { GST_VIDEO_FORMAT_NV12, ACCEL_FORMAT_NV12 },
  { GST_VIDEO_FORMAT_I420, ACCEL_FORMAT_I420 },
};

/**
 * accel_gst_caps_to_type:
 * @stage: the stage, for error messages
 * @caps: fixed video/x-raw caps
 * @type: (out caller-allocates): the image type, in device memory
 * @info: (out caller-allocates): the caps' layout
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE with %ACCEL_ERROR_TYPE_MISMATCH for caps that are no
 * video in RGBA, BGRA, GRAY8, NV12 or I420 (in system or CUDA memory).
 */
gboolean
accel_gst_caps_to_type (AccelStage *stage, GstCaps *caps, AccelType *type,
    GstVideoInfo *info, GError **error)
{
  if (gst_video_info_from_caps (info, caps))
    for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
      if (formats[i].video == GST_VIDEO_INFO_FORMAT (info))
        {
          accel_type_init_image (type, formats[i].accel, ACCEL_MEMORY_DEVICE,
              GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
          return TRUE;
        }
  {
    g_autofree gchar *text = gst_caps_to_string (caps);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
        "stage '%s' (%s): the GStreamer caps %s are not video/x-raw in "
        "RGBA, BGRA, GRAY8, NV12 or I420 (system or CUDA memory)",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage), text);
    return FALSE;
  }
}

/**
 * accel_gst_caps_from_type:
 * @type: an image of a format the bridge maps
 * @fps_n: frame rate numerator (0 for a variable rate)
 * @fps_d: frame rate denominator
 *
 * Returns: (transfer full): fixed video/x-raw caps.
 */
GstCaps *
accel_gst_caps_from_type (const AccelType *type, gint fps_n, gint fps_d)
{
  GstVideoInfo info;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (formats[i].accel == type->format)
      {
        gst_video_info_set_format (&info, formats[i].video,
            (guint)type->dims[1], (guint)type->dims[0]);
        GST_VIDEO_INFO_FPS_N (&info) = fps_n;
        GST_VIDEO_INFO_FPS_D (&info) = fps_d;
        return gst_video_info_to_caps (&info);
      }
  g_return_val_if_reached (NULL);
}

/**
 * accel_gst_packed_planes:
 * @format: an image format the bridge maps
 * @w: width
 * @h: height
 * @row: (out): bytes per row of each plane
 * @rows: (out): rows of each plane
 *
 * Returns: the planes of a tightly packed image, one after the other.
 */
guint
accel_gst_packed_planes (
    AccelFormat format, gint w, gint h, gsize row[3], gint rows[3])
{
  gint cw = (w + 1) / 2, ch = (h + 1) / 2;

  switch (format)
    {
    case ACCEL_FORMAT_RGBA8:
    case ACCEL_FORMAT_BGRA8:
      row[0] = (gsize)w * 4;
      rows[0] = h;
      return 1;
    case ACCEL_FORMAT_GRAY8:
      row[0] = (gsize)w;
      rows[0] = h;
      return 1;
    case ACCEL_FORMAT_NV12:
      row[0] = (gsize)w;
      rows[0] = h;
      row[1] = (gsize)cw * 2;
      rows[1] = ch;
      return 2;
    case ACCEL_FORMAT_I420:
      row[0] = (gsize)w;
      rows[0] = h;
      row[1] = row[2] = (gsize)cw;
      rows[1] = rows[2] = ch;
      return 3;
    default:
      g_return_val_if_reached (0);
    }
}

/**
 * accel_gst_frame_to_packed:
 * @frame: a mapped frame
 * @format: its format
 * @dst: a tightly packed image of the frame's size
 *
 * Copies @frame's planes, whatever their strides, into @dst.
 */
void
accel_gst_frame_to_packed (
    const GstVideoFrame *frame, AccelFormat format, guint8 *dst)
{
  gsize row[3];
  gint rows[3];
  guint n = accel_gst_packed_planes (format, GST_VIDEO_FRAME_WIDTH (frame),
      GST_VIDEO_FRAME_HEIGHT (frame), row, rows);

  for (guint p = 0; p < n; p++)
    {
      const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
      gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
      for (gint r = 0; r < rows[p]; r++)
        {
          memcpy (dst, src + (gsize)r * stride, row[p]);
          dst += row[p];
        }
    }
}

/**
 * accel_gst_packed_to_frame:
 * @src: a tightly packed image
 * @format: its format
 * @frame: a frame of the same size, mapped for writing
 *
 * Copies @src into @frame's planes at the frame's strides, and zeroes
 * the rows' padding.
 */
void
accel_gst_packed_to_frame (
    const guint8 *src, AccelFormat format, GstVideoFrame *frame)
{
  gsize row[3];
  gint rows[3];
  guint n = accel_gst_packed_planes (format, GST_VIDEO_FRAME_WIDTH (frame),
      GST_VIDEO_FRAME_HEIGHT (frame), row, rows);

  for (guint p = 0; p < n; p++)
    {
      guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
      gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
      for (gint r = 0; r < rows[p]; r++)
        {
          memcpy (dst + (gsize)r * stride, src, row[p]);
          /* the padding too: a new buffer's bytes are the heap's, and
           * they would reach the files downstream */
          if ((gsize)stride > row[p])
            memset (dst + (gsize)r * stride + row[p], 0, stride - row[p]);
          src += row[p];
        }
    }
}

/**
 * accel_gst_copy_planes:
 * @stream: the stage's stream
 * @frame: a mapped frame, its planes in device or host memory
 * @format: its format
 * @packed: a tightly packed image of the frame's size in device memory
 * @to_frame: %TRUE to copy @packed into @frame's planes, %FALSE back
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues one 2D copy per plane between @frame's pitched planes and the
 * packed ones on @stream; the pointers say where each side lives. From
 * pageable host memory the CUDA driver has staged a plane when the call
 * returns; from device or page-locked memory the copy reads @frame later,
 * so the caller keeps it mapped until @stream has passed the copy.
 *
 * Returns: %FALSE with the CUDA error. Called from the stage's thread.
 */
gboolean
accel_gst_copy_planes (AccelStream *stream, GstVideoFrame *frame,
    AccelFormat format, guint8 *packed, gboolean to_frame, GError **error)
{
  guint8 *plane[3];
  gsize row[3];
  gint rows[3];
  guint n = accel_gst_packed_planes (format, GST_VIDEO_FRAME_WIDTH (frame),
      GST_VIDEO_FRAME_HEIGHT (frame), row, rows);

  for (guint p = 0; p < n; p++)
    {
      plane[p] = packed;
      packed += row[p] * (gsize)rows[p];
    }
  return accel_cuda_check (gst_accel_frame_copy_planes (frame, plane, row,
                               to_frame, accel_stream_get_handle (stream)),
      error);
}
