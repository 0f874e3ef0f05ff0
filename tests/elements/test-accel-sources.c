/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: the simulation sources in real pipelines: their frames against
 * the host references stepped the same way (exact), and the pointer: a
 * drag sent upstream as navigation events from the sink's pad, at a known
 * frame, changes the frames that follow exactly as the reference says. On
 * a GPU host (suite gpu) the sources render into CUDA memory and through
 * system memory; without one (suite elements, ACCEL_BACKEND=host) they run
 * the host implementations. */
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include "elements-test.h"

#include "cloth/cloth.h"
#include "fluid/fluid.h"
#include "particles/particles.h"
#include "image/resize.h"

#define WIDTH 96
#define HEIGHT 80
#define FRAMES 24
#define GRID 64

/* the drag: pressed at PRESS_X, moved to DRAG_X on frame PRESS_AT's way
 * out, released on frame RELEASE_AT's */
#define PRESS_AT 10
#define RELEASE_AT 14
#define PRESS_X 48.0
#define DRAG_X 56.0
#define DRAG_Y 40.0

static gboolean gpu;

/* the pointer the source sees while stepping frame @k of a run with the
 * drag: down from PRESS_AT + 1 to RELEASE_AT, moved on the first of them */
typedef struct
{
  gboolean down;
  gboolean moved;
} PointerAt;

static PointerAt
pointer_at (guint k, gboolean drag)
{
  PointerAt p
      = { drag && k > PRESS_AT && k <= RELEASE_AT, drag && k == PRESS_AT + 1 };
  return p;
}

/* what the pointer does: nothing, the drag, or the drag's events at
 * positions that are not numbers (which the source ignores) */
typedef enum
{
  POINTER_STILL,
  POINTER_DRAG,
  POINTER_NOT_FINITE,
  /* the move and the release far out of the frame; and where they hold */
  POINTER_FAR,
  POINTER_FAR_HELD,
} Pointer;

/* what the sink's pad probe does, in the streaming thread: the pointer's
 * events, sent upstream after frames PRESS_AT and RELEASE_AT, a
 * framerate of 60/1 set on the capsfilter after frame rate_at, and
 * accelparticles' emit-rate set back to 0 (its default) after frame
 * emit_at (0: none) */
typedef struct
{
  guint count;
  Pointer pointer;
  guint rate_at;
  guint emit_at;
  GstElement *capsfilter;
  GstElement *source;
} SinkProbe;

static void
set_framerate_60 (GstElement *capsfilter)
{
  GstCaps *caps;

  g_object_get (capsfilter, "caps", &caps, NULL);
  caps = gst_caps_make_writable (caps);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 60, 1, NULL);
  g_object_set (capsfilter, "caps", caps, NULL);
  gst_caps_unref (caps);
}

static GstPadProbeReturn
sink_probe (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  SinkProbe *probe = data;
  gboolean finite = probe->pointer != POINTER_NOT_FINITE;
  /* not finite: the press and the release at NaN, the move to infinity */
  double press_x = finite ? PRESS_X : NAN, press_y = finite ? DRAG_Y : NAN;
  double drag_x = finite ? DRAG_X : INFINITY, drag_y = finite ? DRAG_Y : NAN;
  double release_x = finite ? DRAG_X : NAN;

  /* far: past a float's range; a frame out is where it holds */
  if (probe->pointer == POINTER_FAR || probe->pointer == POINTER_FAR_HELD)
    {
      gboolean held = probe->pointer == POINTER_FAR_HELD;

      drag_x = held ? 2.0 * WIDTH : 1e300;
      drag_y = held ? 2.0 * HEIGHT : 1e300;
      release_x = held ? -WIDTH : -1e300;
    }

  if (probe->pointer != POINTER_STILL && probe->count == PRESS_AT)
    {
      gst_pad_push_event (
          pad, gst_navigation_event_new_mouse_button_press (
                   1, press_x, press_y, GST_NAVIGATION_MODIFIER_NONE));
      gst_pad_push_event (pad, gst_navigation_event_new_mouse_move (drag_x,
                                   drag_y, GST_NAVIGATION_MODIFIER_NONE));
    }
  else if (probe->pointer != POINTER_STILL && probe->count == RELEASE_AT)
    gst_pad_push_event (
        pad, gst_navigation_event_new_mouse_button_release (
                 1, release_x, drag_y, GST_NAVIGATION_MODIFIER_NONE));
  if (probe->rate_at && probe->count == probe->rate_at)
    set_framerate_60 (probe->capsfilter);
  if (probe->emit_at && probe->count == probe->emit_at)
    g_object_set (probe->source, "emit-rate", 0u, NULL);
  probe->count++;
  return GST_PAD_PROBE_OK;
}

/* the packed rows of a sample's frame */
static guint8 *
unwrap (GstSample *sample, gboolean *cuda)
{
  GstCaps *caps = gst_sample_get_caps (sample);
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *out = g_malloc ((gsize)WIDTH * HEIGHT * 4);

  g_assert_true (gst_video_info_from_caps (&info, caps));
  g_assert_cmpint (GST_VIDEO_INFO_WIDTH (&info), ==, WIDTH);
  g_assert_cmpint (GST_VIDEO_INFO_HEIGHT (&info), ==, HEIGHT);
  *cuda = gst_caps_features_contains (
      gst_caps_get_features (caps, 0), "memory:CUDAMemory");
  g_assert_true (gst_video_frame_map (
      &frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ));
  for (int y = 0; y < HEIGHT; y++)
    memcpy (out + (gsize)y * WIDTH * 4,
        (guint8 *)GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
            + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        WIDTH * 4);
  gst_video_frame_unmap (&frame);
  return out;
}

/* runs "SOURCE ! CAPS ! appsink", dragging when asked, changing the
 * framerate to 60/1 after frame @rate_at and the emit rate to 0 after
 * frame @emit_at (0: never); returns FRAMES frames, and each one's PTS
 * and duration in @times where given; checks the memory the frames came
 * in */
static GPtrArray *
run_source_full (const char *source, const char *memory, Pointer pointer,
    guint rate_at, guint emit_at, GArray *times)
{
  g_autofree char *description
      = g_strdup_printf ("%s name=source num-buffers=%d ! "
                         "video/x-raw%s,width=%d,height=%d,framerate=30/1 ! "
                         "appsink name=sink sync=false",
          source, FRAMES, memory, WIDTH, HEIGHT);
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstElement *sink;
  GstPad *pad;
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);
  GstSample *sample;
  GstIterator *it;
  GValue capsfilter = G_VALUE_INIT;
  SinkProbe probe = { 0, pointer, rate_at, emit_at, NULL, NULL };

  g_assert_no_error (error);
  it = gst_bin_iterate_all_by_element_factory_name (
      GST_BIN (pipeline), "capsfilter");
  g_assert_cmpint (gst_iterator_next (it, &capsfilter), ==, GST_ITERATOR_OK);
  probe.capsfilter = g_value_get_object (&capsfilter);
  probe.source = gst_bin_get_by_name (GST_BIN (pipeline), "source");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sink_probe, &probe, NULL);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))))
    {
      GstBuffer *buffer = gst_sample_get_buffer (sample);
      GstClockTime t[2]
          = { GST_BUFFER_PTS (buffer), GST_BUFFER_DURATION (buffer) };
      gboolean cuda;

      g_ptr_array_add (frames, unwrap (sample, &cuda));
      g_assert_cmpint (cuda, ==, *memory != '\0');
      if (times)
        g_array_append_vals (times, t, 2);
      gst_sample_unref (sample);
    }
  g_assert_true (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  g_assert_cmpuint (frames->len, ==, FRAMES);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_value_unset (&capsfilter);
  gst_iterator_free (it);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (probe.source);
  gst_object_unref (pipeline);
  return frames;
}

static GPtrArray *
run_source (const char *source, const char *memory, Pointer pointer)
{
  return run_source_full (source, memory, pointer, 0, 0, NULL);
}

static void
assert_frames_equal (const guint8 *got, const guint8 *want, guint f)
{
  for (gsize i = 0; i < (gsize)WIDTH * HEIGHT * 4; i++)
    if (got[i] != want[i])
      g_error ("frame %u: byte %" G_GSIZE_FORMAT " (x %" G_GSIZE_FORMAT
               ", y %" G_GSIZE_FORMAT ") is %u, the reference %u",
          f, i, (i / 4) % WIDTH, i / 4 / WIDTH, got[i], want[i]);
}

/* the fluid as accelfluid steps it: its defaults, the jet off, the drag
 * pushing at the pointer (grid cells = pixels * GRID / size) */
static GPtrArray *
fluid_reference (gboolean drag)
{
  float sx = (float)GRID / WIDTH, sy = (float)GRID / HEIGHT;
  g_autofree guint8 *block = g_malloc0 (accel_fluid_state_size (GRID));
  g_autofree guint8 *grid = g_malloc ((gsize)GRID * GRID * 4);
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);
  AccelFluidFields f;

  accel_fluid_fields_init (&f, block, GRID);
  for (guint k = 0; k < FRAMES; k++)
    {
      PointerAt at = pointer_at (k, drag);
      AccelFluidParams p = { .n = GRID,
        .dt = 1.0f,
        .vorticity = 0.3f,
        .pressure_iters = 40,
        .diffuse_iters = 20,
        .dye_decay = 0.995f };
      guint8 *out = g_malloc ((gsize)WIDTH * HEIGHT * 4);

      if (at.down)
        {
          p.inject_x = (float)DRAG_X * sx;
          p.inject_y = (float)DRAG_Y * sy;
          p.inject_radius = GRID / 24.0f + 1.0f;
          p.force_x = at.moved ? (float)(DRAG_X - PRESS_X) * sx * 0.5f : 0.0f;
          p.dye_amount = 0.5f;
        }
      g_assert_cmpint (accel_fluid_step_host (&p, &f), ==, 0);
      g_assert_cmpint (
          accel_fluid_render_host (&p, &f, grid, (size_t)GRID * 4), ==, 0);
      g_assert_cmpint (
          accel_resize_host (ACCEL_IMAGE_RGBA8, grid, (size_t)GRID * 4, GRID,
              GRID, out, (size_t)WIDTH * 4, WIDTH, HEIGHT),
          ==, 0);
      g_ptr_array_add (frames, out);
    }
  return frames;
}

static gboolean
frame_is_dark (const guint8 *frame)
{
  for (gsize i = 0; i < (gsize)WIDTH * HEIGHT; i++)
    if (frame[i * 4] || frame[i * 4 + 1] || frame[i * 4 + 2])
      return FALSE;
  return TRUE;
}

/* @data: the caps feature of the frames: "" or "(memory:CUDAMemory)" */
static void
test_fluid_drag (gconstpointer data)
{
  const char *memory = data;
  const char *fluid = "accelfluid jet=false grid-size=" G_STRINGIFY (GRID);
  g_autoptr (GPtrArray) still = run_source (fluid, memory, POINTER_STILL);
  g_autoptr (GPtrArray) dragged = run_source (fluid, memory, POINTER_DRAG);
  g_autoptr (GPtrArray) want = fluid_reference (TRUE);

  /* without the pointer and the jet nothing stirs the water */
  for (guint k = 0; k < FRAMES; k++)
    g_assert_true (frame_is_dark (still->pdata[k]));
  /* the drag pours dye from the frame after the press on */
  for (guint k = 0; k < FRAMES; k++)
    {
      assert_frames_equal (dragged->pdata[k], want->pdata[k], k);
      g_assert_cmpint (frame_is_dark (dragged->pdata[k]), ==, k <= PRESS_AT);
    }
}

/* the jet alone, at the default grid size scaled down to the frame */
static void
test_fluid_jet (gconstpointer data)
{
  const char *memory = data;
  g_autoptr (GPtrArray) got = run_source (
      "accelfluid grid-size=" G_STRINGIFY (GRID), memory, POINTER_STILL);

  g_assert_false (frame_is_dark (got->pdata[FRAMES - 1]));
}

/* the framerate changed to 60/1 after frame RATE_AT, the size kept: the
 * timestamps go on from where they were, a 60th of a second apart, and
 * the simulation goes on (the dye of a drag started before the change
 * stays, frame for frame the reference's) */
#define RATE_AT 12
static void
test_fluid_framerate_change (gconstpointer data)
{
  const char *memory = data;
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  g_autoptr (GPtrArray) got
      = run_source_full ("accelfluid jet=false grid-size=" G_STRINGIFY (GRID),
          memory, POINTER_DRAG, RATE_AT, 0, times);
  g_autoptr (GPtrArray) want = fluid_reference (TRUE);
  const GstClockTime *t = (const GstClockTime *)times->data;
  guint changed = 0;

  g_assert_cmpuint (times->len, ==, 2 * FRAMES);
  g_assert_cmpuint (t[0], ==, 0);
  for (guint k = 0; k < FRAMES; k++)
    {
      assert_frames_equal (got->pdata[k], want->pdata[k], k);
      if (k > 0)
        g_assert_cmpuint (t[2 * k], ==, t[2 * k - 2] + t[2 * k - 1]);
      /* a 30th of a second (rounded) up to the change, a 60th after */
      if (t[2 * k + 1] <= GST_SECOND / 60 + 1)
        changed++;
      else
        g_assert_cmpuint (changed, ==, 0);
    }
  /* the change reaches the source within a frame or two of the probe */
  g_assert_cmpuint (changed, >=, FRAMES - RATE_AT - 2);
}

/* the particles as accelparticles steps them: its defaults for a small
 * capacity, the pointer an attractor while the button is held */
#define PARTICLES 4096
/* emit_rate: the rate until frame emit_until, the default from there
 * (0: the default throughout) */
static GPtrArray *
particles_reference (gboolean drag, guint emit_rate, guint emit_until)
{
  AccelParticlesParams p;
  AccelSplatParams sp = { .width = WIDTH,
    .height = HEIGHT,
    .scale = MIN (WIDTH, HEIGHT) / 2.2f,
    .point_size = 1,
    .end_colour = 0x00ff2020u,
    .gain = 1.0f };
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);
  AccelParticleState state[2];
  AccelParticlesScratch scratch;
  /* g_autofree would free only the first of an array */
  guint8 *blocks[2];
  g_autofree guint8 *scratch_block = NULL;
  g_autofree guint32 *accum = NULL;

  accel_particles_params_init (&p, PARTICLES);
  for (int i = 0; i < 2; i++)
    {
      blocks[i] = g_malloc0 (accel_particle_state_size (PARTICLES));
      accel_particle_state_init (&state[i], blocks[i], PARTICLES);
    }
  scratch_block = g_malloc0 (accel_particles_scratch_size (&p));
  accel_particles_scratch_init (&scratch, scratch_block, &p);
  accum = g_malloc0 (accel_particles_splat_accum_size (&sp) * sizeof (guint32));
  for (guint k = 0; k < FRAMES; k++)
    {
      guint8 *out = g_malloc ((gsize)WIDTH * HEIGHT * 4);

      p.emitter.rate = emit_rate && k <= emit_until
                           ? emit_rate
                           : accel_particles_default_emit_rate (PARTICLES);
      p.n_attractors = 0;
      if (pointer_at (k, drag).down)
        {
          AccelParticleAttractor a = { ((float)DRAG_X - WIDTH * 0.5f)
                                           / sp.scale,
            (HEIGHT * 0.5f - (float)DRAG_Y) / sp.scale, 0.0f, 6.0f, 0.8f };

          p.attractors[p.n_attractors++] = a;
        }
      g_assert_cmpint (accel_particles_step_host (
                           &p, k, &state[k % 2], &state[(k + 1) % 2], &scratch),
          ==, 0);
      g_assert_cmpint (accel_particles_splat_host (&sp, &state[(k + 1) % 2],
                           PARTICLES, accum, out, (size_t)WIDTH * 4),
          ==, 0);
      g_ptr_array_add (frames, out);
    }
  for (int i = 0; i < 2; i++)
    g_free (blocks[i]);
  return frames;
}

static gboolean
frames_equal (const guint8 *a, const guint8 *b)
{
  return memcmp (a, b, (gsize)WIDTH * HEIGHT * 4) == 0;
}

/* the fountain as the reference draws it; the pull changes the frames
 * from the one after the press on */
static void
test_particles_drag (gconstpointer data)
{
  const char *memory = data;
  const char *particles = "accelparticles capacity=" G_STRINGIFY (PARTICLES);
  g_autoptr (GPtrArray) still = run_source (particles, memory, POINTER_STILL);
  g_autoptr (GPtrArray) dragged = run_source (particles, memory, POINTER_DRAG);
  g_autoptr (GPtrArray) want_still = particles_reference (FALSE, 0, 0);
  g_autoptr (GPtrArray) want = particles_reference (TRUE, 0, 0);

  for (guint k = 0; k < FRAMES; k++)
    {
      assert_frames_equal (still->pdata[k], want_still->pdata[k], k);
      assert_frames_equal (dragged->pdata[k], want->pdata[k], k);
      g_assert_cmpint (
          frames_equal (still->pdata[k], dragged->pdata[k]), ==, k <= PRESS_AT);
    }
  g_assert_false (frame_is_dark (still->pdata[FRAMES - 1]));
}

/* emit-rate set back to 0 while playing is the default rate again from
 * the next frame (the last rate set went on) */
#define EMIT_RATE 40
#define EMIT_UNTIL 8
static void
test_particles_emit_rate_reset (gconstpointer data)
{
  const char *memory = data;
  g_autoptr (GPtrArray) got
      = run_source_full ("accelparticles capacity=" G_STRINGIFY (
                             PARTICLES) " emit-rate=" G_STRINGIFY (EMIT_RATE),
          memory, POINTER_STILL, 0, EMIT_UNTIL, NULL);
  g_autoptr (GPtrArray) want
      = particles_reference (FALSE, EMIT_RATE, EMIT_UNTIL);
  g_autoptr (GPtrArray) kept = particles_reference (FALSE, EMIT_RATE, FRAMES);

  for (guint k = 0; k < FRAMES; k++)
    assert_frames_equal (got->pdata[k], want->pdata[k], k);
  g_assert_false (
      frames_equal (got->pdata[FRAMES - 1], kept->pdata[FRAMES - 1]));
}

/* the cloth as accelcloth steps it: its defaults, the vertex that was
 * under the pointer at rest held where the pointer is while the button is */
#define CLOTH 24
static GPtrArray *
cloth_reference (gboolean drag, AccelClothSolver solver)
{
  AccelClothParams p;
  AccelClothView v;
  AccelClothState s;
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);
  g_autofree guint8 *block = g_malloc (accel_cloth_state_size (CLOTH, CLOTH));
  g_autofree guint64 *depth = NULL;

  accel_cloth_params_init (&p, CLOTH, CLOTH);
  p.sphere[1] = -0.9f;
  p.sphere[2] = 0.3f;
  p.sphere[3] = 0.5f;
  p.gravity[1] = -9.8f;
  p.solver = solver;
  accel_cloth_view_init (&v, &p, WIDTH, HEIGHT);
  depth = g_new (guint64, accel_cloth_depth_size (&v));
  accel_cloth_state_init (&s, block, CLOTH, CLOTH);
  g_assert_cmpint (accel_cloth_reset_host (&p, &s), ==, 0);
  for (guint k = 0; k < FRAMES; k++)
    {
      guint8 *out = g_malloc ((gsize)WIDTH * HEIGHT * 4);

      accel_cloth_params_set_wind (&p, 6.0f, k);
      p.grab = -1;
      if (pointer_at (k, drag).down)
        {
          float ty
              = ((float)HEIGHT * 0.5f - (float)DRAG_Y) / v.scale + v.center_y;
          int i, j;

          p.grab_pos[0] = ((float)DRAG_X - (float)WIDTH * 0.5f) / v.scale;
          p.grab_pos[1] = ty * v.cos_tilt;
          p.grab_pos[2] = -ty * v.sin_tilt;
          i = (int)lroundf (p.grab_pos[0] / p.spacing + (CLOTH - 1) * 0.5f);
          j = (int)lroundf ((CLOTH - 1) * 0.5f - p.grab_pos[1] / p.spacing);
          p.grab = CLAMP (j, 0, CLOTH - 1) * CLOTH + CLAMP (i, 0, CLOTH - 1);
        }
      g_assert_cmpint (accel_cloth_step_host (&p, &s), ==, 0);
      g_assert_cmpint (
          accel_cloth_render_host (&p, &s, &v, depth, out, (size_t)WIDTH * 4),
          ==, 0);
      g_ptr_array_add (frames, out);
    }
  return frames;
}

/* the cloth as the reference draws it; the grab changes the frames from
 * the one after the press on */
static void
test_cloth_drag (gconstpointer data)
{
  const char *memory = data;
  const char *cloth = "accelcloth grid-size=" G_STRINGIFY (CLOTH);
  g_autoptr (GPtrArray) still = run_source (cloth, memory, POINTER_STILL);
  g_autoptr (GPtrArray) dragged = run_source (cloth, memory, POINTER_DRAG);
  g_autoptr (GPtrArray) want_still
      = cloth_reference (FALSE, ACCEL_CLOTH_SOLVER_JACOBI);
  g_autoptr (GPtrArray) want
      = cloth_reference (TRUE, ACCEL_CLOTH_SOLVER_JACOBI);

  for (guint k = 0; k < FRAMES; k++)
    {
      assert_frames_equal (still->pdata[k], want_still->pdata[k], k);
      assert_frames_equal (dragged->pdata[k], want->pdata[k], k);
      g_assert_cmpint (
          frames_equal (still->pdata[k], dragged->pdata[k]), ==, k <= PRESS_AT);
    }
}

/* the drag's events at positions that are not numbers (an application's
 * events may say anything) are ignored: the frames are those of no drag.
 * One NaN took the fluid and the cloth into a state they never left;
 * @data: the source */
static void
test_pointer_not_finite (gconstpointer data)
{
  g_autoptr (GPtrArray) still = run_source (data, "", POINTER_STILL);
  g_autoptr (GPtrArray) got = run_source (data, "", POINTER_NOT_FINITE);

  for (guint k = 0; k < FRAMES; k++)
    assert_frames_equal (got->pdata[k], still->pdata[k], k);
}

/* a pointer far out of the frame is taken where a frame's size out of it
 * holds it: finite positions past a float's range (1e300) took the fluid
 * into a state of NaN it never left, the cloth from 1e20 on; @data: the
 * source */
static void
test_pointer_far (gconstpointer data)
{
  g_autoptr (GPtrArray) still = run_source (data, "", POINTER_STILL);
  g_autoptr (GPtrArray) held = run_source (data, "", POINTER_FAR_HELD);
  g_autoptr (GPtrArray) got = run_source (data, "", POINTER_FAR);

  for (guint k = 0; k < FRAMES; k++)
    assert_frames_equal (got->pdata[k], held->pdata[k], k);
  /* the drag did something */
  g_assert_false (
      frames_equal (held->pdata[FRAMES - 1], still->pdata[FRAMES - 1]));
}

/* solver=gauss-seidel: the reference's Gauss-Seidel frames, which the
 * default Jacobi sweeps do not give */
static void
test_cloth_gauss_seidel (gconstpointer data)
{
  const char *memory = data;
  g_autoptr (GPtrArray) got = run_source (
      "accelcloth grid-size=" G_STRINGIFY (CLOTH) " solver=gauss-seidel",
      memory, POINTER_STILL);
  g_autoptr (GPtrArray) want
      = cloth_reference (FALSE, ACCEL_CLOTH_SOLVER_GAUSS_SEIDEL);
  g_autoptr (GPtrArray) jacobi
      = cloth_reference (FALSE, ACCEL_CLOTH_SOLVER_JACOBI);

  for (guint k = 0; k < FRAMES; k++)
    assert_frames_equal (got->pdata[k], want->pdata[k], k);
  g_assert_false (
      frames_equal (got->pdata[FRAMES - 1], jacobi->pdata[FRAMES - 1]));
}

/* @pipeline in PAUSED, its first frame prerolled */
static void
preroll (GstElement *pipeline)
{
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PAUSED), !=,
      GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (
      gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND), ==,
      GST_STATE_CHANGE_SUCCESS);
}

/* a flushing seek at a negative rate is refused */
static void
assert_backward_seek_refused (GstElement *pipeline)
{
  g_assert_false (
      gst_element_seek (pipeline, -1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
          GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, GST_SECOND));
}

/* a flushing seek on a simulation source restarts its clock at the
 * position, the simulation going on; through an aggregator with another
 * input, frames come again (refused, the aggregator waited for good) */
static void
test_seek (gconstpointer data)
{
  const char *launch = data;
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstElement *sink;
  GstSample *sample;

  g_assert_no_error (error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  preroll (pipeline);
  g_assert_true (gst_element_seek_simple (
      pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 10 * GST_SECOND));
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  g_assert_nonnull (sample);
  g_assert_cmpuint (
      GST_BUFFER_PTS (gst_sample_get_buffer (sample)), >=, 10 * GST_SECOND);
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

/* a seek at a negative rate is refused before anything is flushed (it
 * was refused once the flush had gone through: the prerolled frame was
 * lost, and data flowed with no segment); a seek that sets only a stop
 * goes on from the position reached (the clock went back to 0) */
static void
test_seek_refused_or_stop_only (void)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline
      = gst_parse_launch ("accelfluid name=src grid-size=16 num-buffers=30 ! "
                          "video/x-raw,width=16,height=16,framerate=30/1 ! "
                          "appsink name=sink sync=false max-buffers=1",
          &error);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  GstClockTime last = 0;
  GstSample *sample;
  GstMessage *message;
  guint n = 0;

  g_assert_no_error (error);
  preroll (pipeline);
  assert_backward_seek_refused (pipeline);
  /* sent to the source itself, past its pad's event handler */
  {
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");

    g_assert_false (gst_element_send_event (
        src, gst_event_new_seek (-1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
                 GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, GST_SECOND)));
    gst_object_unref (src);
  }
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))))
    {
      GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));

      /* never back: the stop-only seek keeps the position */
      g_assert_cmpuint (pts, >=, last);
      last = pts;
      gst_sample_unref (sample);
      if (++n == 10)
        g_assert_true (gst_element_seek (pipeline, 1.0, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_NONE, -1, GST_SEEK_TYPE_SET,
            100 * GST_SECOND));
    }
  g_assert_true (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  /* the refused seek lost no frame: the flush of the second may drop
   * frames in flight, but never the first ten */
  g_assert_cmpuint (n, >=, 10);
  g_assert_cmpuint (last, >=, 10 * GST_SECOND / 30);
  message = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  if (message)
    g_error ("%" GST_PTR_FORMAT, message);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

/* through accelblend, a seek backwards is refused before anything is
 * flushed, and one that sets only a stop goes on from the position
 * reached to that stop: the first held the blend for good (GstAggregator
 * stopped its output and never started it again), the second aborted in
 * GstVideoAggregator, with or without the first */
static void
test_seek_through_blend_refused_or_stop_only (gconstpointer data)
{
  const char *launch = data;
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstClockTime last = 0;
  GstSample *sample;
  guint n = 0;

  g_assert_no_error (error);
  preroll (pipeline);
  assert_backward_seek_refused (pipeline);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_try_pull_sample (
              GST_APP_SINK (sink), 10 * GST_SECOND)))
    {
      GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer (sample));

      g_assert_cmpuint (pts, >=, last);
      last = pts;
      gst_sample_unref (sample);
      if (++n == 5)
        g_assert_true (gst_element_seek (pipeline, 1.0, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_NONE, -1, GST_SEEK_TYPE_SET,
            GST_SECOND));
      g_assert_cmpuint (n, <, 60);
    }
  /* the stream ended at the stop, a second in at 30 frames/s */
  g_assert_true (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  g_assert_cmpuint (n, >=, 25);
  g_assert_cmpuint (last, <, GST_SECOND);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

/* a variable framerate (0/1) is refused as the caps link: the frames had
 * no timestamps, and accelblend and compositor failed on them ("Need
 * timestamped buffers") */
static void
test_variable_framerate_refused (gconstpointer data)
{
  const char *element = data;
  g_autofree gchar *line = g_strdup_printf (
      "%s num-buffers=2 ! video/x-raw,width=8,height=8,framerate=0/1 ! "
      "fakesink",
      element);
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (line, &error);

  g_assert_error (error, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK);
  gst_clear_object (&pipeline);
}

int
main (int argc, char **argv)
{
  gpu = elements_test_init (&argc, &argv);

  g_test_add_data_func ("/sources/fluid/drag", "", test_fluid_drag);
  g_test_add_data_func ("/sources/fluid/variable-framerate-refused",
      "accelfluid", test_variable_framerate_refused);
  g_test_add_data_func ("/sources/cloth/variable-framerate-refused",
      "accelcloth", test_variable_framerate_refused);
  g_test_add_data_func ("/sources/fluid/jet", "", test_fluid_jet);
  g_test_add_data_func (
      "/sources/fluid/framerate-change", "", test_fluid_framerate_change);
  g_test_add_data_func ("/sources/particles/drag", "", test_particles_drag);
  g_test_add_data_func (
      "/sources/particles/emit-rate-reset", "", test_particles_emit_rate_reset);
  g_test_add_func ("/sources/fluid/seek-refused-or-stop-only",
      test_seek_refused_or_stop_only);
  g_test_add_data_func ("/sources/cloth/drag", "", test_cloth_drag);
  g_test_add_data_func ("/sources/fluid/pointer-far",
      "accelfluid grid-size=" G_STRINGIFY (GRID), test_pointer_far);
  g_test_add_data_func ("/sources/cloth/pointer-far",
      "accelcloth grid-size=" G_STRINGIFY (CLOTH), test_pointer_far);
  g_test_add_data_func ("/sources/fluid/pointer-not-finite",
      "accelfluid grid-size=" G_STRINGIFY (GRID), test_pointer_not_finite);
  g_test_add_data_func ("/sources/cloth/pointer-not-finite",
      "accelcloth grid-size=" G_STRINGIFY (CLOTH), test_pointer_not_finite);
  g_test_add_data_func ("/sources/particles/pointer-not-finite",
      "accelparticles capacity=" G_STRINGIFY (PARTICLES),
      test_pointer_not_finite);
  g_test_add_data_func (
      "/sources/cloth/gauss-seidel", "", test_cloth_gauss_seidel);
  g_test_add_data_func ("/sources/fluid/seek",
      "accelfluid grid-size=16 ! appsink name=sink sync=false", test_seek);
  g_test_add_data_func ("/sources/fluid/seek-through-blend",
      "accelblend name=b ! appsink name=sink sync=false "
      "videotestsrc ! video/x-raw,format=RGBA,width=16,height=16 ! b. "
      "accelfluid grid-size=16 ! video/x-raw,width=16,height=16 ! b.",
      test_seek);
  g_test_add_data_func (
      "/sources/fluid/seek-through-blend-refused-or-stop-only",
      "accelblend name=b ! appsink name=sink sync=false max-buffers=1 "
      "videotestsrc ! video/x-raw,format=RGBA,width=16,height=16,"
      "framerate=30/1 ! b. "
      "accelfluid grid-size=16 ! video/x-raw,width=16,height=16,"
      "framerate=30/1 ! b.",
      test_seek_through_blend_refused_or_stop_only);
  g_test_add_data_func (
      "/sources/cloth/seek-through-blend-refused-or-stop-only",
      "accelblend name=b ! appsink name=sink sync=false max-buffers=1 "
      "accelcloth grid-size=16 ! video/x-raw,width=16,height=16,"
      "framerate=30/1 ! b. "
      "accelfluid grid-size=16 ! video/x-raw,width=16,height=16,"
      "framerate=30/1 ! b.",
      test_seek_through_blend_refused_or_stop_only);
  if (gpu)
    {
      g_test_add_data_func ("/sources/fluid/drag/cuda-memory",
          "(memory:CUDAMemory)", test_fluid_drag);
      g_test_add_data_func ("/sources/fluid/framerate-change/cuda-memory",
          "(memory:CUDAMemory)", test_fluid_framerate_change);
      g_test_add_data_func ("/sources/particles/drag/cuda-memory",
          "(memory:CUDAMemory)", test_particles_drag);
      g_test_add_data_func ("/sources/cloth/drag/cuda-memory",
          "(memory:CUDAMemory)", test_cloth_drag);
      g_test_add_data_func ("/sources/cloth/gauss-seidel/cuda-memory",
          "(memory:CUDAMemory)", test_cloth_gauss_seidel);
    }
  return g_test_run ();
}
