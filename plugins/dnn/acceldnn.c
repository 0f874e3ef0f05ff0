/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel dnn plugin: AccelDnnConv, the 2D convolution with bias and
 * activation that dnn.conv2d and dnn.conv2d-bias share: cuDNN on a GPU, a
 * direct convolution in plain C on the host */
#define G_LOG_DOMAIN "accel-dnn"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <string.h>

#include "accelconvhost.h"
#include "acceldense.h"
#include "accelhalf.h"
#include "accelhostscratch.h"
#include "acceldnn-private.h"
#include "accelscalar.h"

/* the most workspace an algorithm may ask for: cuDNN's heuristics rank
 * algorithms that need more last, and they are passed over */
#define WORKSPACE_LIMIT ((gsize)256 << 20)

typedef struct
{
  /* properties */
  gint pad_h, pad_w;
  gint stride_h, stride_w;
  gint dilation_h, dilation_w;
  gint groups;
  AccelDnnActivation activation;
  double alpha;

  /* from negotiation */
  AccelConvShape shape;
  gsize out_size;

  /* GPU: made in start() for the negotiated shape */
  cudnnHandle_t handle;
  gpointer bound_stream;
  cudnnTensorDescriptor_t in_desc, out_desc, bias_desc;
  cudnnFilterDescriptor_t filter_desc;
  cudnnConvolutionDescriptor_t conv_desc;
  cudnnActivationDescriptor_t fused_desc; /* relu or identity */
  cudnnActivationDescriptor_t act_desc;   /* applied after, in place */
  cudnnConvolutionFwdAlgo_t algo;
  gboolean fused; /* bias (and relu) in cudnnConvolutionBiasActivationForward */
  gpointer workspace;
  gsize workspace_size;

  /* host: f32 copies of f16 data */
  float *host_in, *host_weights, *host_bias, *host_out;
} AccelDnnConvPrivate;

G_DEFINE_ENUM_TYPE (AccelDnnActivation, accel_dnn_activation,
    G_DEFINE_ENUM_VALUE (ACCEL_DNN_ACTIVATION_NONE, "none"),
    G_DEFINE_ENUM_VALUE (ACCEL_DNN_ACTIVATION_RELU, "relu"),
    G_DEFINE_ENUM_VALUE (ACCEL_DNN_ACTIVATION_SIGMOID, "sigmoid"),
    G_DEFINE_ENUM_VALUE (ACCEL_DNN_ACTIVATION_TANH, "tanh"),
    G_DEFINE_ENUM_VALUE (ACCEL_DNN_ACTIVATION_ELU, "elu"))

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (
    AccelDnnConv, accel_dnn_conv, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_PAD_H,
  PROP_PAD_W,
  PROP_STRIDE_H,
  PROP_STRIDE_W,
  PROP_DILATION_H,
  PROP_DILATION_W,
  PROP_GROUPS,
  PROP_ACTIVATION,
  PROP_ALPHA,
};

enum
{
  PORT_IN,
  PORT_WEIGHTS,
  PORT_BIAS,
};

static gboolean
check_input (AccelStage *stage, const char *port, const AccelType *type,
    gint rank, GError **error)
{
  /* the dtype first: the dense helpers' message names f64 and bf16 too */
  if (type->kind == ACCEL_KIND_TENSOR && type->dtype != ACCEL_DTYPE_F32
      && type->dtype != ACCEL_DTYPE_F16)
    return accel_dense_mismatch (stage, error,
        "%s is %s; the stage takes f32 or f16", port,
        accel_dtype_to_string (type->dtype));
  if (!accel_dense_check_dtype (stage, port, type, error))
    return FALSE;
  if (type->n_dims != rank)
    {
      g_autofree gchar *dims = accel_dense_dims_to_string (type);
      return accel_dense_mismatch (stage, error,
          "%s is %s; it must have %d dimensions", port, dims, rank);
    }
  if (accel_type_get_n_elements (type) > G_MAXINT32)
    {
      g_autofree gchar *dims = accel_dense_dims_to_string (type);
      return accel_dense_mismatch (
          stage, error, "%s is %s, more than 2^31 - 1 elements", port, dims);
    }
  return TRUE;
}

static gboolean
accel_dnn_conv_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelDnnConv *self = ACCEL_DNN_CONV (stage);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);
  gboolean has_bias = ACCEL_DNN_CONV_GET_CLASS (self)->has_bias;
  const AccelType *in = &in_types[PORT_IN];
  const AccelType *weights = &in_types[PORT_WEIGHTS];
  AccelConvShape *s = &priv->shape;
  g_autofree gchar *din = NULL, *dweights = NULL;
  gint64 span_h, span_w, dims[4];
  guint64 elements;

  if (!check_input (stage, "in", in, 4, error)
      || !check_input (stage, "weights", weights, 4, error))
    return FALSE;
  if (in->dtype != weights->dtype)
    return accel_dense_mismatch (stage, error,
        "in is %s but weights is %s; both must have one dtype",
        accel_dtype_to_string (in->dtype),
        accel_dtype_to_string (weights->dtype));

  memset (s, 0, sizeof (*s));
  s->dtype = in->dtype;
  s->n = in->dims[0];
  s->c = in->dims[1];
  s->h = in->dims[2];
  s->w = in->dims[3];
  s->k = weights->dims[0];
  s->r = weights->dims[2];
  s->s = weights->dims[3];
  s->groups = priv->groups;
  s->pad_h = priv->pad_h;
  s->pad_w = priv->pad_w;
  s->stride_h = priv->stride_h;
  s->stride_w = priv->stride_w;
  s->dilation_h = priv->dilation_h;
  s->dilation_w = priv->dilation_w;

  din = accel_dense_dims_to_string (in);
  dweights = accel_dense_dims_to_string (weights);
  if (s->c % s->groups != 0)
    return accel_dense_mismatch (stage, error,
        "in is %s; its %" G_GINT64_FORMAT
        " channels are not a multiple of groups %" G_GINT64_FORMAT,
        din, s->c, s->groups);
  if (s->k % s->groups != 0)
    return accel_dense_mismatch (stage, error,
        "weights is %s; its %" G_GINT64_FORMAT
        " filters are not a multiple of groups %" G_GINT64_FORMAT,
        dweights, s->k, s->groups);
  if (weights->dims[1] != s->c / s->groups)
    return accel_dense_mismatch (stage, error,
        "in is %s but weights is %s; with groups %" G_GINT64_FORMAT
        " each filter must have %" G_GINT64_FORMAT
        " channels, not %" G_GINT64_FORMAT,
        din, dweights, s->groups, s->c / s->groups, weights->dims[1]);

  /* the rows and columns one dilated filter covers; the message names
   * the parameters, so a pipeline file's error points at their values */
  span_h = (s->r - 1) * s->dilation_h + 1;
  span_w = (s->s - 1) * s->dilation_w + 1;
  if (span_h > s->h + 2 * s->pad_h || span_w > s->w + 2 * s->pad_w)
    return accel_dense_mismatch (stage, error,
        "in is %s but weights is %s; with dilation-h %" G_GINT64_FORMAT
        " and dilation-w %" G_GINT64_FORMAT
        " the filter spans %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
        ", more than the input padded by pad-h %" G_GINT64_FORMAT
        " and pad-w %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
        "x%" G_GINT64_FORMAT ": the output would be empty",
        din, dweights, s->dilation_h, s->dilation_w, span_h, span_w, s->pad_h,
        s->pad_w, s->h + 2 * s->pad_h, s->w + 2 * s->pad_w);
  s->p = (s->h + 2 * s->pad_h - span_h) / s->stride_h + 1;
  s->q = (s->w + 2 * s->pad_w - span_w) / s->stride_w + 1;
  /* p and q reach 2^32 with the largest pads: the product is checked */
  if (!g_uint64_checked_mul (&elements, s->n, s->k)
      || !g_uint64_checked_mul (&elements, elements, s->p)
      || !g_uint64_checked_mul (&elements, elements, s->q)
      || elements > G_MAXINT32)
    return accel_dense_mismatch (stage, error,
        "in is %s and weights is %s; with pad-h %" G_GINT64_FORMAT
        " and pad-w %" G_GINT64_FORMAT " the output of %" G_GINT64_FORMAT
        "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
        " has more than 2^31 - 1 elements",
        din, dweights, s->pad_h, s->pad_w, s->n, s->k, s->p, s->q);

  if (has_bias)
    {
      const AccelType *bias = &in_types[PORT_BIAS];

      if (bias->kind != ACCEL_KIND_TENSOR || bias->dtype != s->dtype
          || bias->n_dims != 1 || bias->dims[0] != s->k)
        {
          g_autofree gchar *have = accel_type_to_string (bias);
          return accel_dense_mismatch (stage, error,
              "bias is %s but weights is %s; bias must be %s [%" G_GINT64_FORMAT
              "], one value per filter",
              have, dweights, accel_dtype_to_string (s->dtype), s->k);
        }
    }

  dims[0] = s->n;
  dims[1] = s->k;
  dims[2] = s->p;
  dims[3] = s->q;
  accel_type_init_tensor (
      &out_types[0], s->dtype, ACCEL_MEMORY_DEVICE, 4, dims);
  priv->out_size = accel_type_get_size (&out_types[0]);
  return accel_scalar_check (
      stage, "alpha", priv->alpha, s->dtype, FALSE, error);
}

/* GPU */

static cudnnActivationMode_t
cudnn_activation (AccelDnnActivation activation)
{
  switch (activation)
    {
    case ACCEL_DNN_ACTIVATION_RELU:
      return CUDNN_ACTIVATION_RELU;
    case ACCEL_DNN_ACTIVATION_SIGMOID:
      return CUDNN_ACTIVATION_SIGMOID;
    case ACCEL_DNN_ACTIVATION_TANH:
      return CUDNN_ACTIVATION_TANH;
    case ACCEL_DNN_ACTIVATION_ELU:
      return CUDNN_ACTIVATION_ELU;
    default:
      return CUDNN_ACTIVATION_IDENTITY;
    }
}

static gboolean
make_activation (AccelStage *stage, cudnnActivationDescriptor_t *desc,
    cudnnActivationMode_t mode, GError **error)
{
  /* coef is ELU's alpha (1: exp (x) - 1); the other modes ignore it */
  return accel_cudnn_check (
             stage, cudnnCreateActivationDescriptor (desc), error)
         && accel_cudnn_check (stage,
             cudnnSetActivationDescriptor (
                 *desc, mode, CUDNN_NOT_PROPAGATE_NAN, 1.0),
             error);
}

static void
stop_gpu (AccelDnnConv *self)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);

  if (priv->act_desc)
    accel_cudnn_check (
        stage, cudnnDestroyActivationDescriptor (priv->act_desc), NULL);
  if (priv->fused_desc)
    accel_cudnn_check (
        stage, cudnnDestroyActivationDescriptor (priv->fused_desc), NULL);
  if (priv->conv_desc)
    accel_cudnn_check (
        stage, cudnnDestroyConvolutionDescriptor (priv->conv_desc), NULL);
  if (priv->filter_desc)
    accel_cudnn_check (
        stage, cudnnDestroyFilterDescriptor (priv->filter_desc), NULL);
  if (priv->bias_desc)
    accel_cudnn_check (
        stage, cudnnDestroyTensorDescriptor (priv->bias_desc), NULL);
  if (priv->out_desc)
    accel_cudnn_check (
        stage, cudnnDestroyTensorDescriptor (priv->out_desc), NULL);
  if (priv->in_desc)
    accel_cudnn_check (
        stage, cudnnDestroyTensorDescriptor (priv->in_desc), NULL);
  if (priv->workspace)
    accel_cuda_check (
        cudaFreeAsync (priv->workspace,
            accel_stream_get_handle (accel_stage_get_stream (stage))),
        NULL);
  if (priv->handle)
    accel_cudnn_check (stage, cudnnDestroy (priv->handle), NULL);
  priv->act_desc = priv->fused_desc = NULL;
  priv->conv_desc = NULL;
  priv->filter_desc = NULL;
  priv->in_desc = priv->out_desc = priv->bias_desc = NULL;
  priv->workspace = NULL;
  priv->workspace_size = 0;
  priv->handle = NULL;
  priv->bound_stream = NULL;
  priv->fused = FALSE;
}

static gboolean
make_descriptors (AccelDnnConv *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);
  const AccelConvShape *s = &priv->shape;
  cudnnDataType_t dt
      = s->dtype == ACCEL_DTYPE_F16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  /* f32 stays f32: FMA kernels only, no TF32 tensor cores; f16 may use
   * tensor cores, accumulating in f32 */
  cudnnMathType_t math
      = s->dtype == ACCEL_DTYPE_F32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
  int n = 0, k = 0, p = 0, q = 0;

  if (!accel_cudnn_check (
          stage, cudnnCreateTensorDescriptor (&priv->in_desc), error)
      || !accel_cudnn_check (stage,
          cudnnSetTensor4dDescriptor (priv->in_desc, CUDNN_TENSOR_NCHW, dt,
              (int)s->n, (int)s->c, (int)s->h, (int)s->w),
          error)
      || !accel_cudnn_check (
          stage, cudnnCreateTensorDescriptor (&priv->out_desc), error)
      || !accel_cudnn_check (stage,
          cudnnSetTensor4dDescriptor (priv->out_desc, CUDNN_TENSOR_NCHW, dt,
              (int)s->n, (int)s->k, (int)s->p, (int)s->q),
          error)
      || !accel_cudnn_check (
          stage, cudnnCreateTensorDescriptor (&priv->bias_desc), error)
      || !accel_cudnn_check (stage,
          cudnnSetTensor4dDescriptor (
              priv->bias_desc, CUDNN_TENSOR_NCHW, dt, 1, (int)s->k, 1, 1),
          error)
      || !accel_cudnn_check (
          stage, cudnnCreateFilterDescriptor (&priv->filter_desc), error)
      || !accel_cudnn_check (stage,
          cudnnSetFilter4dDescriptor (priv->filter_desc, dt, CUDNN_TENSOR_NCHW,
              (int)s->k, (int)(s->c / s->groups), (int)s->r, (int)s->s),
          error))
    return FALSE;
  if (!accel_cudnn_check (
          stage, cudnnCreateConvolutionDescriptor (&priv->conv_desc), error)
      || !accel_cudnn_check (stage,
          cudnnSetConvolution2dDescriptor (priv->conv_desc, (int)s->pad_h,
              (int)s->pad_w, (int)s->stride_h, (int)s->stride_w,
              (int)s->dilation_h, (int)s->dilation_w, CUDNN_CROSS_CORRELATION,
              CUDNN_DATA_FLOAT),
          error)
      || !accel_cudnn_check (stage,
          cudnnSetConvolutionGroupCount (priv->conv_desc, (int)s->groups),
          error)
      || !accel_cudnn_check (
          stage, cudnnSetConvolutionMathType (priv->conv_desc, math), error))
    return FALSE;

  /* negotiation's arithmetic and cuDNN's must agree */
  if (!accel_cudnn_check (stage,
          cudnnGetConvolution2dForwardOutputDim (priv->conv_desc, priv->in_desc,
              priv->filter_desc, &n, &k, &p, &q),
          error))
    return FALSE;
  if (n != s->n || k != s->k || p != s->p || q != s->q)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "stage '%s' (%s): cuDNN makes an output of %dx%dx%dx%d, not the "
          "negotiated %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
          "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT,
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage), n, k,
          p, q, s->n, s->k, s->p, s->q);
      return FALSE;
    }
  return TRUE;
}

/* cuDNN's heuristics rank the algorithms for the shape; the first that
 * works, fits WORKSPACE_LIMIT and (for f32) uses no tensor cores wins */
static gboolean
choose_algorithm (AccelDnnConv *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);
  const AccelConvShape *s = &priv->shape;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int n_perf = 0, chosen = -1;
  size_t size = 0;

  if (!accel_cudnn_check (stage,
          cudnnGetConvolutionForwardAlgorithm_v7 (priv->handle, priv->in_desc,
              priv->filter_desc, priv->conv_desc, priv->out_desc,
              CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n_perf, perf),
          error))
    return FALSE;
  for (int i = 0; i < n_perf && chosen < 0; i++)
    {
      gboolean tensor_op
          = perf[i].mathType == CUDNN_TENSOR_OP_MATH
            || perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;

      if (perf[i].status != CUDNN_STATUS_SUCCESS
          || perf[i].memory > WORKSPACE_LIMIT
          || (s->dtype == ACCEL_DTYPE_F32 && tensor_op))
        continue;
      chosen = i;
    }
  if (chosen < 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
          "stage '%s' (%s): cuDNN has no algorithm for a %s convolution of "
          "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
          "x%" G_GINT64_FORMAT " by %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
          "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
          " within %zu bytes of workspace",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
          accel_dtype_to_string (s->dtype), s->n, s->c, s->h, s->w, s->k,
          s->c / s->groups, s->r, s->s, WORKSPACE_LIMIT);
      return FALSE;
    }
  priv->algo = perf[chosen].algo;
  /* f16: the math the heuristics ranked; f32 keeps FMA */
  if (s->dtype == ACCEL_DTYPE_F16
      && !accel_cudnn_check (stage,
          cudnnSetConvolutionMathType (priv->conv_desc, perf[chosen].mathType),
          error))
    return FALSE;
  if (!accel_cudnn_check (stage,
          cudnnGetConvolutionForwardWorkspaceSize (priv->handle, priv->in_desc,
              priv->filter_desc, priv->conv_desc, priv->out_desc, priv->algo,
              &size),
          error))
    return FALSE;
  priv->workspace_size = size;
  g_debug ("stage %s: cuDNN algorithm %d, %zu bytes of workspace",
      accel_stage_get_name (stage), (int)priv->algo, size);
  return TRUE;
}

static gboolean
start_gpu (AccelDnnConv *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);
  gboolean has_bias = ACCEL_DNN_CONV_GET_CLASS (self)->has_bias;
  cudaStream_t stream
      = accel_stream_get_handle (accel_stage_get_stream (stage));
  gboolean relu = priv->activation == ACCEL_DNN_ACTIVATION_RELU;

  if (!accel_cudnn_check (stage, cudnnCreate (&priv->handle), error)
      || !accel_cudnn_check (
          stage, cudnnSetStream (priv->handle, stream), error))
    goto failed;
  priv->bound_stream = stream;
  if (!make_descriptors (self, error) || !choose_algorithm (self, error))
    goto failed;
  if (priv->workspace_size > 0
      && !accel_cuda_check (
          cudaMallocAsync (&priv->workspace, priv->workspace_size, stream),
          error))
    goto failed;

  /* cudnnConvolutionBiasActivationForward takes relu and identity with
   * the implicit precomputed GEMM on every cuDNN version; any other
   * algorithm adds the bias with cudnnAddTensor. An activation the fused
   * call does not apply runs after, in place. */
  priv->fused
      = has_bias
        && priv->algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  if (priv->fused
      && !make_activation (stage, &priv->fused_desc,
          relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, error))
    goto failed;
  if (priv->activation != ACCEL_DNN_ACTIVATION_NONE && !(priv->fused && relu)
      && !make_activation (
          stage, &priv->act_desc, cudnn_activation (priv->activation), error))
    goto failed;
  return TRUE;

  /* ERRORS */
failed:
  stop_gpu (self);
  return FALSE;
}

static gboolean
process_gpu (AccelDnnConv *self, AccelFrame *frame, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);
  gboolean has_bias = ACCEL_DNN_CONV_GET_CLASS (self)->has_bias;
  cudaStream_t stream = accel_stream_get_handle (frame->stream);
  gconstpointer in = accel_buffer_get_data (frame->inputs[PORT_IN]);
  gconstpointer w = accel_buffer_get_data (frame->inputs[PORT_WEIGHTS]);
  gconstpointer bias
      = has_bias ? accel_buffer_get_data (frame->inputs[PORT_BIAS]) : NULL;
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  /* f32 and f16 data both take f32 scaling factors */
  float alpha = (float)priv->alpha, zero = 0.0f, one = 1.0f;

  if (priv->bound_stream != stream)
    {
      if (!accel_cudnn_check (
              stage, cudnnSetStream (priv->handle, stream), error))
        return FALSE;
      priv->bound_stream = stream;
    }

  if (priv->fused)
    {
      /* z is the output itself, scaled by 0: cleared first, so that a
       * NaN left in a reused buffer cannot come through as 0 NaN */
      if (!accel_cuda_check (
              cudaMemsetAsync (out, 0, priv->out_size, stream), error)
          || !accel_cudnn_check (stage,
              cudnnConvolutionBiasActivationForward (priv->handle, &alpha,
                  priv->in_desc, in, priv->filter_desc, w, priv->conv_desc,
                  priv->algo, priv->workspace, priv->workspace_size, &zero,
                  priv->out_desc, out, priv->bias_desc, bias, priv->fused_desc,
                  priv->out_desc, out),
              error))
        return FALSE;
    }
  else
    {
      if (!accel_cudnn_check (stage,
              cudnnConvolutionForward (priv->handle, &alpha, priv->in_desc, in,
                  priv->filter_desc, w, priv->conv_desc, priv->algo,
                  priv->workspace, priv->workspace_size, &zero, priv->out_desc,
                  out),
              error))
        return FALSE;
      if (has_bias
          && !accel_cudnn_check (stage,
              cudnnAddTensor (priv->handle, &one, priv->bias_desc, bias, &one,
                  priv->out_desc, out),
              error))
        return FALSE;
    }
  if (priv->act_desc
      && !accel_cudnn_check (stage,
          cudnnActivationForward (priv->handle, priv->act_desc, &one,
              priv->out_desc, out, &zero, priv->out_desc, out),
          error))
    return FALSE;
  return TRUE;
}

/* host */

static void
process_host (AccelDnnConv *self, AccelFrame *frame)
{
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);
  const AccelConvShape *s = &priv->shape;
  gboolean has_bias = ACCEL_DNN_CONV_GET_CLASS (self)->has_bias;
  gconstpointer in = accel_buffer_get_data (frame->inputs[PORT_IN]);
  gconstpointer w = accel_buffer_get_data (frame->inputs[PORT_WEIGHTS]);
  gconstpointer bias
      = has_bias ? accel_buffer_get_data (frame->inputs[PORT_BIAS]) : NULL;
  gpointer out = accel_buffer_get_data (frame->outputs[0]);

  if (s->dtype == ACCEL_DTYPE_F32)
    {
      accel_conv2d_host_f32 (
          s, in, w, bias, priv->alpha, priv->activation, out);
      return;
    }
  /* f16: widened to f32, computed, rounded back to the nearest */
  accel_half_widen (s->dtype, in, priv->host_in, s->n * s->c * s->h * s->w);
  accel_half_widen (
      s->dtype, w, priv->host_weights, s->k * (s->c / s->groups) * s->r * s->s);
  if (bias)
    accel_half_widen (s->dtype, bias, priv->host_bias, s->k);
  accel_conv2d_host_f32 (s, priv->host_in, priv->host_weights,
      bias ? priv->host_bias : NULL, priv->alpha, priv->activation,
      priv->host_out);
  accel_half_narrow (s->dtype, priv->host_out, out, s->n * s->k * s->p * s->q);
}

static void accel_dnn_conv_stop (AccelStage *stage);

static gboolean
accel_dnn_conv_start (AccelStage *stage, GError **error)
{
  AccelDnnConv *self = ACCEL_DNN_CONV (stage);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);
  const AccelConvShape *s = &priv->shape;

  if (!accel_stage_is_host (stage))
    return start_gpu (self, error);
  if (s->dtype != ACCEL_DTYPE_F16
      || ((priv->host_in = accel_host_scratch_new (
               stage, s->n * s->c * s->h * s->w, sizeof (float), error))
          && (priv->host_weights = accel_host_scratch_new (stage,
                  s->k * (s->c / s->groups) * s->r * s->s, sizeof (float),
                  error))
          && (priv->host_bias
              = accel_host_scratch_new (stage, s->k, sizeof (float), error))
          && (priv->host_out = accel_host_scratch_new (
                  stage, s->n * s->k * s->p * s->q, sizeof (float), error))))
    return TRUE;
  accel_dnn_conv_stop (stage);
  return FALSE;
}

static void
accel_dnn_conv_stop (AccelStage *stage)
{
  AccelDnnConv *self = ACCEL_DNN_CONV (stage);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);

  stop_gpu (self);
  g_clear_pointer (&priv->host_in, g_free);
  g_clear_pointer (&priv->host_weights, g_free);
  g_clear_pointer (&priv->host_bias, g_free);
  g_clear_pointer (&priv->host_out, g_free);
}

static AccelFlow
accel_dnn_conv_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelDnnConv *self = ACCEL_DNN_CONV (stage);
  AccelDnnConvPrivate *priv = accel_dnn_conv_get_instance_private (self);

  if (!accel_scalar_check (
          stage, "alpha", priv->alpha, priv->shape.dtype, TRUE, error))
    return ACCEL_FLOW_ERROR;
  if (accel_stage_is_host (stage))
    {
      process_host (self, frame);
      return ACCEL_FLOW_OK;
    }
  return process_gpu (self, frame, error) ? ACCEL_FLOW_OK : ACCEL_FLOW_ERROR;
}

static void
accel_dnn_conv_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelDnnConvPrivate *priv
      = accel_dnn_conv_get_instance_private (ACCEL_DNN_CONV (object));

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_PAD_H:
      priv->pad_h = g_value_get_int (value);
      break;
    case PROP_PAD_W:
      priv->pad_w = g_value_get_int (value);
      break;
    case PROP_STRIDE_H:
      priv->stride_h = g_value_get_int (value);
      break;
    case PROP_STRIDE_W:
      priv->stride_w = g_value_get_int (value);
      break;
    case PROP_DILATION_H:
      priv->dilation_h = g_value_get_int (value);
      break;
    case PROP_DILATION_W:
      priv->dilation_w = g_value_get_int (value);
      break;
    case PROP_GROUPS:
      priv->groups = g_value_get_int (value);
      break;
    case PROP_ACTIVATION:
      priv->activation = g_value_get_enum (value);
      break;
    case PROP_ALPHA:
      priv->alpha = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_dnn_conv_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelDnnConvPrivate *priv
      = accel_dnn_conv_get_instance_private (ACCEL_DNN_CONV (object));

  switch (prop_id)
    {
    case PROP_PAD_H:
      g_value_set_int (value, priv->pad_h);
      break;
    case PROP_PAD_W:
      g_value_set_int (value, priv->pad_w);
      break;
    case PROP_STRIDE_H:
      g_value_set_int (value, priv->stride_h);
      break;
    case PROP_STRIDE_W:
      g_value_set_int (value, priv->stride_w);
      break;
    case PROP_DILATION_H:
      g_value_set_int (value, priv->dilation_h);
      break;
    case PROP_DILATION_W:
      g_value_set_int (value, priv->dilation_w);
      break;
    case PROP_GROUPS:
      g_value_set_int (value, priv->groups);
      break;
    case PROP_ACTIVATION:
      g_value_set_enum (value, priv->activation);
      break;
    case PROP_ALPHA:
      g_value_set_double (value, priv->alpha);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
install_int (GObjectClass *gobject_class, guint prop_id, const char *name,
    const char *nick, const char *blurb, gint minimum, gint default_value)
{
  g_object_class_install_property (gobject_class, prop_id,
      g_param_spec_int (name, nick, blurb, minimum, G_MAXINT, default_value,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
              | ACCEL_PARAM_FIXED));
}

static void
accel_dnn_conv_class_init (AccelDnnConvClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = accel_dnn_conv_set_property;
  gobject_class->get_property = accel_dnn_conv_get_property;
  stage_class->negotiate = accel_dnn_conv_negotiate;
  stage_class->start = accel_dnn_conv_start;
  stage_class->stop = accel_dnn_conv_stop;
  stage_class->process = accel_dnn_conv_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  install_int (gobject_class, PROP_PAD_H, "pad-h", "Pad H",
      "Zero rows added above and below the input (read at negotiation)", 0, 0);
  install_int (gobject_class, PROP_PAD_W, "pad-w", "Pad W",
      "Zero columns added left and right of the input (read at "
      "negotiation)",
      0, 0);
  install_int (gobject_class, PROP_STRIDE_H, "stride-h", "Stride H",
      "Rows between the windows of two output rows (read at negotiation)", 1,
      1);
  install_int (gobject_class, PROP_STRIDE_W, "stride-w", "Stride W",
      "Columns between the windows of two output columns (read at "
      "negotiation)",
      1, 1);
  install_int (gobject_class, PROP_DILATION_H, "dilation-h", "Dilation H",
      "Rows between two filter taps (read at negotiation)", 1, 1);
  install_int (gobject_class, PROP_DILATION_W, "dilation-w", "Dilation W",
      "Columns between two filter taps (read at negotiation)", 1, 1);
  install_int (gobject_class, PROP_GROUPS, "groups", "Groups",
      "Channel groups: each filter sees in's channels / groups of them, and "
      "group g's filters the g-th share (read at negotiation)",
      1, 1);
  g_object_class_install_property (gobject_class, PROP_ACTIVATION,
      g_param_spec_enum ("activation", "Activation",
          "Applied to each output element after the bias: none, relu, "
          "sigmoid, tanh, elu (read at negotiation)",
          ACCEL_TYPE_DNN_ACTIVATION, ACCEL_DNN_ACTIVATION_NONE,
          flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_ALPHA,
      g_param_spec_double ("alpha", "Alpha",
          "Factor of the convolution, before the bias (may change while "
          "running)",
          -G_MAXDOUBLE, G_MAXDOUBLE, 1.0, flags));
}

static void
accel_dnn_conv_init (AccelDnnConv *self)
{
}

/**
 * accel_dnn_conv_class_add_ports:
 * @klass: a subclass, from its class_init, with @has_bias set
 *
 * Adds the inputs in and weights (and bias), and the output out.
 */
void
accel_dnn_conv_class_add_ports (AccelDnnConvClass *klass)
{
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  AccelType t;

  accel_type_init_tensor (&t, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, 4, NULL);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "in", &t,
      "[n, c, h, w], row-major NCHW, f32 or f16");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "weights", &t,
      "[k, c / groups, r, s], the dtype of in");
  if (klass->has_bias)
    {
      AccelType v;

      accel_type_init_tensor (
          &v, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, 1, NULL);
      accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "bias", &v,
          "[k], the dtype of in: added to each output channel");
    }
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &t,
      "[n, k, p, q], the dtype of in");
}
