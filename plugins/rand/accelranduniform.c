/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: rand.uniform, Random tensors uniform on (low, high], a
 * frame s reproducible from (generator, seed, s) */
#define G_LOG_DOMAIN "accel-rand"

#include "accelranduniform.h"

struct _AccelRandUniform
{
  AccelRand parent;
};

G_DEFINE_FINAL_TYPE (AccelRandUniform, accel_rand_uniform, ACCEL_TYPE_RAND)

enum
{
  PROP_0,
  PROP_LOW,
  PROP_HIGH,
};

static void
accel_rand_uniform_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_LOW:
    case PROP_HIGH:
      accel_rand_set_parameter (
          ACCEL_RAND (object), prop_id - PROP_LOW, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_rand_uniform_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_LOW:
    case PROP_HIGH:
      g_value_set_double (value,
          accel_rand_get_parameter (ACCEL_RAND (object), prop_id - PROP_LOW));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_rand_uniform_class_init (AccelRandUniformClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_rand_uniform_set_property;
  gobject_class->get_property = accel_rand_uniform_get_property;
  ACCEL_RAND_CLASS (klass)->distribution = ACCEL_RAND_DIST_UNIFORM;

  g_object_class_install_property (gobject_class, PROP_LOW,
      g_param_spec_double ("low", "Low", "Lower end (excluded)", -G_MAXDOUBLE,
          G_MAXDOUBLE, 0.0, flags));
  g_object_class_install_property (gobject_class, PROP_HIGH,
      g_param_spec_double ("high", "High", "Upper end (included)", -G_MAXDOUBLE,
          G_MAXDOUBLE, 1.0, flags));

  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass), "rand.uniform",
      "Random tensors uniform on (low, high], a frame s reproducible from "
      "(generator, seed, s)");
}

static void
accel_rand_uniform_init (AccelRandUniform *self)
{
}
