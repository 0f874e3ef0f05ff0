/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the effects, blend and analysis host references: the description parser
 * and its messages, each effect on known pixels, the temporal effects over
 * frames, the blend modes, histograms, statistics, equalisation and motion
 * energy */
#include <math.h>

#include "accel-test.h"
#include "test-image.h"
#include "effects/analysis.h"
#include "effects/blend.h"
#include "effects/effects.h"

static const int rgba_formats[] = { ACCEL_IMAGE_RGBA8, ACCEL_IMAGE_BGRA8 };

/* the byte offsets of R, G, B, A in a pixel of @format */
static void
channel_offsets (int format, int *off)
{
  off[0] = format == ACCEL_IMAGE_BGRA8 ? 2 : 0;
  off[1] = 1;
  off[2] = format == ACCEL_IMAGE_BGRA8 ? 0 : 2;
  off[3] = 3;
}

/* pixel (@x, @y) of @f set to R, G, B, A @rgba */
static void
put_rgba (TestFrame *f, int x, int y, const guint8 *rgba)
{
  int off[4];

  channel_offsets (f->format, off);
  for (int c = 0; c < 4; c++)
    f->data[(size_t)y * f->pitch + 4 * (size_t)x + off[c]] = rgba[c];
}

static void
get_rgba (const TestFrame *f, int x, int y, guint8 *rgba)
{
  int off[4];

  channel_offsets (f->format, off);
  for (int c = 0; c < 4; c++)
    rgba[c] = f->data[(size_t)y * f->pitch + 4 * (size_t)x + off[c]];
}

static void
fill_rgba (TestFrame *f, guint8 r, guint8 g, guint8 b, guint8 a)
{
  const guint8 px[4] = { r, g, b, a };

  for (int y = 0; y < f->height; y++)
    for (int x = 0; x < f->width; x++)
      put_rgba (f, x, y, px);
}

static AccelEffectsParams
parse_ok (const char *description)
{
  AccelEffectsParams p;
  char message[256];

  if (accel_effects_parse (description, &p, message, sizeof (message)) != 0)
    {
      g_test_message ("'%s': %s", description, message);
      g_assert_not_reached ();
    }
  g_assert_cmpstr (message, ==, "");
  return p;
}

/* one pixel through @description (no temporal effects) */
static void
apply_pixel (const char *description, int format, const guint8 *in, guint8 *out)
{
  AccelEffectsParams p = parse_ok (description);
  g_autoptr (TestFrame) src = test_frame_new (format, 1, 1, 0);
  g_autoptr (TestFrame) dst = test_frame_new (format, 1, 1, 0);

  put_rgba (src, 0, 0, in);
  g_assert_cmpint (accel_effects_apply_host (format, src->data, src->pitch,
                       dst->data, dst->pitch, 1, 1, &p, NULL, 0),
      ==, 0);
  get_rgba (dst, 0, 0, out);
}

static void
assert_pixel_near (const char *description, const guint8 *in,
    const guint8 *want, int tolerance)
{
  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    {
      guint8 got[4];
      apply_pixel (description, rgba_formats[f], in, got);
      for (int c = 0; c < 4; c++)
        if (abs ((int)got[c] - (int)want[c]) > tolerance)
          {
            g_test_message ("'%s' on %s (%u, %u, %u, %u): channel %d",
                description, test_format_name (rgba_formats[f]), in[0], in[1],
                in[2], in[3], c);
            g_assert_cmpint (got[c], ==, want[c]);
          }
    }
}

static void
assert_pixel (const char *description, const guint8 *in, const guint8 *want)
{
  assert_pixel_near (description, in, want, 0);
}

static void
test_parse_blank (void)
{
  static const char *const blank[] = { "", "   ", " ,\t, \n",
    "brightness=0 contrast=1 saturation=1 "
    "hue=0 sepia=0" };
  AccelEffectsParams p;

  g_assert_cmpint (accel_effects_parse (NULL, &p, NULL, 0), ==, 0);
  g_assert_cmpuint (p.flags, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (blank); i++)
    {
      p = parse_ok (blank[i]);
      g_assert_cmpuint (p.flags, ==, 0);
      for (int k = 0; k < 12; k++)
        g_assert_cmpfloat (p.matrix[k], ==, k % 5 == 0 ? 1.0f : 0.0f);
      g_assert_cmpint (accel_effects_history_planes (&p), ==, 0);
    }
}

static void
test_parse_values (void)
{
  AccelEffectsParams p = parse_ok ("contrast=1.2 saturation=0.8 vignette=0.4");

  g_assert_cmphex (p.flags, ==, ACCEL_EFFECTS_MATRIX | ACCEL_EFFECTS_VIGNETTE);
  g_assert_cmpfloat (p.vignette_strength, ==, 0.4f);
  g_assert_cmpfloat (p.vignette_radius, ==, 0.5f);

  p = parse_ok ("chroma-key=#00ff00/0.3/0.1, gamma=2.2");
  g_assert_cmphex (p.flags, ==, ACCEL_EFFECTS_CHROMA_KEY | ACCEL_EFFECTS_GAMMA);
  g_assert_cmpuint (p.key[0], ==, 0);
  g_assert_cmpuint (p.key[1], ==, 255);
  g_assert_cmpuint (p.key[2], ==, 0);
  g_assert_cmpfloat (p.key_tolerance, ==, 0.3f);
  g_assert_cmpfloat (p.key_softness, ==, 0.1f);
  g_assert_cmpfloat (p.gamma, ==, 2.2f);

  p = parse_ok ("chroma-key=#1A2b3C vignette=0.25/0.75");
  g_assert_cmpuint (p.key[0], ==, 0x1a);
  g_assert_cmpuint (p.key[1], ==, 0x2b);
  g_assert_cmpuint (p.key[2], ==, 0x3c);
  g_assert_cmpfloat (p.key_tolerance, ==, 0.3f);
  g_assert_cmpfloat (p.key_softness, ==, 0.1f);
  g_assert_cmpfloat (p.vignette_radius, ==, 0.75f);

  p = parse_ok ("invert difference echo=0.75");
  g_assert_cmphex (p.flags, ==,
      ACCEL_EFFECTS_MATRIX | ACCEL_EFFECTS_DIFFERENCE | ACCEL_EFFECTS_ECHO);
  g_assert_cmpfloat (p.echo_decay, ==, 0.75f);
  g_assert_cmpint (accel_effects_history_planes (&p), ==, 2);
  g_assert_cmpuint (accel_effects_history_size (&p, 7, 3), ==, 2 * 7 * 3 * 16);

  /* bare effects take their defaults */
  p = parse_ok ("echo vignette sepia");
  g_assert_cmpfloat (p.echo_decay, ==, 0.9f);
  g_assert_cmpfloat (p.vignette_strength, ==, 0.5f);
  g_assert_cmpint (accel_effects_history_planes (&p), ==, 1);

  /* numbers in every spelling, whatever the locale */
  p = parse_ok ("brightness=-.5 contrast=1e0 hue=+90 saturation=2.");
  g_assert_cmphex (p.flags, ==, ACCEL_EFFECTS_MATRIX);
  p = parse_ok ("gamma=10");
  g_assert_cmpfloat (p.gamma, ==, 10.0f);
  p = parse_ok ("gamma=0.1");
  g_assert_cmpfloat (p.gamma, ==, 0.1f);
}

typedef struct
{
  const char *description;
  const char *message;
} ParseError;

static const ParseError parse_errors[] = {
  { "contrats=1.2", "unknown effect 'contrats' (did you mean 'contrast'?)" },
  { "contrast=1.2 vignete",
      "unknown effect 'vignete' (did you mean 'vignette'?)" },
  { "chroma_key=#00ff00",
      "unknown effect 'chroma_key' (did you mean 'chroma-key'?)" },
  { "Invert", "unknown effect 'Invert' (did you mean 'invert'?)" },
  /* no name is near: the list, where "hue" was offered for any */
  { "blur=3",
      "unknown effect 'blur' (one of brightness, contrast, saturation, hue, "
      "sepia, invert, gamma, vignette, chroma-key, difference, echo)" },
  { "contrast=9", "'contrast=9': the value must be in [0, 4]" },
  /* past a float's range: still a number, out of the effect's */
  { "contrast=1e308", "'contrast=1e308': the value must be in [0, 4]" },
  { "brightness=-1e39", "'brightness=-1e39': the value must be in [-1, 1]" },
  { "brightness=-1.5", "'brightness=-1.5': the value must be in [-1, 1]" },
  { "hue=200", "'hue=200': the value must be in [-180, 180]" },
  { "gamma=0", "'gamma=0': the value must be in [0.1, 10]" },
  { "sepia=2", "'sepia=2': the value must be in [0, 1]" },
  { "contrast=abc", "'contrast=abc': 'abc' is not a number" },
  { "contrast=1.2.3", "'contrast=1.2.3': '1.2.3' is not a number" },
  { "saturation=nan", "'saturation=nan': 'nan' is not a number" },
  { "contrast", "'contrast': contrast needs a value: contrast=C with C in "
                "[0, 4]" },
  { "gamma=", "'gamma=': gamma needs a value: gamma=G with G in [0.1, 10]" },
  { "invert=1", "'invert=1': invert takes no value" },
  { "difference=yes", "'difference=yes': difference takes no value" },
  { "echo=1.5", "'echo=1.5': the decay must be in [0, 1]" },
  { "vignette=2", "'vignette=2': the strength must be in [0, 1]" },
  { "vignette=0.5/1", "'vignette=0.5/1': the radius must be in [0, 1)" },
  { "vignette=0.5/0.5/1",
      "'vignette=0.5/0.5/1': vignette takes at most 2 values" },
  { "contrast=1/2", "'contrast=1/2': contrast takes at most 1 value" },
  { "chroma-key=green",
      "'chroma-key=green': the key colour 'green' is not #rrggbb" },
  { "chroma-key=#00ff0", "'chroma-key=#00ff0': the key colour '#00ff0' is "
                         "not #rrggbb" },
  { "chroma-key=#00ff00/2",
      "'chroma-key=#00ff00/2': the tolerance must be in [0, 1]" },
  { "chroma-key=#00ff00/0.2/-1",
      "'chroma-key=#00ff00/0.2/-1': the softness must be in [0, 1]" },
  { "chroma-key=#00ff00//0.1",
      "'chroma-key=#00ff00//0.1': '' is not a number" },
  { "gamma=2 contrast=1.1 gamma=3", "'gamma=3': gamma is given twice" },
  { "echo echo=0.5", "'echo=0.5': echo is given twice" },
};

/* colour effects whose composed matrix a float cannot hold: contrast=4
 * sixty-four times overflowed to infinities, then NaN, and every pixel
 * came out black; sixty of them still compose */
static void
test_parse_matrix_overflow (void)
{
  g_autoptr (GString) many = g_string_new (NULL);
  AccelEffectsParams p;
  char message[256];

  for (guint i = 0; i < 60; i++)
    g_string_append (many, "contrast=4 ");
  g_assert_cmpint (accel_effects_parse (many->str, &p, message, sizeof message),
      ==, ACCEL_IMAGE_OK);
  for (guint i = 0; i < 10; i++)
    g_string_append (many, "contrast=4 ");
  g_assert_cmpint (accel_effects_parse (many->str, &p, message, sizeof message),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpstr (message, ==,
      "the colour effects compose to a matrix past the range of a float; use "
      "fewer of them or milder values");
}

static void
test_parse_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (parse_errors); i++)
    {
      AccelEffectsParams p;
      char message[256];
      char tiny[8];

      g_test_message ("%s", parse_errors[i].description);
      g_assert_cmpint (accel_effects_parse (parse_errors[i].description, &p,
                           message, sizeof (message)),
          ==, ACCEL_IMAGE_INVALID_VALUE);
      g_assert_cmpstr (message, ==, parse_errors[i].message);
      /* a short buffer gets the start of it; none gets nothing */
      g_assert_cmpint (accel_effects_parse (parse_errors[i].description, &p,
                           tiny, sizeof (tiny)),
          ==, ACCEL_IMAGE_INVALID_VALUE);
      g_assert_cmpuint (strlen (tiny), ==, sizeof (tiny) - 1);
      g_assert_true (strncmp (tiny, parse_errors[i].message, 7) == 0);
      g_assert_cmpint (
          accel_effects_parse (parse_errors[i].description, &p, NULL, 0), ==,
          ACCEL_IMAGE_INVALID_VALUE);
    }
}

/* no effect, or effects that add up to nothing: the frame as it was, and
 * the bytes between rows untouched */
static void
test_identity_leaves_frame (void)
{
  static const char *const identities[]
      = { "", "brightness=0", "contrast=1 saturation=1", "invert invert" };
  static const int sizes[][2] = { { 1, 1 }, { 7, 3 }, { 33, 17 } };
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);

  for (guint i = 0; i < G_N_ELEMENTS (identities); i++)
    for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        {
          AccelEffectsParams p = parse_ok (identities[i]);
          int w = sizes[s][0], h = sizes[s][1];
          g_autoptr (TestFrame) in
              = test_frame_new (rgba_formats[f], w, h, (size_t)w * 4 + 12);
          g_autoptr (TestFrame) out
              = test_frame_new (rgba_formats[f], w, h, (size_t)w * 4 + 7);

          test_frame_fill_random (in, rand);
          g_assert_cmpint (
              accel_effects_apply_host (rgba_formats[f], in->data, in->pitch,
                  out->data, out->pitch, w, h, &p, NULL, 0),
              ==, 0);
          for (int y = 0; y < h; y++)
            {
              g_assert_cmpmem (in->data + (size_t)y * in->pitch, (size_t)w * 4,
                  out->data + (size_t)y * out->pitch, (size_t)w * 4);
              for (size_t k = (size_t)w * 4; k < out->pitch; k++)
                g_assert_cmphex (
                    out->data[(size_t)y * out->pitch + k], ==, TEST_POISON);
            }
        }
}

static void
test_colour_effects (void)
{
  const guint8 a[4] = { 100, 0, 250, 77 }, a_bright[4] = { 151, 51, 255, 77 };
  const guint8 b[4] = { 100, 128, 200, 9 }, b_contrast[4] = { 73, 129, 255, 9 };
  const guint8 c[4] = { 200, 100, 50, 255 }, c_grey[4] = { 124, 124, 124, 255 };
  const guint8 red[4] = { 255, 0, 0, 40 }, green[4] = { 0, 255, 0, 40 },
               blue[4] = { 0, 0, 255, 40 };
  const guint8 grey[4] = { 100, 100, 100, 1 }, sepia[4] = { 135, 120, 94, 1 };
  const guint8 d[4] = { 0, 100, 255, 30 }, d_inverted[4] = { 255, 155, 0, 30 };
  const guint8 e[4] = { 100, 100, 100, 5 };
  const guint8 e_bc[4] = { 124, 124, 124, 5 }, e_cb[4] = { 98, 98, 98, 5 };
  const guint8 half_sepia[4] = { 118, 110, 97, 1 };

  assert_pixel ("brightness=0.2", a, a_bright);
  assert_pixel ("contrast=2", b, b_contrast);
  assert_pixel ("saturation=0", c, c_grey);
  assert_pixel ("hue=120", red, green);
  assert_pixel ("hue=120", green, blue);
  assert_pixel ("hue=-120", red, blue);
  assert_pixel ("hue=180 hue=-180", red, red);
  assert_pixel ("sepia", grey, sepia);
  assert_pixel ("sepia=0.5", grey, half_sepia);
  assert_pixel ("invert", d, d_inverted);
  /* the matrix effects compose in the order written */
  assert_pixel ("brightness=0.1 contrast=2", e, e_bc);
  assert_pixel ("contrast=2 brightness=0.1", e, e_cb);
  /* grey stays grey under any hue rotation */
  assert_pixel ("hue=37", grey, grey);
}

static void
test_gamma (void)
{
  const guint8 in[4] = { 64, 0, 255, 3 }, want[4] = { 128, 0, 255, 3 };
  const guint8 in2[4] = { 128, 10, 200, 3 };
  guint8 want2[4] = { 0, 0, 0, 3 };

  /* 255 sqrt (64 / 255) = 127.75; gamma is within 1 of the exact power */
  assert_pixel_near ("gamma=2", in, want, 1);
  for (int c = 0; c < 3; c++)
    want2[c] = (guint8)(255.0 * pow (in2[c] / 255.0, 1.0 / 0.45) + 0.5);
  assert_pixel_near ("gamma=0.45", in2, want2, 1);
}

/* vignette=S/R on a w x h frame of grey 200 against the formula in
 * effects.h, within 1 */
static void
test_vignette (void)
{
  static const float cases[][2]
      = { { 1.0f, 0.0f }, { 0.4f, 0.5f }, { 0.8f, 0.9f } };
  const int w = 9, h = 5;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
      {
        g_autofree gchar *desc = g_strdup_printf (
            "vignette=%g/%g", (double)cases[i][0], (double)cases[i][1]);
        AccelEffectsParams p = parse_ok (desc);
        g_autoptr (TestFrame) in = test_frame_new (rgba_formats[f], w, h, 0);
        g_autoptr (TestFrame) out = test_frame_new (rgba_formats[f], w, h, 0);
        double s = cases[i][0], r = cases[i][1];

        fill_rgba (in, 200, 200, 200, 99);
        g_assert_cmpint (
            accel_effects_apply_host (rgba_formats[f], in->data, in->pitch,
                out->data, out->pitch, w, h, &p, NULL, 0),
            ==, 0);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            {
              double nx = (x + 0.5) * 2.0 / w - 1.0,
                     ny = (y + 0.5) * 2.0 / h - 1.0;
              double d2 = (nx * nx + ny * ny) / 2.0;
              double t = CLAMP ((d2 - r * r) / (1.0 - r * r), 0.0, 1.0);
              double want = 200.0 * (1.0 - s * t * t);
              guint8 got[4];
              get_rgba (out, x, y, got);
              g_assert_cmpfloat_with_epsilon (got[0], want, 1.0);
              g_assert_cmpuint (got[1], ==, got[0]);
              g_assert_cmpuint (got[2], ==, got[0]);
              g_assert_cmpuint (got[3], ==, 99);
            }
        /* the centre is untouched, a corner darkened by the strength
         * past the radius */
        {
          guint8 centre[4], corner[4];
          get_rgba (out, w / 2, h / 2, centre);
          get_rgba (out, 0, 0, corner);
          g_assert_cmpuint (centre[0], ==, 200);
          g_assert_cmpuint (corner[0], <, r < 0.8 ? 200 : 201);
        }
      }
}

/* alpha from the chroma distance: zero on the key, full far from it, the
 * ramp in between as effects.h gives it */
static void
test_chroma_key (void)
{
  const guint8 green[4] = { 0, 255, 0, 200 }, green_out[4] = { 0, 255, 0, 0 };
  const guint8 red[4] = { 255, 0, 0, 200 };
  const guint8 dark_green[4] = { 20, 200, 30, 255 };
  const guint8 near_green[4] = { 60, 190, 90, 255 };
  guint8 got[4];

  assert_pixel ("chroma-key=#00ff00/0.3/0.1", green, green_out);
  assert_pixel ("chroma-key=#00ff00/0.3/0.1", red, red);
  assert_pixel ("chroma-key=#00ff00/0.3/0", red, red);
  assert_pixel ("chroma-key=#00ff00/0.3/0", green, green_out);
  /* another shade of green is keyed out too */
  apply_pixel (
      "chroma-key=#00ff00/0.3/0.1", ACCEL_IMAGE_RGBA8, dark_green, got);
  g_assert_cmpuint (got[3], ==, 0);

  /* on the ramp: the distance by the JFIF chroma formulas */
  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    {
      double r = near_green[0], g = near_green[1], b = near_green[2];
      double u = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
      double v = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
      double ku = 128 - 0.331264 * 255, kv = 128 - 0.418688 * 255;
      double d = sqrt ((u - ku) * (u - ku) + (v - kv) * (v - kv)) / 255.0;
      double want = 255.0 * CLAMP ((d - 0.1) / 0.3, 0.0, 1.0);

      g_assert_cmpfloat (d, >, 0.1);
      g_assert_cmpfloat (d, <, 0.4);
      apply_pixel (
          "chroma-key=#00ff00/0.1/0.3", rgba_formats[f], near_green, got);
      g_assert_cmpfloat_with_epsilon (got[3], want, 1.0);
      g_assert_cmpmem (got, 3, near_green, 3);
    }
}

/* RGBA8 and BGRA8 are the same effects on the same colours, and alpha is
 * kept by all but the key */
static void
test_formats_agree (void)
{
  static const char *const descriptions[] = {
    "contrast=1.3 hue=30 saturation=1.4 vignette=0.6/0.2",
    "sepia=0.7 brightness=-0.1 invert",
    "chroma-key=#20e040/0.2/0.2 hue=-75",
  };
  const int w = 13, h = 6;
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);

  for (guint i = 0; i < G_N_ELEMENTS (descriptions); i++)
    {
      AccelEffectsParams p = parse_ok (descriptions[i]);
      g_autoptr (TestFrame) rgba = test_frame_new (ACCEL_IMAGE_RGBA8, w, h, 0);
      g_autoptr (TestFrame) bgra = test_frame_new (ACCEL_IMAGE_BGRA8, w, h, 0);
      g_autoptr (TestFrame) out1 = test_frame_new (ACCEL_IMAGE_RGBA8, w, h, 0);
      g_autoptr (TestFrame) out2 = test_frame_new (ACCEL_IMAGE_BGRA8, w, h, 0);

      test_frame_fill_random (rgba, rand);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          {
            guint8 px[4];
            get_rgba (rgba, x, y, px);
            put_rgba (bgra, x, y, px);
          }
      g_assert_cmpint (
          accel_effects_apply_host (ACCEL_IMAGE_RGBA8, rgba->data, rgba->pitch,
              out1->data, out1->pitch, w, h, &p, NULL, 0),
          ==, 0);
      g_assert_cmpint (
          accel_effects_apply_host (ACCEL_IMAGE_BGRA8, bgra->data, bgra->pitch,
              out2->data, out2->pitch, w, h, &p, NULL, 0),
          ==, 0);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          {
            guint8 p1[4], p2[4], src[4];
            get_rgba (out1, x, y, p1);
            get_rgba (out2, x, y, p2);
            get_rgba (rgba, x, y, src);
            g_assert_cmpmem (p1, 4, p2, 4);
            if (!(p.flags & ACCEL_EFFECTS_CHROMA_KEY))
              g_assert_cmpuint (p1[3], ==, src[3]);
          }
    }
}

/* one frame of @level (R, G and B) through @p with its history */
static guint8
temporal_step (const AccelEffectsParams *p, int format, guint8 level,
    float *history, int valid)
{
  g_autoptr (TestFrame) in = test_frame_new (format, 3, 2, 0);
  g_autoptr (TestFrame) out = test_frame_new (format, 3, 2, 0);
  guint8 px[4], first[4];

  fill_rgba (in, level, level, level, 77);
  g_assert_cmpint (accel_effects_apply_host (format, in->data, in->pitch,
                       out->data, out->pitch, 3, 2, p, history, valid),
      ==, 0);
  get_rgba (out, 0, 0, first);
  g_assert_cmpuint (first[3], ==, 77);
  for (int y = 0; y < 2; y++)
    for (int x = 0; x < 3; x++)
      {
        get_rgba (out, x, y, px);
        g_assert_cmpmem (px, 4, first, 4);
      }
  g_assert_cmpuint (first[1], ==, first[0]);
  g_assert_cmpuint (first[2], ==, first[0]);
  return first[0];
}

/* a bright frame, then black ones: the trail falls by the decay each frame
 * (in float, rounded only on output), and a flush starts it over */
static void
test_echo_decays (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    {
      AccelEffectsParams p = parse_ok ("echo=0.9");
      g_autofree float *history
          = g_malloc (accel_effects_history_size (&p, 3, 2));
      float trail = 200.0f;

      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 200, history, 0), ==, 200);
      for (int k = 1; k <= 20; k++)
        {
          trail = 0.9f * trail;
          g_assert_cmpuint (temporal_step (&p, rgba_formats[f], 0, history, 1),
              ==, (guint8)(trail + 0.5f));
        }
      /* a brighter frame than the trail shows as it is */
      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 150, history, 1), ==, 150);
      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 10, history, 1), ==, 135);
      /* after a flush the frame alone */
      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 10, history, 0), ==, 10);
    }
}

static void
test_difference (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    {
      AccelEffectsParams p = parse_ok ("difference");
      AccelEffectsParams both = parse_ok ("echo=0.5 difference");
      g_autofree float *history
          = g_malloc (accel_effects_history_size (&both, 3, 2));

      /* nothing to compare the first frame with */
      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 90, history, 0), ==, 0);
      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 100, history, 1), ==, 10);
      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 40, history, 1), ==, 60);
      g_assert_cmpuint (
          temporal_step (&p, rgba_formats[f], 40, history, 1), ==, 0);

      /* the trail of the differences */
      g_assert_cmpuint (
          temporal_step (&both, rgba_formats[f], 20, history, 0), ==, 0);
      g_assert_cmpuint (
          temporal_step (&both, rgba_formats[f], 120, history, 1), ==, 100);
      g_assert_cmpuint (
          temporal_step (&both, rgba_formats[f], 120, history, 1), ==, 50);
      g_assert_cmpuint (
          temporal_step (&both, rgba_formats[f], 150, history, 1), ==, 30);
      g_assert_cmpuint (
          temporal_step (&both, rgba_formats[f], 150, history, 1), ==, 15);
    }
}

static void
test_effects_invalid (void)
{
  AccelEffectsParams p = parse_ok ("echo");
  guint8 frame[64];

  g_assert_cmpint (accel_effects_apply_host (ACCEL_IMAGE_GRAY8, frame, 4,
                       frame + 32, 4, 1, 1, &p, NULL, 0),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  /* a temporal effect without its history */
  g_assert_cmpint (accel_effects_apply_host (ACCEL_IMAGE_RGBA8, frame, 4,
                       frame + 32, 4, 1, 1, &p, NULL, 0),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (accel_effects_apply_host (ACCEL_IMAGE_RGBA8, frame, 3,
                       frame + 32, 4, 1, 1, &p, NULL, 0),
      ==, ACCEL_IMAGE_INVALID_VALUE);
}

/* blends of one pixel pair, each format */
static void
assert_blend (int mode, float opacity, const guint8 *a, const guint8 *b,
    const guint8 *want)
{
  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    {
      g_autoptr (TestFrame) fa = test_frame_new (rgba_formats[f], 2, 1, 0);
      g_autoptr (TestFrame) fb = test_frame_new (rgba_formats[f], 2, 1, 12);
      g_autoptr (TestFrame) out = test_frame_new (rgba_formats[f], 2, 1, 9);
      guint8 got[4];

      put_rgba (fa, 0, 0, a);
      put_rgba (fa, 1, 0, a);
      put_rgba (fb, 0, 0, b);
      put_rgba (fb, 1, 0, b);
      g_assert_cmpint (
          accel_blend_host (rgba_formats[f], fa->data, fa->pitch, fb->data,
              fb->pitch, out->data, out->pitch, 2, 1, mode, opacity),
          ==, 0);
      for (int x = 0; x < 2; x++)
        {
          get_rgba (out, x, 0, got);
          g_test_message ("mode %d opacity %g: (%u %u %u %u)", mode,
              (double)opacity, got[0], got[1], got[2], got[3]);
          g_assert_cmpmem (got, 4, want, 4);
        }
      g_assert_cmphex (out->data[8], ==, TEST_POISON);
    }
}

static void
test_blend_modes (void)
{
  const guint8 a[4] = { 100, 10, 255, 100 }, b[4] = { 200, 20, 128, 255 };
  const guint8 clear_b[4] = { 200, 20, 128, 0 };
  const guint8 over[4] = { 200, 20, 128, 255 };
  const guint8 half[4] = { 150, 15, 192, 178 };
  const guint8 add[4] = { 255, 30, 255, 255 };
  const guint8 mul[4] = { 78, 1, 128, 255 };
  const guint8 screen[4] = { 222, 29, 255, 255 };
  const guint8 white[4] = { 255, 255, 255, 255 };
  const guint8 grey[4] = { 128, 128, 128, 255 };
  const guint8 quarter[4] = { 64, 64, 64, 255 };
  const guint8 three_quarters[4] = { 192, 192, 192, 255 };

  assert_blend (ACCEL_BLEND_OVER, 1.0f, a, b, over);
  assert_blend (ACCEL_BLEND_OVER, 0.5f, a, b, half);
  /* a transparent layer, or none of it, leaves the base */
  assert_blend (ACCEL_BLEND_OVER, 1.0f, a, clear_b, a);
  assert_blend (ACCEL_BLEND_SCREEN, 0.0f, a, b, a);
  assert_blend (ACCEL_BLEND_ADD, 1.0f, a, b, add);
  assert_blend (ACCEL_BLEND_MULTIPLY, 1.0f, a, b, mul);
  assert_blend (ACCEL_BLEND_SCREEN, 1.0f, a, b, screen);
  /* multiply by white and screen with black are the identity */
  assert_blend (ACCEL_BLEND_MULTIPLY, 1.0f, b, white, b);
  assert_blend (ACCEL_BLEND_MULTIPLY, 1.0f, grey, grey, quarter);
  assert_blend (ACCEL_BLEND_SCREEN, 1.0f, grey, grey, three_quarters);
}

static void
test_blend_invalid (void)
{
  guint8 px[16] = { 0 };

  g_assert_cmpint (accel_blend_host (ACCEL_IMAGE_RGBA8, px, 4, px + 4, 4,
                       px + 8, 4, 1, 1, 7, 1.0f),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (accel_blend_host (ACCEL_IMAGE_RGBA8, px, 4, px + 4, 4,
                       px + 8, 4, 1, 1, ACCEL_BLEND_ADD, 1.5f),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (accel_blend_host (ACCEL_IMAGE_RGBAF32, px, 16, px, 16, px,
                       16, 1, 1, ACCEL_BLEND_ADD, 1.0f),
      ==, ACCEL_IMAGE_INVALID_VALUE);
}

#define HIST(h, c, v) ((h)[(c)*ACCEL_ANALYSIS_BINS + (v)])

/* a 4 x 3 frame of known pixels: counts, luma bins and statistics */
static void
test_histogram_known (void)
{
  /* 6 pixels of (50, 0, 255, 255), 3 of (200, 10, 0, 255), 3 of (0, 0, 0,
   * 0) */
  const guint8 p1[4] = { 50, 0, 255, 255 }, p2[4] = { 200, 10, 0, 255 },
               p3[4] = { 0, 0, 0, 0 };

  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    {
      g_autoptr (TestFrame) in = test_frame_new (rgba_formats[f], 4, 3, 20);
      guint32 hist[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
      float stats[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS];
      guint32 total = 0;
      int y1 = (int)(0.299f * 50 + 0.587f * 0 + 0.114f * 255 + 0.5f);
      int y2 = (int)(0.299f * 200 + 0.587f * 10 + 0.114f * 0 + 0.5f);

      for (int i = 0; i < 12; i++)
        put_rgba (in, i % 4, i / 4, i < 6 ? p1 : (i < 9 ? p2 : p3));
      g_assert_cmpint (
          accel_analysis_accumulate_host (rgba_formats[f], in->data, in->pitch,
              4, 3, ACCEL_ANALYSIS_LUMA, NULL, 0, hist, NULL),
          ==, 0);
      g_assert_cmpuint (HIST (hist, 0, 50), ==, 6);
      g_assert_cmpuint (HIST (hist, 0, 200), ==, 3);
      g_assert_cmpuint (HIST (hist, 0, 0), ==, 3);
      g_assert_cmpuint (HIST (hist, 1, 0), ==, 9);
      g_assert_cmpuint (HIST (hist, 1, 10), ==, 3);
      g_assert_cmpuint (HIST (hist, 2, 255), ==, 6);
      g_assert_cmpuint (HIST (hist, 2, 0), ==, 6);
      g_assert_cmpuint (HIST (hist, 3, 255), ==, 9);
      g_assert_cmpuint (HIST (hist, 3, 0), ==, 3);
      g_assert_cmpuint (HIST (hist, 4, y1), ==, 6);
      g_assert_cmpuint (HIST (hist, 4, y2), ==, 3);
      g_assert_cmpuint (HIST (hist, 4, 0), ==, 3);
      for (int c = 0; c < ACCEL_ANALYSIS_CHANNELS; c++)
        {
          total = 0;
          for (int v = 0; v < ACCEL_ANALYSIS_BINS; v++)
            total += HIST (hist, c, v);
          g_assert_cmpuint (total, ==, 12);
        }

      g_assert_cmpint (accel_analysis_stats_host (hist, NULL, stats), ==, 0);
      /* R: 50 x 6, 200 x 3, 0 x 3: mean 75, E[x^2] = 11250, stddev 75 */
      g_assert_cmpfloat (stats[0], ==, 0.0f);
      g_assert_cmpfloat (stats[1], ==, 200.0f);
      g_assert_cmpfloat (stats[2], ==, 75.0f);
      g_assert_cmpfloat (stats[3], ==, 75.0f);
      g_assert_cmpfloat (stats[4], ==, 0.0f);
      /* B: 255 half the time */
      g_assert_cmpfloat (stats[2 * ACCEL_ANALYSIS_STATS + 2], ==, 127.5f);
      g_assert_cmpfloat (stats[2 * ACCEL_ANALYSIS_STATS + 3], ==, 127.5f);
      /* A */
      g_assert_cmpfloat (stats[3 * ACCEL_ANALYSIS_STATS + 0], ==, 0.0f);
      g_assert_cmpfloat (stats[3 * ACCEL_ANALYSIS_STATS + 1], ==, 255.0f);
    }
}

static void
test_stats_constant_and_empty (void)
{
  g_autoptr (TestFrame) in = test_frame_new (ACCEL_IMAGE_BGRA8, 5, 5, 0);
  guint32 hist[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
  float stats[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS];

  fill_rgba (in, 7, 8, 9, 255);
  /* without the luma flag the luma row stays empty: zeros */
  g_assert_cmpint (accel_analysis_accumulate_host (ACCEL_IMAGE_BGRA8, in->data,
                       in->pitch, 5, 5, 0, NULL, 0, hist, NULL),
      ==, 0);
  g_assert_cmpint (accel_analysis_stats_host (hist, NULL, stats), ==, 0);
  for (int c = 0; c < 4; c++)
    {
      const float *s = stats + c * ACCEL_ANALYSIS_STATS;
      float v = c == 3 ? 255.0f : 7.0f + c;
      g_assert_cmpfloat (s[0], ==, v);
      g_assert_cmpfloat (s[1], ==, v);
      g_assert_cmpfloat (s[2], ==, v);
      g_assert_cmpfloat (s[3], ==, 0.0f);
    }
  for (int k = 0; k < ACCEL_ANALYSIS_STATS; k++)
    g_assert_cmpfloat (stats[4 * ACCEL_ANALYSIS_STATS + k], ==, 0.0f);
}

/* a frame of two levels becomes black and white, in either mode, whatever
 * share each level has; one level stays as it is */
static void
test_equalize_two_levels (void)
{
  static const int modes[] = { ACCEL_EQUALIZE_LUMA, ACCEL_EQUALIZE_CHANNELS };
  static const int dark_share[] = { 1, 6, 11 };

  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
      for (guint k = 0; k < G_N_ELEMENTS (dark_share); k++)
        {
          g_autoptr (TestFrame) in = test_frame_new (rgba_formats[f], 4, 3, 0);
          g_autoptr (TestFrame) out
              = test_frame_new (rgba_formats[f], 4, 3, 24);
          guint32 hist[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
          const guint8 dark[4] = { 50, 50, 50, 30 },
                       light[4] = { 200, 200, 200, 40 };

          for (int i = 0; i < 12; i++)
            put_rgba (in, i % 4, i / 4, i < dark_share[k] ? dark : light);
          g_assert_cmpint (
              accel_analysis_accumulate_host (rgba_formats[f], in->data,
                  in->pitch, 4, 3, ACCEL_ANALYSIS_LUMA, NULL, 0, hist, NULL),
              ==, 0);
          g_assert_cmpint (
              accel_equalize_host (rgba_formats[f], in->data, in->pitch,
                  out->data, out->pitch, 4, 3, hist, modes[m]),
              ==, 0);
          for (int i = 0; i < 12; i++)
            {
              guint8 px[4], want = i < dark_share[k] ? 0 : 255;
              get_rgba (out, i % 4, i / 4, px);
              g_assert_cmpuint (px[0], ==, want);
              g_assert_cmpuint (px[1], ==, want);
              g_assert_cmpuint (px[2], ==, want);
              g_assert_cmpuint (px[3], ==, i < dark_share[k] ? 30 : 40);
            }
          for (int y = 0; y < 3; y++)
            for (int b = 16; b < 24; b++)
              g_assert_cmphex (out->data[y * out->pitch + b], ==, TEST_POISON);

          /* one level: nothing to stretch */
          fill_rgba (in, 90, 90, 90, 1);
          g_assert_cmpint (
              accel_analysis_accumulate_host (rgba_formats[f], in->data,
                  in->pitch, 4, 3, ACCEL_ANALYSIS_LUMA, NULL, 0, hist, NULL),
              ==, 0);
          g_assert_cmpint (
              accel_equalize_host (rgba_formats[f], in->data, in->pitch,
                  out->data, out->pitch, 4, 3, hist, modes[m]),
              ==, 0);
          for (int i = 0; i < 12; i++)
            {
              guint8 px[4];
              get_rgba (out, i % 4, i / 4, px);
              g_assert_cmpuint (px[0], ==, 90);
              g_assert_cmpuint (px[2], ==, 90);
            }
        }
}

/* three levels: the cumulative counts stretched over 0..255, per channel;
 * in the luma mode a colour's channels move alike, keeping its chroma */
static void
test_equalize_levels (void)
{
  g_autoptr (TestFrame) in = test_frame_new (ACCEL_IMAGE_RGBA8, 10, 1, 0);
  g_autoptr (TestFrame) out = test_frame_new (ACCEL_IMAGE_RGBA8, 10, 1, 0);
  guint32 hist[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
  /* R: 2 x 10, 3 x 20, 5 x 30: cdf 2, 5, 10 -> 0, 255 * 3 / 8, 255 */
  const guint8 l1[4] = { 10, 60, 40, 255 }, l2[4] = { 20, 60, 40, 255 },
               l3[4] = { 30, 60, 40, 255 };
  /* luma 40, 84 (83.7) and 200 -> 0, 96 and 255: the colour moves by 12.3 */
  const guint8 dark[4] = { 40, 40, 40, 1 }, mid[4] = { 100, 80, 60, 2 },
               light[4] = { 200, 200, 200, 3 };
  const guint8 mid_out[4] = { 112, 92, 72, 2 };
  guint8 px[4];

  for (int x = 0; x < 10; x++)
    put_rgba (in, x, 0, x < 2 ? l1 : (x < 5 ? l2 : l3));
  g_assert_cmpint (
      accel_analysis_accumulate_host (ACCEL_IMAGE_RGBA8, in->data, in->pitch,
          10, 1, ACCEL_ANALYSIS_LUMA, NULL, 0, hist, NULL),
      ==, 0);
  g_assert_cmpint (
      accel_equalize_host (ACCEL_IMAGE_RGBA8, in->data, in->pitch, out->data,
          out->pitch, 10, 1, hist, ACCEL_EQUALIZE_CHANNELS),
      ==, 0);
  get_rgba (out, 0, 0, px);
  g_assert_cmpuint (px[0], ==, 0);
  /* G and B have one level each: kept */
  g_assert_cmpuint (px[1], ==, 60);
  g_assert_cmpuint (px[2], ==, 40);
  get_rgba (out, 3, 0, px);
  g_assert_cmpuint (px[0], ==, 96); /* 95.625 */
  get_rgba (out, 9, 0, px);
  g_assert_cmpuint (px[0], ==, 255);

  for (int x = 0; x < 10; x++)
    put_rgba (in, x, 0, x < 2 ? dark : (x < 5 ? mid : light));
  g_assert_cmpint (
      accel_analysis_accumulate_host (ACCEL_IMAGE_RGBA8, in->data, in->pitch,
          10, 1, ACCEL_ANALYSIS_LUMA, NULL, 0, hist, NULL),
      ==, 0);
  g_assert_cmpint (accel_equalize_host (ACCEL_IMAGE_RGBA8, in->data, in->pitch,
                       out->data, out->pitch, 10, 1, hist, ACCEL_EQUALIZE_LUMA),
      ==, 0);
  for (int x = 0; x < 10; x++)
    {
      get_rgba (out, x, 0, px);
      if (x < 2)
        g_assert_cmpmem (px, 3, "\0\0\0", 3);
      else if (x < 5)
        g_assert_cmpmem (px, 4, mid_out, 4);
      else
        g_assert_cmpmem (px, 3, "\377\377\377", 3);
    }
}

static void
test_motion (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (rgba_formats); f++)
    {
      g_autoptr (GRand) rand = g_rand_new_with_seed (3);
      g_autoptr (TestFrame) a = test_frame_new (rgba_formats[f], 9, 4, 40);
      g_autoptr (TestFrame) b = test_frame_new (rgba_formats[f], 9, 4, 0);
      g_autoptr (TestFrame) prev = test_frame_new (rgba_formats[f], 9, 4, 0);
      guint32 hist[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];
      guint64 motion[ACCEL_ANALYSIS_CHANNELS];
      float stats[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_STATS];
      const int flags = ACCEL_ANALYSIS_LUMA | ACCEL_ANALYSIS_KEEP;

      test_frame_fill_random (a, rand);
      /* b: a with R 10 up, G 3 down, B and A as they are (no clipping) */
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 9; x++)
          {
            guint8 px[4];
            get_rgba (a, x, y, px);
            px[0] = (guint8)CLAMP (px[0], 0, 245);
            px[1] = (guint8)CLAMP (px[1], 3, 255);
            put_rgba (a, x, y, px);
            px[0] += 10;
            px[1] -= 3;
            put_rgba (b, x, y, px);
          }

      /* the first frame is only kept */
      g_assert_cmpint (
          accel_analysis_accumulate_host (rgba_formats[f], a->data, a->pitch, 9,
              4, flags, prev->data, prev->pitch, hist, motion),
          ==, 0);
      for (int y = 0; y < 4; y++)
        g_assert_cmpmem (
            prev->data + y * prev->pitch, 36, a->data + y * a->pitch, 36);
      for (int c = 0; c < ACCEL_ANALYSIS_CHANNELS; c++)
        g_assert_cmpuint (motion[c], ==, 0);

      /* the same frame again: no motion */
      g_assert_cmpint (accel_analysis_accumulate_host (rgba_formats[f], a->data,
                           a->pitch, 9, 4, flags | ACCEL_ANALYSIS_MOTION,
                           prev->data, prev->pitch, hist, motion),
          ==, 0);
      g_assert_cmpint (accel_analysis_stats_host (hist, motion, stats), ==, 0);
      for (int c = 0; c < ACCEL_ANALYSIS_CHANNELS; c++)
        {
          g_assert_cmpuint (motion[c], ==, 0);
          g_assert_cmpfloat (stats[c * ACCEL_ANALYSIS_STATS + 4], ==, 0.0f);
        }

      /* then b: R moved 10, G 3, per pixel */
      g_assert_cmpint (accel_analysis_accumulate_host (rgba_formats[f], b->data,
                           b->pitch, 9, 4, flags | ACCEL_ANALYSIS_MOTION,
                           prev->data, prev->pitch, hist, motion),
          ==, 0);
      g_assert_cmpint (accel_analysis_stats_host (hist, motion, stats), ==, 0);
      g_assert_cmpuint (motion[0], ==, 36 * 10);
      g_assert_cmpuint (motion[1], ==, 36 * 3);
      g_assert_cmpuint (motion[2], ==, 0);
      g_assert_cmpuint (motion[3], ==, 0);
      g_assert_cmpfloat (stats[0 * ACCEL_ANALYSIS_STATS + 4], ==, 10.0f);
      g_assert_cmpfloat (stats[1 * ACCEL_ANALYSIS_STATS + 4], ==, 3.0f);
      /* luma moved by about 0.299 * 10 - 0.587 * 3 = 1.2 */
      g_assert_cmpfloat (stats[4 * ACCEL_ANALYSIS_STATS + 4], >=, 0.5f);
      g_assert_cmpfloat (stats[4 * ACCEL_ANALYSIS_STATS + 4], <=, 2.0f);
    }
}

static void
test_analysis_invalid (void)
{
  guint8 px[16] = { 0 };
  guint32 hist[ACCEL_ANALYSIS_CHANNELS * ACCEL_ANALYSIS_BINS];

  /* motion needs the previous frame and somewhere to sum it */
  g_assert_cmpint (accel_analysis_accumulate_host (ACCEL_IMAGE_RGBA8, px, 4, 1,
                       1, ACCEL_ANALYSIS_MOTION, NULL, 0, hist, NULL),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (accel_analysis_accumulate_host (
                       ACCEL_IMAGE_GRAY8, px, 4, 1, 1, 0, NULL, 0, hist, NULL),
      ==, ACCEL_IMAGE_INVALID_VALUE);
  g_assert_cmpint (
      accel_equalize_host (ACCEL_IMAGE_RGBA8, px, 4, px + 8, 4, 1, 1, hist, 9),
      ==, ACCEL_IMAGE_INVALID_VALUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/effects/parse/blank", test_parse_blank);
  g_test_add_func ("/effects/parse/values", test_parse_values);
  g_test_add_func ("/effects/parse/errors", test_parse_errors);
  g_test_add_func (
      "/effects/parse/matrix-overflow", test_parse_matrix_overflow);
  g_test_add_func (
      "/effects/identity-leaves-frame", test_identity_leaves_frame);
  g_test_add_func ("/effects/colour-matrix", test_colour_effects);
  g_test_add_func ("/effects/gamma", test_gamma);
  g_test_add_func ("/effects/vignette", test_vignette);
  g_test_add_func ("/effects/chroma-key", test_chroma_key);
  g_test_add_func ("/effects/formats-agree", test_formats_agree);
  g_test_add_func ("/effects/echo-decays", test_echo_decays);
  g_test_add_func ("/effects/difference", test_difference);
  g_test_add_func ("/effects/invalid", test_effects_invalid);
  g_test_add_func ("/blend/modes", test_blend_modes);
  g_test_add_func ("/blend/invalid", test_blend_invalid);
  g_test_add_func ("/analysis/histogram-known", test_histogram_known);
  g_test_add_func (
      "/analysis/stats-constant-and-empty", test_stats_constant_and_empty);
  g_test_add_func ("/analysis/equalize-two-levels", test_equalize_two_levels);
  g_test_add_func ("/analysis/equalize-levels", test_equalize_levels);
  g_test_add_func ("/analysis/motion", test_motion);
  g_test_add_func ("/analysis/invalid", test_analysis_invalid);
  return g_test_run ();
}
