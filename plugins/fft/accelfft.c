/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel fft plugin: AccelFft, the discrete Fourier transform that
 * fft.forward and fft.inverse share: cuFFT on a GPU, FFTW on the host */
#define G_LOG_DOMAIN "accel-fft"

#include <cuda_runtime_api.h>
#include <cufft.h>
#include <fftw3.h>

#include "accelfft-private.h"
#include "accelfftscale.h"

/* a transform of one input type: sizes and the plans made for it */
typedef struct
{
  AccelType in_type; /* the key of the plan cache */
  AccelType out_type;
  AccelFftType type; /* resolved: c2c, r2c or c2r */
  gboolean dbl;      /* f64 / c128 */
  gint rank;
  gint64 n[3];      /* logical sizes of one transform, outermost first */
  gint64 batch;     /* transforms per buffer: the leading dimensions */
  gint64 in_elems;  /* elements (real or complex) of one input transform */
  gint64 out_elems; /* elements of one output transform */
  gsize in_size;    /* bytes of a whole input buffer */
  gsize out_size;

  /* GPU */
  cufftHandle cufft;
  gboolean have_cufft;
  /* host: fftw_plan or fftwf_plan; the unaligned one only when a buffer is
   * aligned unlike those the plan was made for */
  gpointer host_plan;
  gpointer host_plan_unaligned;
  int align_in, align_out;
} FftPlan;

typedef struct
{
  /* properties */
  AccelFftType type;
  gint rank;
  gint64 real_length;
  gboolean normalize;

  GPtrArray *plans; /* FftPlan*, cached per input type */
  FftPlan *last;    /* the plan of the last frame: the usual hit */
  gpointer bound_stream;

  /* c2r transforms overwrite their input: they read a copy here */
  gpointer scratch;
  gsize scratch_size;
} AccelFftPrivate;

G_DEFINE_ENUM_TYPE (AccelFftType, accel_fft_type,
    G_DEFINE_ENUM_VALUE (ACCEL_FFT_TYPE_AUTO, "auto"),
    G_DEFINE_ENUM_VALUE (ACCEL_FFT_TYPE_C2C, "c2c"),
    G_DEFINE_ENUM_VALUE (ACCEL_FFT_TYPE_R2C, "r2c"),
    G_DEFINE_ENUM_VALUE (ACCEL_FFT_TYPE_C2R, "c2r"))

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AccelFft, accel_fft, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_TYPE,
  PROP_RANK,
  PROP_REAL_LENGTH,
  PROP_NORMALIZE,
};

/* the FFTW planner is not thread safe; execution is */
static GMutex planner_lock;

static gboolean
is_complex (AccelDType dtype)
{
  return dtype == ACCEL_DTYPE_C64 || dtype == ACCEL_DTYPE_C128;
}

static gboolean
is_real (AccelDType dtype)
{
  return dtype == ACCEL_DTYPE_F32 || dtype == ACCEL_DTYPE_F64;
}

static gboolean type_error (AccelStage *stage, const AccelType *in,
    GError **error, const char *format, ...) G_GNUC_PRINTF (4, 5);

static gboolean
type_error (AccelStage *stage, const AccelType *in, GError **error,
    const char *format, ...)
{
  g_autofree gchar *what = NULL;
  g_autofree gchar *offered = accel_type_to_string (in);
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_TYPE_MISMATCH,
      "stage '%s' (%s): %s; the input is %s", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage), what, offered);
  return FALSE;
}

/* everything about the transform of @in: its type, sizes and output */
static gboolean
resolve (AccelFft *self, const AccelType *in, FftPlan *plan, GError **error)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (self);
  AccelStage *stage = ACCEL_STAGE (self);
  int sign = ACCEL_FFT_GET_CLASS (self)->sign;
  gint rank, first;
  gint64 n_last_in, n_last_out;

  memset (plan, 0, sizeof (*plan));
  plan->in_type = *in;
  if (in->kind != ACCEL_KIND_TENSOR
      || !(is_real (in->dtype) || is_complex (in->dtype)))
    return type_error (
        stage, in, error, "it transforms tensors of f32, f64, c64 or c128");

  /* the direction first: either input type would be wrong for these */
  if (priv->type == ACCEL_FFT_TYPE_R2C && sign > 0)
    return type_error (stage, in, error,
        "type r2c is a forward transform (fft.forward); the inverse of r2c "
        "is c2r");
  if (is_complex (in->dtype))
    {
      if (priv->type == ACCEL_FFT_TYPE_R2C)
        return type_error (
            stage, in, error, "type r2c takes real input (f32 or f64)");
      if (priv->type == ACCEL_FFT_TYPE_C2R && sign < 0)
        return type_error (
            stage, in, error, "type c2r is an inverse transform (fft.inverse)");
      plan->type = priv->type == ACCEL_FFT_TYPE_C2R ? ACCEL_FFT_TYPE_C2R
                                                    : ACCEL_FFT_TYPE_C2C;
    }
  else
    {
      if (sign > 0)
        return type_error (stage, in, error,
            "the inverse transform takes complex input (c64 or c128); "
            "type c2r makes real output");
      if (priv->type == ACCEL_FFT_TYPE_C2C || priv->type == ACCEL_FFT_TYPE_C2R)
        return type_error (stage, in, error,
            "type %s takes complex input (c64 or c128)",
            priv->type == ACCEL_FFT_TYPE_C2C ? "c2c" : "c2r");
      plan->type = ACCEL_FFT_TYPE_R2C;
    }
  plan->dbl = in->dtype == ACCEL_DTYPE_F64 || in->dtype == ACCEL_DTYPE_C128;

  rank = priv->rank > 0 ? priv->rank : MIN (in->n_dims, 3);
  /* a rank given names its parameter: a file's error is at its value */
  if (priv->rank > 0 && in->n_dims < rank)
    return type_error (stage, in, error,
        "rank %d transforms a tensor of at least %d dimensions", rank, rank);
  if (in->n_dims < 1)
    return type_error (
        stage, in, error, "a transform needs a tensor of at least 1 dimension");
  for (gint i = 0; i < in->n_dims; i++)
    if (in->dims[i] < 1)
      return type_error (stage, in, error, "every dimension must be fixed");
  plan->rank = rank;
  first = in->n_dims - rank;
  plan->batch = 1;
  for (gint i = 0; i < first; i++)
    plan->batch *= in->dims[i];
  for (gint i = 0; i < rank; i++)
    plan->n[i] = in->dims[first + i];

  n_last_in = in->dims[in->n_dims - 1];
  n_last_out = n_last_in;
  if (plan->type == ACCEL_FFT_TYPE_C2R)
    {
      gint64 real
          = priv->real_length > 0 ? priv->real_length : 2 * (n_last_in - 1);
      /* one complex value makes one real value (not 0) */
      g_autofree gchar *even
          = n_last_in > 1 ? g_strdup_printf (
                "%" G_GINT64_FORMAT " or ", 2 * (n_last_in - 1))
                          : g_strdup ("");

      if (real < 1 || real / 2 + 1 != n_last_in)
        return type_error (stage, in, error,
            "a c2r transform of a last dimension of %" G_GINT64_FORMAT
            " complex values makes %s%" G_GINT64_FORMAT
            " real value%s, not %" G_GINT64_FORMAT " (property real-length%s)",
            n_last_in, even, 2 * (n_last_in - 1) + 1, n_last_in > 1 ? "s" : "",
            real, priv->real_length > 0 ? "" : " unset: 2 (m - 1)");
      plan->n[rank - 1] = real;
      n_last_out = real;
    }
  else if (priv->real_length > 0)
    {
      /* set for a transform that has no real output: a mistake, not a no-op */
      return type_error (stage, in, error,
          "real-length (%" G_GINT64_FORMAT ") sizes the real output of a c2r "
          "transform; this one is %s",
          priv->real_length, plan->type == ACCEL_FFT_TYPE_R2C ? "r2c" : "c2c");
    }
  if (plan->type == ACCEL_FFT_TYPE_R2C)
    n_last_out = n_last_in / 2 + 1;

  plan->in_elems = n_last_in;
  plan->out_elems = n_last_out;
  for (gint i = 0; i < rank - 1; i++)
    {
      plan->in_elems *= plan->n[i];
      plan->out_elems *= plan->n[i];
    }

  plan->out_type = *in;
  plan->out_type.memory = ACCEL_MEMORY_DEVICE;
  plan->out_type.dims[in->n_dims - 1] = n_last_out;
  if (plan->type == ACCEL_FFT_TYPE_R2C)
    plan->out_type.dtype = plan->dbl ? ACCEL_DTYPE_C128 : ACCEL_DTYPE_C64;
  else if (plan->type == ACCEL_FFT_TYPE_C2R)
    plan->out_type.dtype = plan->dbl ? ACCEL_DTYPE_F64 : ACCEL_DTYPE_F32;
  plan->in_size = accel_type_get_size (in);
  plan->out_size = accel_type_get_size (&plan->out_type);
  return TRUE;
}

static gboolean
accel_fft_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  FftPlan plan;

  if (!resolve (ACCEL_FFT (stage), &in_types[0], &plan, error))
    return FALSE;
  out_types[0] = plan.out_type;
  return TRUE;
}

/* the number of points of one transform: the inverse of the normalisation
 * factor */
static double
n_points (const FftPlan *plan)
{
  double n = 1.0;

  for (gint i = 0; i < plan->rank; i++)
    n *= (double)plan->n[i];
  return n;
}

/* GPU */

static gboolean
make_cufft_plan (AccelFft *self, FftPlan *plan, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  long long n[3];
  cufftType type;
  size_t work = 0;

  for (gint i = 0; i < plan->rank; i++)
    n[i] = plan->n[i];
  switch (plan->type)
    {
    case ACCEL_FFT_TYPE_R2C:
      type = plan->dbl ? CUFFT_D2Z : CUFFT_R2C;
      break;
    case ACCEL_FFT_TYPE_C2R:
      type = plan->dbl ? CUFFT_Z2D : CUFFT_C2R;
      break;
    default:
      type = plan->dbl ? CUFFT_Z2Z : CUFFT_C2C;
      break;
    }

  if (!accel_cufft_check (stage, cufftCreate (&plan->cufft), error))
    return FALSE;
  plan->have_cufft = TRUE;
  /* no embedding: the packed row-major layout, as FFTW's */
  if (!accel_cufft_check (stage,
          cufftMakePlanMany64 (plan->cufft, plan->rank, n, NULL, 1, 0, NULL, 1,
              0, type, plan->batch, &work),
          error))
    return FALSE;
  g_debug ("stage %s: cuFFT plan for %" G_GINT64_FORMAT
           " transforms, %zu bytes of work area",
      accel_stage_get_name (stage), plan->batch, work);
  return TRUE;
}

static gboolean
ensure_gpu_scratch (
    AccelFft *self, gsize size, cudaStream_t stream, GError **error)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (self);

  if (priv->scratch_size >= size)
    return TRUE;
  if (priv->scratch
      && !accel_cuda_check (cudaFreeAsync (priv->scratch, stream), error))
    return FALSE;
  priv->scratch = NULL;
  priv->scratch_size = 0;
  if (!accel_cuda_check (cudaMallocAsync (&priv->scratch, size, stream), error))
    return FALSE;
  priv->scratch_size = size;
  return TRUE;
}

static gboolean
process_gpu (AccelFft *self, FftPlan *plan, AccelFrame *frame, GError **error)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (self);
  AccelStage *stage = ACCEL_STAGE (self);
  int sign = ACCEL_FFT_GET_CLASS (self)->sign;
  cudaStream_t stream = accel_stream_get_handle (frame->stream);
  gpointer in = accel_buffer_get_data (frame->inputs[0]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  cufftResult status;

  if (priv->bound_stream != stream)
    {
      for (guint i = 0; i < priv->plans->len; i++)
        {
          FftPlan *p = priv->plans->pdata[i];
          if (p->have_cufft
              && !accel_cufft_check (
                  stage, cufftSetStream (p->cufft, stream), error))
            return FALSE;
        }
      priv->bound_stream = stream;
    }

  if (plan->type == ACCEL_FFT_TYPE_C2R)
    {
      if (!ensure_gpu_scratch (self, plan->in_size, stream, error)
          || !accel_cuda_check (
              cudaMemcpyAsync (priv->scratch, in, plan->in_size,
                  cudaMemcpyDeviceToDevice, stream),
              error))
        return FALSE;
      in = priv->scratch;
    }

  switch (plan->type)
    {
    case ACCEL_FFT_TYPE_R2C:
      status = plan->dbl ? cufftExecD2Z (plan->cufft, in, out)
                         : cufftExecR2C (plan->cufft, in, out);
      break;
    case ACCEL_FFT_TYPE_C2R:
      status = plan->dbl ? cufftExecZ2D (plan->cufft, in, out)
                         : cufftExecC2R (plan->cufft, in, out);
      break;
    default:
      status = plan->dbl ? cufftExecZ2Z (plan->cufft, in, out, sign)
                         : cufftExecC2C (plan->cufft, in, out, sign);
      break;
    }
  if (!accel_cufft_check (stage, status, error))
    return FALSE;

  if (priv->normalize)
    {
      size_t n
          = plan->out_size / (plan->dbl ? sizeof (double) : sizeof (float));
      double f = 1.0 / n_points (plan);
      if (!accel_cuda_check (
              plan->dbl ? accel_fft_scale_f64 (stream, out, n, f)
                        : accel_fft_scale_f32 (stream, out, n, (float)f),
              error))
        return FALSE;
    }
  return TRUE;
}

/* host */

/* FFTW's guru interface: one transform's dimensions and the batch */
static void
guru_dims (const FftPlan *plan, fftw_iodim64 *dims, fftw_iodim64 *howmany)
{
  gint64 is = 1, os = 1;

  for (gint i = plan->rank - 1; i >= 0; i--)
    {
      gint64 n_in = plan->n[i], n_out = plan->n[i];
      if (i == plan->rank - 1 && plan->type == ACCEL_FFT_TYPE_R2C)
        n_out = plan->n[i] / 2 + 1;
      if (i == plan->rank - 1 && plan->type == ACCEL_FFT_TYPE_C2R)
        n_in = plan->n[i] / 2 + 1;
      dims[i].n = plan->n[i];
      dims[i].is = is;
      dims[i].os = os;
      is *= n_in;
      os *= n_out;
    }
  howmany->n = plan->batch;
  howmany->is = plan->in_elems;
  howmany->os = plan->out_elems;
}

static gpointer
make_host_plan (
    const FftPlan *plan, int sign, gpointer in, gpointer out, unsigned flags)
{
  fftw_iodim64 dims[3], howmany;
  gpointer p;

  guru_dims (plan, dims, &howmany);
  /* the c2r input is our own copy; the others keep theirs */
  flags |= FFTW_ESTIMATE
           | (plan->type == ACCEL_FFT_TYPE_C2R ? FFTW_DESTROY_INPUT
                                               : FFTW_PRESERVE_INPUT);
  g_mutex_lock (&planner_lock);
  /* fftw_iodim64 and fftwf_iodim64 are the same struct */
  switch (plan->type)
    {
    case ACCEL_FFT_TYPE_R2C:
      p = plan->dbl ? (gpointer)fftw_plan_guru64_dft_r2c (
              plan->rank, dims, 1, &howmany, in, out, flags)
                    : (gpointer)fftwf_plan_guru64_dft_r2c (plan->rank,
                        (fftwf_iodim64 *)dims, 1, (fftwf_iodim64 *)&howmany, in,
                        out, flags);
      break;
    case ACCEL_FFT_TYPE_C2R:
      p = plan->dbl ? (gpointer)fftw_plan_guru64_dft_c2r (
              plan->rank, dims, 1, &howmany, in, out, flags)
                    : (gpointer)fftwf_plan_guru64_dft_c2r (plan->rank,
                        (fftwf_iodim64 *)dims, 1, (fftwf_iodim64 *)&howmany, in,
                        out, flags);
      break;
    default:
      p = plan->dbl ? (gpointer)fftw_plan_guru64_dft (
              plan->rank, dims, 1, &howmany, in, out, sign, flags)
                    : (gpointer)fftwf_plan_guru64_dft (plan->rank,
                        (fftwf_iodim64 *)dims, 1, (fftwf_iodim64 *)&howmany, in,
                        out, sign, flags);
      break;
    }
  g_mutex_unlock (&planner_lock);
  return p;
}

static void
destroy_host_plan (gboolean dbl, gpointer p)
{
  if (!p)
    return;
  g_mutex_lock (&planner_lock);
  if (dbl)
    fftw_destroy_plan (p);
  else
    fftwf_destroy_plan (p);
  g_mutex_unlock (&planner_lock);
}

static int
alignment_of (gboolean dbl, gpointer p)
{
  return dbl ? fftw_alignment_of (p) : fftwf_alignment_of (p);
}

static gboolean
process_host (AccelFft *self, FftPlan *plan, AccelFrame *frame, GError **error)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (self);
  AccelStage *stage = ACCEL_STAGE (self);
  int sign = ACCEL_FFT_GET_CLASS (self)->sign;
  gpointer in = accel_buffer_get_data (frame->inputs[0]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  gpointer p;

  if (plan->type == ACCEL_FFT_TYPE_C2R)
    {
      if (priv->scratch_size < plan->in_size)
        {
          fftw_free (priv->scratch);
          priv->scratch = fftw_malloc (plan->in_size);
          priv->scratch_size = priv->scratch ? plan->in_size : 0;
          if (!priv->scratch)
            goto no_memory;
        }
      memcpy (priv->scratch, in, plan->in_size);
      in = priv->scratch;
    }

  /* made on first use, with this frame's buffers: FFTW_ESTIMATE plans do
   * not touch the arrays */
  if (!plan->host_plan)
    {
      plan->host_plan = make_host_plan (plan, sign, in, out, 0);
      if (!plan->host_plan)
        goto no_plan;
      plan->align_in = alignment_of (plan->dbl, in);
      plan->align_out = alignment_of (plan->dbl, out);
    }
  p = plan->host_plan;
  if (alignment_of (plan->dbl, in) != plan->align_in
      || alignment_of (plan->dbl, out) != plan->align_out)
    {
      if (!plan->host_plan_unaligned)
        plan->host_plan_unaligned
            = make_host_plan (plan, sign, in, out, FFTW_UNALIGNED);
      if (!plan->host_plan_unaligned)
        goto no_plan;
      p = plan->host_plan_unaligned;
    }

  switch (plan->type)
    {
    case ACCEL_FFT_TYPE_R2C:
      if (plan->dbl)
        fftw_execute_dft_r2c (p, in, out);
      else
        fftwf_execute_dft_r2c (p, in, out);
      break;
    case ACCEL_FFT_TYPE_C2R:
      if (plan->dbl)
        fftw_execute_dft_c2r (p, in, out);
      else
        fftwf_execute_dft_c2r (p, in, out);
      break;
    default:
      if (plan->dbl)
        fftw_execute_dft (p, in, out);
      else
        fftwf_execute_dft (p, in, out);
      break;
    }

  if (priv->normalize)
    {
      size_t n
          = plan->out_size / (plan->dbl ? sizeof (double) : sizeof (float));
      double f = 1.0 / n_points (plan);
      if (plan->dbl)
        accel_fft_scale_f64_host (out, n, f);
      else
        accel_fft_scale_f32_host (out, n, (float)f);
    }
  return TRUE;

  /* ERRORS */
no_memory:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY,
        "stage '%s' (%s): cannot allocate %zu bytes of host memory",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage),
        plan->in_size);
    return FALSE;
  }
no_plan:
  {
    g_autofree gchar *t = accel_type_to_string (&plan->in_type);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
        "stage '%s' (%s): FFTW cannot plan the transform of %s",
        accel_stage_get_name (stage), accel_stage_get_kind_name (stage), t);
    return FALSE;
  }
}

/* the plan cache */

/* releases what @plan holds; the struct stays */
static void
release_plan (AccelStage *stage, FftPlan *plan)
{
  if (plan->have_cufft)
    accel_cufft_check (stage, cufftDestroy (plan->cufft), NULL);
  plan->have_cufft = FALSE;
  destroy_host_plan (plan->dbl, plan->host_plan);
  destroy_host_plan (plan->dbl, plan->host_plan_unaligned);
  plan->host_plan = plan->host_plan_unaligned = NULL;
}

static FftPlan *
lookup_plan (AccelFft *self, const AccelType *in, GError **error)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (self);
  AccelStage *stage = ACCEL_STAGE (self);
  g_autofree FftPlan *plan = NULL;

  if (G_LIKELY (priv->last && accel_type_equal (&priv->last->in_type, in)))
    return priv->last;
  for (guint i = 0; i < priv->plans->len; i++)
    {
      FftPlan *p = priv->plans->pdata[i];
      if (accel_type_equal (&p->in_type, in))
        return priv->last = p;
    }

  plan = g_new0 (FftPlan, 1);
  if (!resolve (self, in, plan, error))
    return NULL;
  if (!accel_stage_is_host (stage))
    {
      cudaStream_t stream
          = accel_stream_get_handle (accel_stage_get_stream (stage));
      if (!make_cufft_plan (self, plan, error)
          || !accel_cufft_check (
              stage, cufftSetStream (plan->cufft, stream), error))
        {
          release_plan (stage, plan);
          return NULL;
        }
      priv->bound_stream = stream;
      if (plan->type == ACCEL_FFT_TYPE_C2R
          && !ensure_gpu_scratch (self, plan->in_size, stream, error))
        {
          release_plan (stage, plan);
          return NULL;
        }
    }
  g_ptr_array_add (priv->plans, plan);
  return priv->last = g_steal_pointer (&plan);
}

static gboolean
accel_fft_start (AccelStage *stage, GError **error)
{
  /* the negotiated shape's plan now, so the first frame does not wait */
  return lookup_plan (
             ACCEL_FFT (stage), accel_stage_get_input_type (stage, 0), error)
         != NULL;
}

static void
accel_fft_stop (AccelStage *stage)
{
  AccelFft *self = ACCEL_FFT (stage);
  AccelFftPrivate *priv = accel_fft_get_instance_private (self);

  for (guint i = 0; i < priv->plans->len; i++)
    release_plan (stage, priv->plans->pdata[i]);
  g_ptr_array_set_size (priv->plans, 0);
  priv->last = NULL;
  priv->bound_stream = NULL;
  if (priv->scratch && accel_stage_is_host (stage))
    fftw_free (priv->scratch);
  else if (priv->scratch)
    accel_cuda_check (
        cudaFreeAsync (priv->scratch,
            accel_stream_get_handle (accel_stage_get_stream (stage))),
        NULL);
  priv->scratch = NULL;
  priv->scratch_size = 0;
}

static AccelFlow
accel_fft_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelFft *self = ACCEL_FFT (stage);
  const AccelType *in = accel_buffer_peek_type (frame->inputs[0]);
  FftPlan *plan = lookup_plan (self, in, error);

  if (!plan)
    return ACCEL_FLOW_ERROR;
  if (accel_buffer_get_size (frame->outputs[0]) < plan->out_size)
    {
      g_autofree gchar *t = accel_type_to_string (in);
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT,
          "stage '%s' (%s): the output buffer is too small for %s",
          accel_stage_get_name (stage), accel_stage_get_kind_name (stage), t);
      return ACCEL_FLOW_ERROR;
    }
  if (accel_stage_is_host (stage) ? !process_host (self, plan, frame, error)
                                  : !process_gpu (self, plan, frame, error))
    return ACCEL_FLOW_ERROR;
  return ACCEL_FLOW_OK;
}

static void
accel_fft_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (ACCEL_FFT (object));

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_TYPE:
      priv->type = g_value_get_enum (value);
      break;
    case PROP_RANK:
      priv->rank = g_value_get_int (value);
      break;
    case PROP_REAL_LENGTH:
      priv->real_length = g_value_get_int64 (value);
      break;
    case PROP_NORMALIZE:
      priv->normalize = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_fft_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (ACCEL_FFT (object));

  switch (prop_id)
    {
    case PROP_TYPE:
      g_value_set_enum (value, priv->type);
      break;
    case PROP_RANK:
      g_value_set_int (value, priv->rank);
      break;
    case PROP_REAL_LENGTH:
      g_value_set_int64 (value, priv->real_length);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, priv->normalize);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_fft_finalize (GObject *object)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (ACCEL_FFT (object));

  g_ptr_array_unref (priv->plans);
  G_OBJECT_CLASS (accel_fft_parent_class)->finalize (object);
}

static void
accel_fft_class_init (AccelFftClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  AccelType in, out;

  gobject_class->set_property = accel_fft_set_property;
  gobject_class->get_property = accel_fft_get_property;
  gobject_class->finalize = accel_fft_finalize;
  stage_class->negotiate = accel_fft_negotiate;
  stage_class->start = accel_fft_start;
  stage_class->stop = accel_fft_stop;
  stage_class->process = accel_fft_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_TYPE,
      g_param_spec_enum ("type", "Type",
          "auto (c2c for complex input, r2c for real input), c2c, r2c "
          "(forward only: last dimension n becomes n/2+1) or c2r (inverse "
          "only: last dimension m becomes real-length)",
          ACCEL_TYPE_FFT_TYPE, ACCEL_FFT_TYPE_AUTO, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_RANK,
      g_param_spec_int ("rank", "Rank",
          "Dimensions of one transform, taken from the innermost dimensions; "
          "the outer ones are the batch. 0: all of them, at most 3",
          0, 3, 0, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_REAL_LENGTH,
      g_param_spec_int64 ("real-length", "Real length",
          "c2r only: length of the real output's last dimension, 2(m-1) or "
          "2(m-1)+1 for m complex inputs. 0: 2(m-1)",
          0, G_MAXINT64, 0, flags | ACCEL_PARAM_FIXED));
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Multiply the result by 1/N, N the number of points of one "
          "transform. Transforms are unnormalised otherwise (as cuFFT and "
          "FFTW): inverse(forward(x)) = N x",
          FALSE, flags));

  accel_type_init_tensor (
      &in, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, ACCEL_RANK_ANY, NULL);
  out = in;
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "in", &in,
      "f32, f64 (real), c64 or c128 (complex) tensor; the innermost rank "
      "dimensions are transformed, the others are the batch");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &out,
      "the transform: same shape for c2c; last dimension n/2+1 for r2c, "
      "real-length for c2r");
}

static void
accel_fft_init (AccelFft *self)
{
  AccelFftPrivate *priv = accel_fft_get_instance_private (self);

  priv->plans = g_ptr_array_new_with_free_func (g_free);
}
