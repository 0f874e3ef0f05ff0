/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: rand.normal, Random tensors of normally distributed
 * values, a frame s reproducible from (generator, seed, s) */
#define G_LOG_DOMAIN "accel-rand"

#include "accelrandnormal.h"

struct _AccelRandNormal
{
  AccelRand parent;
};

G_DEFINE_FINAL_TYPE (AccelRandNormal, accel_rand_normal, ACCEL_TYPE_RAND)

enum
{
  PROP_0,
  PROP_MEAN,
  PROP_STDDEV,
};

static void
accel_rand_normal_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_MEAN:
    case PROP_STDDEV:
      accel_rand_set_parameter (
          ACCEL_RAND (object), prop_id - PROP_MEAN, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_rand_normal_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_MEAN:
    case PROP_STDDEV:
      g_value_set_double (value,
          accel_rand_get_parameter (ACCEL_RAND (object), prop_id - PROP_MEAN));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_rand_normal_class_init (AccelRandNormalClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_rand_normal_set_property;
  gobject_class->get_property = accel_rand_normal_get_property;
  ACCEL_RAND_CLASS (klass)->distribution = ACCEL_RAND_DIST_NORMAL;

  g_object_class_install_property (gobject_class, PROP_MEAN,
      g_param_spec_double (
          "mean", "Mean", "Mean", -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, flags));
  g_object_class_install_property (gobject_class, PROP_STDDEV,
      g_param_spec_double ("stddev", "Standard deviation", "Standard deviation",
          0.0, G_MAXDOUBLE, 1.0, flags));

  accel_stage_class_set_metadata (ACCEL_STAGE_CLASS (klass), "rand.normal",
      "Random tensors of normally distributed values, a frame s reproducible "
      "from (generator, seed, s)");
}

static void
accel_rand_normal_init (AccelRandNormal *self)
{
}
