/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nvrtc plugin: nvrtc.kernel, a user's CUDA kernel compiled by NVRTC
 * when the stage starts and launched once per frame on its stream */
#define G_LOG_DOMAIN "accel-nvrtc"

#include <cuda_runtime_api.h>

#include "accelnvrtccache.h"
#include "accelnvrtckernel.h"

/* a kernel's source is text a person wrote: anything longer is a mistake */
#define MAX_SOURCE_BYTES (16 * 1024 * 1024)

struct _AccelNvrtcKernel
{
  AccelStage parent;

  gchar *source;
  gchar *file;
  gchar *entry;
  gchar *options;
  guint block;
  guint grid;
  gchar *out_dtype;
  gboolean cache;

  gchar *file_source; /* the file's contents, read when the graph is prepared */
  long long n;
  cudaLibrary_t library;
  cudaKernel_t kernel;
};

G_DEFINE_FINAL_TYPE (AccelNvrtcKernel, accel_nvrtc_kernel, ACCEL_TYPE_STAGE)

enum
{
  PROP_0,
  PROP_SOURCE,
  PROP_FILE,
  PROP_ENTRY,
  PROP_OPTIONS,
  PROP_BLOCK,
  PROP_GRID,
  PROP_OUT_DTYPE,
  PROP_CACHE,
};

static gboolean stage_error (AccelStage *stage, GError **error, AccelError code,
    const char *format, ...) G_GNUC_PRINTF (4, 5);

/* sets @error to "stage 'name' (nvrtc.kernel): what" */
static gboolean
stage_error (
    AccelStage *stage, GError **error, AccelError code, const char *format, ...)
{
  g_autofree gchar *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ACCEL_ERROR, code, "stage '%s' (%s): %s",
      accel_stage_get_name (stage), accel_stage_get_kind_name (stage), what);
  return FALSE;
}

/* the file's source, read once when the graph is prepared: a file that
 * cannot be read is an invalid pipeline (as any source's file), and a
 * restart compiles what the run started with, whatever became of the file */
static gboolean
read_file (AccelNvrtcKernel *self, GError **error)
{
  g_autoptr (GError) local = NULL;

  g_clear_pointer (&self->file_source, g_free);
  if (!self->file)
    return TRUE;
  /* a device or a FIFO named by mistake is refused, not read for good */
  if (!accel_file_read_capped (self->file, MAX_SOURCE_BYTES,
          "a kernel's source", &self->file_source, NULL, &local))
    return stage_error (ACCEL_STAGE (self), error, ACCEL_ERROR_INVALID_PIPELINE,
        "cannot read the kernel source %s: %s", self->file, local->message);
  return TRUE;
}

/* the checks that need no GPU: the properties, the file, and the backend */
static gboolean
check_config (AccelNvrtcKernel *self, GError **error)
{
  AccelStage *stage = ACCEL_STAGE (self);
  g_autoptr (GError) local = NULL;

  if ((self->source == NULL) == (self->file == NULL))
    return stage_error (stage, error, ACCEL_ERROR_INVALID_PIPELINE,
        "%s; give the kernel's CUDA source inline in 'source' or its path "
        "in 'file'",
        self->source ? "both 'source' and 'file' are set"
                     : "neither 'source' nor 'file' is set");
  if (!self->entry || !*self->entry)
    return stage_error (stage, error, ACCEL_ERROR_INVALID_PIPELINE,
        "'entry' is empty; it names the kernel's __global__ function");
  if (self->out_dtype && *self->out_dtype
      && accel_dtype_from_string (self->out_dtype) == ACCEL_DTYPE_ANY)
    return stage_error (stage, error, ACCEL_ERROR_INVALID_PIPELINE,
        "unknown out-dtype \"%s\"", self->out_dtype);
  if (!accel_nvrtc_split_options (self->options, NULL, &local))
    return stage_error (
        stage, error, ACCEL_ERROR_INVALID_PIPELINE, "%s", local->message);
  if (!read_file (self, error))
    return FALSE;
  if (accel_stage_is_host (stage))
    return stage_error (stage, error, ACCEL_ERROR_NOT_SUPPORTED,
        "runs CUDA kernels compiled at run time and needs a GPU; this graph "
        "runs on the host backend");
  return TRUE;
}

static gboolean
accel_nvrtc_kernel_negotiate (AccelStage *stage, const AccelType *in_types,
    AccelType *out_types, GError **error)
{
  AccelNvrtcKernel *self = ACCEL_NVRTC_KERNEL (stage);
  AccelDType dtype = in_types[0].dtype;

  if (!check_config (self, error))
    return FALSE;
  if (self->out_dtype && *self->out_dtype)
    dtype = accel_dtype_from_string (self->out_dtype);
  out_types[0] = in_types[0];
  out_types[0].dtype = dtype;
  out_types[0].memory = ACCEL_MEMORY_DEVICE;
  self->n = (long long)accel_type_get_n_elements (&out_types[0]);
  return TRUE;
}

/* the kernel takes what process () passes: three parameters of 8 bytes
 * (in, out, n); any other list would be read from the wrong bytes */
static gboolean
check_signature (AccelNvrtcKernel *self, const char *name, GError **error)
{
  size_t offset, size;
  guint n = 0;
  gboolean eight = TRUE;

  while (n <= 3
         && cudaFuncGetParamInfo ((const void *)self->kernel, n, &offset, &size)
                == cudaSuccess)
    {
      eight = eight && size == 8;
      n++;
    }
  /* asking past the last parameter sets the last error */
  cudaGetLastError ();
  if (n == 3 && eight)
    return TRUE;
  return stage_error (ACCEL_STAGE (self), error, ACCEL_ERROR_INVALID_INPUT,
      "%s: '%s' takes %s%u parameter%s%s; it must be extern \"C\" "
      "__global__ void %s (const T *in, T *out, long long n)",
      name, self->entry, n > 3 ? "more than " : "", MIN (n, 3),
      n == 1 ? "" : "s", eight ? "" : ", not all of 8 bytes", self->entry);
}

static gboolean
accel_nvrtc_kernel_start (AccelStage *stage, GError **error)
{
  AccelNvrtcKernel *self = ACCEL_NVRTC_KERNEL (stage);
  g_autofree gchar *name = NULL;
  g_autofree gchar *arch = NULL;
  g_autofree gchar *cache_dir = NULL;
  g_autofree gchar *log = NULL;
  g_autoptr (GBytes) cubin = NULL;
  const char *source = self->file ? self->file_source : self->source;
  gboolean hit = FALSE;
  int status;
  gint major = 0, minor = 0;

  if (!source)
    return stage_error (stage, error, ACCEL_ERROR_INVALID_PIPELINE,
        "started before its graph was prepared: it has no kernel source");
  if (self->file)
    name = g_strdup (self->file);
  else
    name = g_strdup_printf ("%s.cu", accel_stage_get_name (stage));

  /* a CUBIN for exactly this GPU: no JIT from PTX when the module loads */
  accel_device_get_compute_capability (
      accel_stage_get_device (stage), &major, &minor);
  arch = g_strdup_printf ("sm_%d%d", major, minor);
  if (self->cache)
    cache_dir = accel_nvrtc_cache_get_dir ();
  cubin = accel_nvrtc_compile_full (
      source, name, self->options, arch, cache_dir, &hit, &log, error);
  if (!cubin)
    {
      g_prefix_error (error, "stage '%s' (%s): ", accel_stage_get_name (stage),
          accel_stage_get_kind_name (stage));
      return FALSE;
    }
  if (log)
    g_debug ("stage %s: NVRTC's log for %s:\n%s", accel_stage_get_name (stage),
        name, log);
  g_debug ("stage %s: %s for %s, %s", accel_stage_get_name (stage), name, arch,
      hit ? "from the cache" : "compiled");

  if (!accel_cuda_check (
          cudaLibraryLoadData (&self->library, g_bytes_get_data (cubin, NULL),
              NULL, NULL, 0, NULL, NULL, 0),
          error))
    goto failed;
  status = cudaLibraryGetKernel (&self->kernel, self->library, self->entry);
  if (status == cudaErrorSymbolNotFound)
    {
      cudaGetLastError ();
      stage_error (stage, error, ACCEL_ERROR_INVALID_INPUT,
          "%s has no __global__ function '%s'; declare it extern \"C\" "
          "__global__ void %s (const T *in, T *out, long long n), or set "
          "'entry'",
          name, self->entry, self->entry);
      goto failed;
    }
  if (!accel_cuda_check (status, error) || !check_signature (self, name, error))
    goto failed;
  return TRUE;

  /* ERRORS */
failed:
  if (self->library)
    accel_cuda_check (cudaLibraryUnload (self->library), NULL);
  self->library = NULL;
  self->kernel = NULL;
  return FALSE;
}

static void
accel_nvrtc_kernel_stop (AccelStage *stage)
{
  AccelNvrtcKernel *self = ACCEL_NVRTC_KERNEL (stage);

  if (self->library)
    accel_cuda_check (cudaLibraryUnload (self->library), NULL);
  self->library = NULL;
  self->kernel = NULL;
}

static AccelFlow
accel_nvrtc_kernel_process (
    AccelStage *stage, AccelFrame *frame, GError **error)
{
  AccelNvrtcKernel *self = ACCEL_NVRTC_KERNEL (stage);
  gconstpointer in = accel_buffer_get_data (frame->inputs[0]);
  gpointer out = accel_buffer_get_data (frame->outputs[0]);
  long long n = self->n;
  long long blocks = (n + self->block - 1) / self->block;
  void *args[] = { &in, &out, &n };
  dim3 grid = { self->grid, 1, 1 };
  dim3 block = { self->block, 1, 1 };

  if (G_UNLIKELY (!self->kernel))
    {
      stage_error (stage, error, ACCEL_ERROR_NOT_SUPPORTED,
          "has no kernel loaded; it needs a GPU");
      return ACCEL_FLOW_ERROR;
    }
  if (n == 0)
    return ACCEL_FLOW_OK;
  /* a derived grid covers n, up to the most blocks a launch can have; past
   * that the kernel needs a grid-stride loop */
  if (self->grid == 0)
    grid.x = (unsigned int)MIN (blocks, (long long)G_MAXINT32);
  return accel_cuda_check (
             cudaLaunchKernel ((const void *)self->kernel, grid, block, args, 0,
                 accel_stream_get_handle (frame->stream)),
             error)
             ? ACCEL_FLOW_OK
             : ACCEL_FLOW_ERROR;
}

/* an empty source or file is none: a YAML 'source:' left empty is unset,
 * and 'source=' moves a stage to its file */
static gchar *
dup_unless_empty (const GValue *value)
{
  const char *s = g_value_get_string (value);

  return s && *s ? g_strdup (s) : NULL;
}

static void
accel_nvrtc_kernel_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AccelNvrtcKernel *self = ACCEL_NVRTC_KERNEL (object);

  if (accel_stage_refuses_param (ACCEL_STAGE (object), pspec))
    return;

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_free (self->source);
      self->source = dup_unless_empty (value);
      break;
    case PROP_FILE:
      g_free (self->file);
      self->file = dup_unless_empty (value);
      break;
    case PROP_ENTRY:
      g_free (self->entry);
      self->entry = g_value_dup_string (value);
      break;
    case PROP_OPTIONS:
      g_free (self->options);
      self->options = g_value_dup_string (value);
      break;
    case PROP_BLOCK:
      self->block = g_value_get_uint (value);
      break;
    case PROP_GRID:
      self->grid = g_value_get_uint (value);
      break;
    case PROP_OUT_DTYPE:
      g_free (self->out_dtype);
      self->out_dtype = g_value_dup_string (value);
      break;
    case PROP_CACHE:
      self->cache = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_nvrtc_kernel_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AccelNvrtcKernel *self = ACCEL_NVRTC_KERNEL (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_string (value, self->source);
      break;
    case PROP_FILE:
      g_value_set_string (value, self->file);
      break;
    case PROP_ENTRY:
      g_value_set_string (value, self->entry);
      break;
    case PROP_OPTIONS:
      g_value_set_string (value, self->options);
      break;
    case PROP_BLOCK:
      g_value_set_uint (value, self->block);
      break;
    case PROP_GRID:
      g_value_set_uint (value, self->grid);
      break;
    case PROP_OUT_DTYPE:
      g_value_set_string (value, self->out_dtype);
      break;
    case PROP_CACHE:
      g_value_set_boolean (value, self->cache);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
accel_nvrtc_kernel_finalize (GObject *object)
{
  AccelNvrtcKernel *self = ACCEL_NVRTC_KERNEL (object);

  g_free (self->source);
  g_free (self->file);
  g_free (self->entry);
  g_free (self->options);
  g_free (self->out_dtype);
  g_free (self->file_source);
  G_OBJECT_CLASS (accel_nvrtc_kernel_parent_class)->finalize (object);
}

static void
accel_nvrtc_kernel_class_init (AccelNvrtcKernelClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  AccelStageClass *stage_class = ACCEL_STAGE_CLASS (klass);
  GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS;
  /* read when the graph is prepared or the kernel is compiled, at start:
   * a change while running would only be taken by a restart */
  GParamFlags fixed = flags | ACCEL_PARAM_FIXED;
  AccelType t;

  gobject_class->set_property = accel_nvrtc_kernel_set_property;
  gobject_class->get_property = accel_nvrtc_kernel_get_property;
  gobject_class->finalize = accel_nvrtc_kernel_finalize;
  stage_class->negotiate = accel_nvrtc_kernel_negotiate;
  stage_class->start = accel_nvrtc_kernel_start;
  stage_class->stop = accel_nvrtc_kernel_stop;
  stage_class->process = accel_nvrtc_kernel_process;
  stage_class->can_capture = accel_stage_can_capture_always;

  g_object_class_install_property (gobject_class, PROP_SOURCE,
      g_param_spec_string ("source", "Source",
          "The kernel's CUDA C++ source (or use 'file')", NULL, fixed));
  g_object_class_install_property (gobject_class, PROP_FILE,
      g_param_spec_string ("file", "File",
          "Path of a .cu file with the kernel's source (or use 'source')", NULL,
          fixed));
  g_object_class_install_property (gobject_class, PROP_ENTRY,
      g_param_spec_string ("entry", "Entry",
          "Name of the extern \"C\" __global__ function to launch", "kernel",
          fixed));
  g_object_class_install_property (gobject_class, PROP_OPTIONS,
      g_param_spec_string ("options", "Options",
          "Extra NVRTC options separated by spaces, such as "
          "\"-DGAIN=2 --use_fast_math\"",
          NULL, fixed));
  g_object_class_install_property (gobject_class, PROP_BLOCK,
      g_param_spec_uint (
          "block", "Block", "Threads per block", 1, 1024, 256, flags));
  g_object_class_install_property (gobject_class, PROP_GRID,
      g_param_spec_uint ("grid", "Grid",
          "Blocks per launch; 0: enough to cover the output's elements, "
          "ceil (n / block)",
          0, G_MAXINT32, 0, flags));
  g_object_class_install_property (gobject_class, PROP_OUT_DTYPE,
      g_param_spec_string ("out-dtype", "Output dtype",
          "dtype of the output, such as \"i32\"; unset: the input's", NULL,
          fixed));
  g_object_class_install_property (gobject_class, PROP_CACHE,
      g_param_spec_boolean ("cache", "Cache",
          "Keep compiled kernels in $XDG_CACHE_HOME/accel/nvrtc (also off "
          "with ACCEL_NVRTC_CACHE=0)",
          TRUE, fixed));

  accel_stage_class_set_metadata (stage_class, "nvrtc.kernel",
      "A CUDA kernel compiled at run time by NVRTC, launched once per frame "
      "as kernel (const T *in, U *out, long long n); GPU only");
  accel_type_init_tensor (
      &t, ACCEL_DTYPE_ANY, ACCEL_MEMORY_DEVICE, ACCEL_RANK_ANY, NULL);
  accel_stage_class_add_port (stage_class, ACCEL_PORT_INPUT, "in", &t,
      "a tensor of any dtype and shape");
  accel_stage_class_add_port (stage_class, ACCEL_PORT_OUTPUT, "out", &t,
      "the input's shape, and its dtype unless out-dtype says otherwise");
}

static void
accel_nvrtc_kernel_init (AccelNvrtcKernel *self)
{
}
