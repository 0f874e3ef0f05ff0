/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NPP's closest equivalents of the image kernels (docs/benchmarks.md says
 * where they differ): RGBA8 in every case, edges replicated where NPP has a
 * border mode, scratch buffers allocated once, outside the timed runs */
#include "bench-image-npp.h"

#ifdef ACCEL_BENCH_HAVE_NPP

#include <cuda_runtime.h>
#include <nppcore.h>
#include <nppi_color_conversion.h>
#include <nppi_data_exchange_and_initialization.h>
#include <nppi_filtering_functions.h>
#include <nppi_geometry_transforms.h>
#include <nppi_threshold_and_compare_operations.h>

struct _BenchNpp
{
  NppStreamContext ctx;
  Npp8u *scratch;    /* NPP's own work buffer, large enough for every case */
  Npp16s *scratch16; /* Sobel's magnitude plane */
  Npp8u *gray;       /* Sobel's luma plane */
  Npp32f *taps;      /* the Gaussian's taps: NPP reads them on the device */
  size_t scratch_size;
};

#define SCRATCH_BYTES ((size_t)256 << 20)

gboolean
bench_npp_built (void)
{
  return TRUE;
}

BenchNpp *
bench_npp_new (void *stream)
{
  BenchNpp *npp = g_new0 (BenchNpp, 1);
  struct cudaDeviceProp prop;
  unsigned flags = 0;

  if (cudaGetDevice (&npp->ctx.nCudaDeviceId) != cudaSuccess
      || cudaGetDeviceProperties (&prop, npp->ctx.nCudaDeviceId) != cudaSuccess
      || cudaStreamGetFlags (stream, &flags) != cudaSuccess)
    g_error ("NPP: cannot read the device's properties");
  npp->ctx.hStream = stream;
  npp->ctx.nMultiProcessorCount = prop.multiProcessorCount;
  npp->ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  npp->ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  npp->ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  npp->ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  npp->ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  npp->ctx.nStreamFlags = flags;
  npp->scratch_size = SCRATCH_BYTES;
  if (cudaMalloc ((void **)&npp->scratch, SCRATCH_BYTES) != cudaSuccess
      || cudaMalloc ((void **)&npp->scratch16, SCRATCH_BYTES) != cudaSuccess
      || cudaMalloc ((void **)&npp->gray, SCRATCH_BYTES / 2) != cudaSuccess
      || cudaMalloc ((void **)&npp->taps,
             sizeof (Npp32f) * (2 * ACCEL_IMAGE_MAX_RADIUS + 1))
             != cudaSuccess)
    g_error ("NPP: cannot allocate its scratch buffers");
  return npp;
}

void
bench_npp_free (BenchNpp *npp)
{
  if (!npp)
    return;
  cudaFree (npp->scratch);
  cudaFree (npp->scratch16);
  cudaFree (npp->gray);
  cudaFree (npp->taps);
  g_free (npp);
}

gboolean
bench_npp_has (const TestCase *tc, int in_format)
{
  /* NPP's NV12 decoder is BT.601's */
  if (in_format == ACCEL_IMAGE_NV12)
    return tc->kernel == TEST_KERNEL_CONVERT
           && tc->dst_format == ACCEL_IMAGE_RGBA8 && tc->yuv_matrix == 0
           && !tc->yuv_limited;
  if (in_format != ACCEL_IMAGE_RGBA8)
    return FALSE;
  /* NPP has no four-channel to NV12 conversion */
  return !(
      tc->kernel == TEST_KERNEL_CONVERT && tc->dst_format == ACCEL_IMAGE_NV12);
}

static int
run_convert (BenchNpp *npp, const TestFrame *in, const Npp8u *s,
    const TestFrame *out, Npp8u *d)
{
  NppiSize size = { in->width, in->height };
  int sp = (int)in->pitch, dp = (int)out->pitch;

  if (in->format == ACCEL_IMAGE_NV12)
    {
      const Npp8u *planes[2] = { s, s + in->pitch * (size_t)in->height };
      /* three channels out: NPP's four-channel NV12 decoders are newer
       * than the toolkits this runs on */
      return nppiNV12ToRGB_8u_P2C3R_Ctx (
          planes, sp, d, in->width * 3, size, npp->ctx);
    }
  switch (out->format)
    {
    case ACCEL_IMAGE_BGRA8:
      {
        const int order[4] = { 2, 1, 0, 3 };
        return nppiSwapChannels_8u_C4R_Ctx (
            s, sp, d, dp, size, order, npp->ctx);
      }
    case ACCEL_IMAGE_GRAY8:
      return nppiRGBToGray_8u_AC4C1R_Ctx (s, sp, d, dp, size, npp->ctx);
    case ACCEL_IMAGE_I420:
      {
        size_t uo, vo, cp, step;
        Npp8u *planes[3];
        int steps[3];

        accel_image_chroma_layout (
            out->format, out->pitch, out->height, &uo, &vo, &cp, &step);
        planes[0] = d;
        planes[1] = d + uo;
        planes[2] = d + vo;
        steps[0] = dp;
        steps[1] = steps[2] = (int)cp;
        return nppiBGRToYUV420_8u_AC4P3R_Ctx (
            s, sp, planes, steps, size, npp->ctx);
      }
    case ACCEL_IMAGE_RGBAF32:
    default:
      return nppiScale_8u32f_C4R_Ctx (
          s, sp, (Npp32f *)d, dp, size, 0.0f, 1.0f, npp->ctx);
    }
}

int
bench_npp_run (BenchNpp *npp, const TestCase *tc, const TestFrame *in,
    const void *src, const TestFrame *out, void *dst)
{
  const Npp8u *s = src;
  Npp8u *d = dst;
  NppiSize size = { in->width, in->height };
  NppiPoint origin = { 0, 0 };
  int sp = (int)in->pitch, dp = (int)out->pitch;

  switch (tc->kernel)
    {
    case TEST_KERNEL_GAUSSIAN_BLUR:
      {
        float w[2 * ACCEL_IMAGE_MAX_RADIUS + 1];
        int r = accel_gaussian_weights (tc->f, w), status;
        /* seven taps: NPP's fixed 7x7 mask (its own sigma); wider ones:
         * our taps through its filter of caller-given taps */
        if (r == 3)
          return nppiFilterGaussBorder_8u_C4R_Ctx (s, sp, size, origin, d, dp,
              size, NPP_MASK_SIZE_7_X_7, NPP_BORDER_REPLICATE, npp->ctx);
        status = cudaMemcpyAsync (npp->taps, w, sizeof (float) * (2 * r + 1),
            cudaMemcpyHostToDevice, npp->ctx.hStream);
        if (status != cudaSuccess)
          return status;
        return nppiFilterGaussAdvancedBorder_8u_C4R_Ctx (s, sp, size, origin, d,
            dp, size, 2 * r + 1, npp->taps, NPP_BORDER_REPLICATE, npp->ctx);
      }
    case TEST_KERNEL_BOX_BLUR:
      {
        NppiSize mask = { 2 * tc->n + 1, 2 * tc->n + 1 };
        NppiPoint anchor = { tc->n, tc->n };
        return nppiFilterBoxBorder_8u_C4R_Ctx (s, sp, size, origin, d, dp, size,
            mask, anchor, NPP_BORDER_REPLICATE, npp->ctx);
      }
    case TEST_KERNEL_UNSHARP:
      {
        float radius = (float)accel_gaussian_radius (tc->g);
        int need = 0;
        if (nppiFilterUnsharpGetBufferSize_8u_C4R (radius, tc->g, &need)
                != NPP_SUCCESS
            || (size_t)need > npp->scratch_size)
          return NPP_MEMORY_ALLOCATION_ERR;
        return nppiFilterUnsharpBorder_8u_C4R_Ctx (s, sp, origin, d, dp, size,
            radius, tc->g, tc->f, 0.0f, NPP_BORDER_REPLICATE, npp->scratch,
            npp->ctx);
      }
    case TEST_KERNEL_SOBEL:
      {
        /* luma first, as ours: NPP's gradient takes one channel */
        int status = nppiRGBToGray_8u_AC4C1R_Ctx (
            s, sp, npp->gray, in->width, size, npp->ctx);
        if (status != NPP_SUCCESS)
          return status;
        return nppiGradientVectorSobelBorder_8u16s_C1R_Ctx (npp->gray,
            in->width, size, origin, NULL, 0, NULL, 0, npp->scratch16,
            in->width * 2, NULL, 0, size, NPP_MASK_SIZE_3_X_3, nppiNormL2,
            NPP_BORDER_REPLICATE, npp->ctx);
      }
    case TEST_KERNEL_MEDIAN:
      {
        /* NPP's four-channel median has no border mode: it filters the
         * frame less a border of the radius, reading inside the frame */
        int r = tc->n / 2;
        NppiSize inner = { in->width - 2 * r, in->height - 2 * r };
        NppiSize mask = { tc->n, tc->n };
        NppiPoint anchor = { r, r };
        Npp32u need = 0;
        if (nppiFilterMedianGetBufferSize_8u_C4R_Ctx (
                inner, mask, &need, npp->ctx)
                != NPP_SUCCESS
            || need > npp->scratch_size)
          return NPP_MEMORY_ALLOCATION_ERR;
        return nppiFilterMedian_8u_C4R_Ctx (s + (size_t)r * in->pitch + 4 * r,
            sp, d + (size_t)r * out->pitch + 4 * r, dp, inner, mask, anchor,
            npp->scratch, npp->ctx);
      }
    case TEST_KERNEL_THRESHOLD:
      {
        /* below value + 1: 0, above value: 255; alpha left unwritten */
        const Npp8u lt[3]
            = { (Npp8u)(tc->f + 1), (Npp8u)(tc->f + 1), (Npp8u)(tc->f + 1) };
        const Npp8u gt[3] = { (Npp8u)tc->f, (Npp8u)tc->f, (Npp8u)tc->f };
        const Npp8u lo[3] = { 0, 0, 0 }, hi[3] = { 255, 255, 255 };
        return nppiThreshold_LTValGTVal_8u_AC4R_Ctx (
            s, sp, d, dp, size, lt, lo, gt, hi, npp->ctx);
      }
    case TEST_KERNEL_RESIZE:
      {
        NppiSize osize = { out->width, out->height };
        NppiRect srect = { 0, 0, in->width, in->height };
        NppiRect drect = { 0, 0, out->width, out->height };
        return nppiResize_8u_C4R_Ctx (s, sp, size, srect, d, dp, osize, drect,
            NPPI_INTER_LINEAR, npp->ctx);
      }
    case TEST_KERNEL_CONVERT:
    default:
      return run_convert (npp, in, s, out, d);
    }
}

#else /* no NPP */

gboolean
bench_npp_built (void)
{
  return FALSE;
}

BenchNpp *
bench_npp_new (void *stream)
{
  (void)stream;
  return NULL;
}

void
bench_npp_free (BenchNpp *npp)
{
  (void)npp;
}

gboolean
bench_npp_has (const TestCase *tc, int in_format)
{
  (void)tc;
  (void)in_format;
  return FALSE;
}

int
bench_npp_run (BenchNpp *npp, const TestCase *tc, const TestFrame *in,
    const void *src, const TestFrame *out, void *dst)
{
  (void)npp;
  (void)tc;
  (void)in;
  (void)src;
  (void)out;
  (void)dst;
  return -1;
}

#endif
