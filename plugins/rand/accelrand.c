/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel rand plugin: AccelRand, a source of random tensors that
 * rand.uniform, rand.normal and rand.log-normal share: cuRAND's host API on
 * a GPU, plain C on the host */
#define G_LOG_DOMAIN "accel-rand"

#include <cuda_runtime_api.h>
#include <curand.h>
#include <math.h>

#include "accelrand-private.h"

typedef struct
{
  /* properties */
  gchar *shape;
  gchar *dtype;
  AccelRandGenerator generator;
  guint64 seed;
  gint64 num_buffers;
  double parameters[2];

  /* per frame, from the negotiated type */
  gsize n;
  gboolean f64;
  guint64 draws; /* 32-bit draws a frame takes: its offset step */

  /* GPU */
  curandGenerator_t curand;
  gpointer bound_stream;
  /* normal values come in pairs: an odd count is made here, then copied */
  gpointer scratch;
} AccelRandPrivate;

G_DEFINE_ENUM_TYPE (AccelRandGenerator, accel_rand_generator,
    G_DEFINE_ENUM_VALUE (ACCEL_RAND_PHILOX, "philox"),
    G_DEFINE_ENUM_VALUE (ACCEL_RAND_XORWOW, "xorwow"))

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AccelRand, accel_rand, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_SHAPE,
  PROP_DTYPE,
  PROP_GENERATOR,
  PROP_SEED,
  PROP_NUM_BUFFERS,
};

/**
 * accel_rand_set_parameter:
 * @self: a random source
 * @index: 0 or 1
 * @value: the distribution's parameter @index
 *
 * For the subclasses' set_property.
 */
void
accel_rand_set_parameter (AccelRand *self, guint index, double value)
{
  AccelRandPrivate *priv = accel_rand_get_instance_private (self);

  g_return_if_fail (index < 2);
  priv->parameters[index] = value;
}

/**
 * accel_rand_get_parameter:
 * @self: a random source
 * @index: 0 or 1
 *
 * Returns: the distribution's parameter @index.
 */
double
accel_rand_get_parameter (AccelRand *self, guint index)
{
  AccelRandPrivate *priv = accel_rand_get_instance_private (self);

  g_return_val_if_fail (index < 2, 0.0);
  return priv->parameters[index];
}

/* the distribution's parameters as @dtype holds them: uniform's range not
 * empty and its width finite (low -1e308, high 1e308 gave infinities, and
 * low 5, high 1 values in [1, 5)), a normal's mean and deviation finite
 * (an f32 of 1e39 is infinite) and 9 deviations from the mean too (a
 * deviation of 1.8e308 made infinities), and a log-normal's largest value
 * exp (mean + 9 stddev) finite (mean 100 made every f32 infinite, stddev
 * 2^31 half of them). Checked when the graph is
 * prepared and at each frame, as they may change meanwhile */
static gboolean
check_parameters (
    AccelRand *self, gboolean f64, AccelError code, GError **error)
{
  AccelRandPrivate *priv = accel_rand_get_instance_private (self);
  AccelRandDistribution dist = ACCEL_RAND_GET_CLASS (self)->distribution;
  double a = priv->parameters[0], b = priv->parameters[1];
  double most = f64 ? G_MAXDOUBLE : G_MAXFLOAT;
  const char *why = NULL;

  if (dist == ACCEL_RAND_DIST_UNIFORM && !(b > a))
    why = "high must be above low";
  else if (dist == ACCEL_RAND_DIST_UNIFORM
           && !(fabs (a) <= most && fabs (b) <= most && b - a <= most))
    why = "low, high and their difference must be finite in the dtype";
  else if (dist != ACCEL_RAND_DIST_UNIFORM
           && !(fabs (a) <= most && b >= 0.0 && b <= most))
    why = "mean must be finite and stddev from 0 to finite in the dtype";
  /* no normal value lies 9 deviations out (Box-Muller on 53-bit uniforms
   * reaches 8.6): within that, every value is finite */
  else if (dist != ACCEL_RAND_DIST_UNIFORM && !(fabs (a) + 9.0 * b <= most))
    why = "mean plus and minus 9 stddev must be finite in the dtype";
  else if (dist == ACCEL_RAND_DIST_LOG_NORMAL && !(exp (a + 9.0 * b) <= most))
    why = "exp (mean + 9 stddev), past which no value lies, must be finite "
          "in the dtype";
  if (!why)
    return TRUE;
  g_set_error (error, ACCEL_ERROR, code, "stage '%s' (%s): %s (%s %g, %s %g)",
      accel_stage_get_name (ACCEL_STAGE (self)),
      accel_stage_get_kind_name (ACCEL_STAGE (self)), why,
      dist == ACCEL_RAND_DIST_UNIFORM ? "low" : "mean", a,
      dist == ACCEL_RAND_DIST_UNIFORM ? "high" : "stddev", b);
  return FALSE;
}

static gboolean
accel_rand_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelRandPrivate *priv = accel_rand_get_instance_private (ACCEL_RAND (stage));
  AccelDType dtype = accel_dtype_from_string (priv->dtype ? priv->dtype : "");

  if (dtype != ACCEL_DTYPE_F32 && dtype != ACCEL_DTYPE_F64)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_PIPELINE,
          "stage '%s' (%s): dtype '%s' is not f32 or f64",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          priv->dtype);
      return FALSE;
    }
  if (!check_parameters (ACCEL_RAND (stage), dtype == ACCEL_DTYPE_F64,
          ACCEL_ERROR_INVALID_PIPELINE, error))
    return FALSE;
  accel_type_init_tensor (&out_types[0], dtype, ACCEL_MEMORY_DEVICE, 0, NULL);
  return accel_type_parse_dims (&out_types[0], priv->shape, error);
}

static void accel_rand_stop (AccelStage *stage);

static gboolean
accel_rand_start (AccelStage *stage, GError **error)
{
  AccelRand *self = ACCEL_RAND (stage);
  AccelRandPrivate *priv = accel_rand_get_instance_private (self);
  AccelRandDistribution dist = ACCEL_RAND_GET_CLASS (self)->distribution;
  const AccelType *type = accel_stage_get_output_type (stage, 0);
  cudaStream_t stream;

  priv->n = accel_type_get_n_elements (type);
  priv->f64 = type->dtype == ACCEL_DTYPE_F64;
  priv->draws = accel_rand_draws (dist, priv->f64, priv->n);
  if (accel_stage_is_host (stage))
    return TRUE;

  stream = accel_stream_get_handle (accel_stage_get_stream (stage));
  if (!accel_curand_check (stage,
          curandCreateGenerator (
              &priv->curand, priv->generator == ACCEL_RAND_PHILOX
                                 ? CURAND_RNG_PSEUDO_PHILOX4_32_10
                                 : CURAND_RNG_PSEUDO_XORWOW),
          error))
    return FALSE;
  if (!accel_curand_check (stage,
          curandSetPseudoRandomGeneratorSeed (priv->curand, priv->seed), error)
      || !accel_curand_check (
          stage, curandSetStream (priv->curand, stream), error))
    goto failed;
  priv->bound_stream = stream;
  if (dist != ACCEL_RAND_DIST_UNIFORM && priv->n % 2 == 1
      && !accel_cuda_check (cudaMallocAsync (&priv->scratch,
                                (priv->n + 1) * (priv->f64 ? 8 : 4), stream),
          error))
    goto failed;
  return TRUE;

  /* ERRORS */
failed:
  /* the engine calls stop () only after a start () that succeeded */
  accel_rand_stop (stage);
  return FALSE;
}

static void
accel_rand_stop (AccelStage *stage)
{
  AccelRandPrivate *priv = accel_rand_get_instance_private (ACCEL_RAND (stage));

  if (priv->curand)
    accel_curand_check (stage, curandDestroyGenerator (priv->curand), NULL);
  priv->curand = NULL;
  priv->bound_stream = NULL;
  if (priv->scratch)
    accel_cuda_check (
        cudaFreeAsync (priv->scratch,
            accel_stream_get_handle (accel_stage_get_stream (stage))),
        NULL);
  priv->scratch = NULL;
}

/* the frame's draws of @dist into @target */
static curandStatus_t
generate (AccelRandPrivate *priv, AccelRandDistribution dist, gpointer target,
    size_t n, double a, double b)
{
  switch (dist)
    {
    case ACCEL_RAND_DIST_NORMAL:
      return priv->f64
                 ? curandGenerateNormalDouble (priv->curand, target, n, a, b)
                 : curandGenerateNormal (
                     priv->curand, target, n, (float)a, (float)b);
    case ACCEL_RAND_DIST_LOG_NORMAL:
      return priv->f64
                 ? curandGenerateLogNormalDouble (priv->curand, target, n, a, b)
                 : curandGenerateLogNormal (
                     priv->curand, target, n, (float)a, (float)b);
    default:
      return priv->f64 ? curandGenerateUniformDouble (priv->curand, target, n)
                       : curandGenerateUniform (priv->curand, target, n);
    }
}

static gboolean
generate_gpu (AccelRand *self, AccelFrame *frame, GError **error)
{
  AccelRandPrivate *priv = accel_rand_get_instance_private (self);
  AccelStage *stage = ACCEL_STAGE (self);
  AccelRandDistribution dist = ACCEL_RAND_GET_CLASS (self)->distribution;
  cudaStream_t stream = accel_stream_get_handle (frame->stream);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  gpointer target = priv->scratch ? priv->scratch : out;
  size_t n = priv->scratch ? priv->n + 1 : priv->n;
  double a = priv->parameters[0], b = priv->parameters[1];
  curandStatus_t status;

  if (priv->bound_stream != stream)
    {
      if (!accel_curand_check (
              stage, curandSetStream (priv->curand, stream), error))
        return FALSE;
      priv->bound_stream = stream;
    }
  /* frame s starts at draw s x draws-per-frame, whatever ran before. The
   * host generator API synchronizes beyond its stream: not while another
   * thread captures a graph */
  accel_device_global_call_begin ();
  status
      = curandSetGeneratorOffset (priv->curand, frame->sequence * priv->draws);
  if (status == CURAND_STATUS_SUCCESS)
    status = generate (priv, dist, target, n, a, b);
  accel_device_global_call_end ();
  if (!accel_curand_check (stage, status, error))
    return FALSE;

  if (priv->scratch
      && !accel_cuda_check (
          cudaMemcpyAsync (out, priv->scratch, priv->n * (priv->f64 ? 8 : 4),
              cudaMemcpyDeviceToDevice, stream),
          error))
    return FALSE;
  if (dist == ACCEL_RAND_DIST_UNIFORM && (a != 0.0 || b != 1.0)
      && !accel_cuda_check (
          priv->f64 ? accel_rand_affine_f64 (stream, out, priv->n, a, b - a)
                    : accel_rand_affine_f32 (
                        stream, out, priv->n, (float)a, (float)(b - a)),
          error))
    return FALSE;
  return TRUE;
}

/* num-buffers ends the stream before the frame past it takes a buffer */
static gboolean
accel_rand_has_frame (AccelStage *stage, guint64 sequence)
{
  AccelRandPrivate *priv = accel_rand_get_instance_private (ACCEL_RAND (stage));

  return priv->num_buffers < 0 || sequence < (guint64)priv->num_buffers;
}

static AccelFlow
accel_rand_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelRand *self = ACCEL_RAND (stage);
  AccelRandPrivate *priv = accel_rand_get_instance_private (self);

  /* set while running: the frame fails as bad input */
  if (!check_parameters (self, priv->f64, ACCEL_ERROR_INVALID_INPUT, error))
    return ACCEL_FLOW_ERROR;

  if (accel_stage_is_host (stage))
    {
      accel_rand_fill_host (priv->generator, priv->seed,
          frame->sequence * priv->draws,
          ACCEL_RAND_GET_CLASS (self)->distribution, priv->parameters[0],
          priv->parameters[1], priv->f64,
          accel_buffer_get_data (frame->outputs[0]), priv->n);
      return ACCEL_FLOW_OK;
    }
  if (!generate_gpu (self, frame, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_rand_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelRandPrivate *priv
      = accel_rand_get_instance_private (ACCEL_RAND (object));

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_SHAPE:
      g_free (priv->shape);
      priv->shape = g_value_dup_string (value);
      break;
    case PROP_DTYPE:
      g_free (priv->dtype);
      priv->dtype = g_value_dup_string (value);
      break;
    case PROP_GENERATOR:
      priv->generator = g_value_get_enum (value);
      break;
    case PROP_SEED:
      priv->seed = g_value_get_uint64 (value);
      break;
    case PROP_NUM_BUFFERS:
      priv->num_buffers = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_rand_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelRandPrivate *priv
      = accel_rand_get_instance_private (ACCEL_RAND (object));

  switch (prop_id)
    {
    case PROP_SHAPE:
      g_value_set_string (value, priv->shape);
      break;
    case PROP_DTYPE:
      g_value_set_string (value, priv->dtype);
      break;
    case PROP_GENERATOR:
      g_value_set_enum (value, priv->generator);
      break;
    case PROP_SEED:
      g_value_set_uint64 (value, priv->seed);
      break;
    case PROP_NUM_BUFFERS:
      g_value_set_int64 (value, priv->num_buffers);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_rand_finalize (GObject *object)
{
  AccelRandPrivate *priv
      = accel_rand_get_instance_private (ACCEL_RAND (object));

  g_free (priv->shape);
  g_free (priv->dtype);
  G_OBJECT_CLASS (accel_rand_parent_class)->finalize (object);
}

static void
accel_rand_class_init (AccelRandClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType out;

  gobject_class->set_property = accel_rand_set_property;
  gobject_class->get_property = accel_rand_get_property;
  gobject_class->finalize = accel_rand_finalize;
  stage_class->negotiate = accel_rand_negotiate;
  stage_class->start = accel_rand_start;
  stage_class->stop = accel_rand_stop;
  stage_class->process = accel_rand_process;
  stage_class->has_frame = accel_rand_has_frame;

  g_object_class_install_property (gobject_class, PROP_SHAPE,
      g_param_spec_string ("shape", "Shape",
          "Tensor dimensions, outermost first, such as 1024 or 480x640", "1024",
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_string ("dtype", "Dtype", "Element type: f32 or f64", "f32",
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_GENERATOR,
      g_param_spec_enum ("generator", "Generator",
          "philox (Philox4x32-10, counter based) or xorwow",
          ACCEL_TYPE_RAND_GENERATOR, ACCEL_RAND_PHILOX,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint64 ("seed", "Seed",
          "Seed of the generator; frame s is a function of (generator, seed, "
          "s) only, so runs and restarts reproduce it",
          0, G_MAXUINT64, 0, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_NUM_BUFFERS,
      g_param_spec_int64 ("num-buffers", "Number of buffers",
          "Buffers to produce before end of stream (-1: no end)", -1,
          G_MAXINT64, -1, flags));

  accel_type_init_tensor (
      &out, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, ACCEL_RANK_ANY, NULL);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &out,
      "f32 or f64 tensor of the shape property");
}

static void
accel_rand_init (AccelRand *self)
{
}
