/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* image kernels: pixel formats, frame layout and the conventions every
 * image kernel and host reference of this folder shares
 *
 * Layout: a frame is @height rows of @pitch bytes (pitch >= width * bytes
 * per pixel); bytes between the end of a row and the next row are never
 * written. Planar 4:2:0 formats put their chroma planes right after the
 * luma plane, with a chroma pitch of (pitch + 1) / 2 samples:
 *   NV12: Y plane, then (height + 1) / 2 rows of interleaved U, V bytes,
 *         each row 2 * ((pitch + 1) / 2) bytes apart;
 *   I420: Y plane, U plane, V plane; the chroma planes have
 *         (height + 1) / 2 rows (pitch + 1) / 2 bytes apart.
 * With pitch == width this is the engine's tightly packed frame.
 *
 * Channels: RGBA8 and BGRA8 hold four uint8 channels in memory order
 * R,G,B,A and B,G,R,A, GRAY8 one uint8, RGBAF32 four floats R,G,B,A
 * (nominally 0..1). An integer result is a float clamped to [0, 255] and
 * rounded half up, (uint8_t) (v + 0.5f).
 *
 * Launchers take a cudaStream_t as void * and return the cudaError_t of
 * their launch (cudaErrorInvalidValue for arguments they cannot serve);
 * host references return 0, or the same codes. Source and destination
 * must not overlap. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /* the values of the engine's AccelFormat, so a stage passes its own */
  typedef enum
  {
    ACCEL_IMAGE_RGBA8 = 1,
    ACCEL_IMAGE_BGRA8 = 2,
    ACCEL_IMAGE_GRAY8 = 3,
    ACCEL_IMAGE_NV12 = 4,
    ACCEL_IMAGE_I420 = 5,
    ACCEL_IMAGE_RGBAF32 = 6,
  } AccelImageFormat;

/* return codes shared with the CUDA runtime's numbering */
#define ACCEL_IMAGE_OK 0
#define ACCEL_IMAGE_INVALID_VALUE 1 /* cudaErrorInvalidValue */
#define ACCEL_IMAGE_NO_MEMORY 2     /* cudaErrorMemoryAllocation */

/* widest stencil of the separable filters */
#define ACCEL_IMAGE_MAX_RADIUS 32

  /* bytes of one pixel of a packed format (the luma plane for 4:2:0), 0 for
   * an unknown format */
  static inline size_t accel_image_bytes_per_pixel (int format)
  {
    switch (format)
      {
      case ACCEL_IMAGE_RGBA8:
      case ACCEL_IMAGE_BGRA8:
        return 4;
      case ACCEL_IMAGE_GRAY8:
      case ACCEL_IMAGE_NV12:
      case ACCEL_IMAGE_I420:
        return 1;
      case ACCEL_IMAGE_RGBAF32:
        return 16;
      default:
        return 0;
      }
  }

  /* whether @format is one pixel per element of one plane: RGBA8, BGRA8,
   * GRAY8 or RGBAF32 */
  static inline int accel_image_format_is_packed (int format)
  {
    return format == ACCEL_IMAGE_RGBA8 || format == ACCEL_IMAGE_BGRA8
           || format == ACCEL_IMAGE_GRAY8 || format == ACCEL_IMAGE_RGBAF32;
  }

  /* pitch in bytes of the chroma planes of NV12 (interleaved) or I420 (each) */
  static inline size_t accel_image_chroma_pitch (int format, size_t pitch)
  {
    size_t samples = (pitch + 1) / 2;

    return format == ACCEL_IMAGE_NV12 ? 2 * samples : samples;
  }

  /* where the chroma of a 4:2:0 frame lies, relative to the frame's start:
   * U sample i of chroma row j is at u_offset + j * chroma_pitch + i * step,
   * V at v_offset + j * chroma_pitch + i * step */
  static inline void accel_image_chroma_layout (int format, size_t pitch,
      int height, size_t *u_offset, size_t *v_offset, size_t *chroma_pitch,
      size_t *step)
  {
    size_t cp = accel_image_chroma_pitch (format, pitch);

    *u_offset = pitch * (size_t)height;
    *chroma_pitch = cp;
    if (format == ACCEL_IMAGE_NV12)
      {
        *v_offset = *u_offset + 1;
        *step = 2;
      }
    else
      {
        *v_offset = *u_offset + cp * (size_t)((height + 1) / 2);
        *step = 1;
      }
  }

  /* bytes a frame of the given layout spans */
  static inline size_t accel_image_frame_size (
      int format, int width, int height, size_t pitch)
  {
    size_t luma = pitch * (size_t)height;
    size_t ch = (size_t)(height + 1) / 2;

    (void)width;
    switch (format)
      {
      case ACCEL_IMAGE_NV12:
        return luma + accel_image_chroma_pitch (format, pitch) * ch;
      case ACCEL_IMAGE_I420:
        return luma + 2 * accel_image_chroma_pitch (format, pitch) * ch;
      default:
        return luma;
      }
  }

  /* whether the arguments every image launcher checks first are sane */
  static inline int accel_image_args_valid (
      int format, const void *data, size_t pitch, int width, int height)
  {
    size_t bpp = accel_image_bytes_per_pixel (format);

    return bpp != 0 && data != NULL && width > 0 && height > 0
           && pitch >= bpp * (size_t)width;
  }

#ifdef __cplusplus
}
#endif
