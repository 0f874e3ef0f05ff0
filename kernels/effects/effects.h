/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* video effects: one fused per-pixel pass over an RGBA8 or BGRA8 frame
 *
 * An effects description is a list of effects separated by spaces or
 * commas, each a name, or name=value, or name=value/value...:
 *
 *   brightness=B      B in [-1, 1]: adds B * 255
 *   contrast=C        C in [0, 4]: (v - 127.5) * C + 127.5
 *   saturation=S      S in [0, 4]: luma + S * (v - luma), BT.601 luma
 *   hue=H             H in [-180, 180] degrees: rotation about the grey
 *                     axis (hue=120 turns red into green)
 *   sepia[=A]         A in [0, 1], 1 when bare: towards the sepia tone
 *   invert            255 - v
 *   gamma=G           G in [0.1, 10]: 255 * (v / 255)^(1 / G)
 *   vignette[=S[/R]]  strength S in [0, 1] (0.5 when bare), radius R in
 *                     [0, 1) (0.5): darkening starts at R of the way from
 *                     the centre to a corner and reaches S at the corners
 *   chroma-key=#rrggbb[/T[/F]]
 *                     alpha scaled by the distance of the pixel's chroma
 *                     (BT.601 U, V, / 255) to the key's: 0 within the
 *                     tolerance T in [0, 1] (0.3), rising linearly to 1
 *                     over the softness F in [0, 1] (0.1)
 *   difference        |this frame - the previous frame|
 *   echo[=D]          trail: max (this frame, D * trail), D in [0, 1]
 *                     (0.9 when bare)
 *
 * brightness, contrast, saturation, hue, sepia and invert compose into one
 * 3x4 colour matrix in the order written (they may repeat); every other
 * effect may appear once and takes its fixed place in the pass:
 *
 *   chroma key (on the input colour) -> colour matrix -> gamma -> vignette
 *   -> difference -> echo
 *
 * All of it works on R, G, B in 0..255 floats; values are clamped to
 * 0..255 after the matrix and rounded once, on output (image.h). Alpha is
 * kept, except by the chroma key. The temporal effects (difference, echo)
 * keep state from frame to frame in a history of float RGBA planes (one
 * per temporal effect, width * height * 16 bytes each, the difference's
 * first): the colour of the previous frame, and the trail. With the
 * history marked not valid (the first frame, or after a flush) the
 * difference is 0 and the trail starts from the frame itself.
 *
 * The GPU pass and the host reference compute every pixel with the same
 * functions (effects-pixel.h) and no contraction on either side, so their
 * outputs are equal to the bit, except with gamma: its power function is
 * the platform's own exp2f/log2f on each side, so outputs may differ by 1
 * (in uint8 units) where gamma is on. See image.h for the frame layout and
 * the return codes. */
#pragma once

#include "image/image.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* what an AccelEffectsParams holds, a set of these bits */
#define ACCEL_EFFECTS_MATRIX (1u << 0)
#define ACCEL_EFFECTS_GAMMA (1u << 1)
#define ACCEL_EFFECTS_VIGNETTE (1u << 2)
#define ACCEL_EFFECTS_CHROMA_KEY (1u << 3)
#define ACCEL_EFFECTS_DIFFERENCE (1u << 4)
#define ACCEL_EFFECTS_ECHO (1u << 5)
#define ACCEL_EFFECTS_TEMPORAL (ACCEL_EFFECTS_DIFFERENCE | ACCEL_EFFECTS_ECHO)

  /**
   * AccelEffectsParams:
   * @flags: the effects that are on, ACCEL_EFFECTS_* bits
   * @matrix: the colour matrix, rows R, G, B, each (r, g, b, offset) on the
   *   0..255 scale: R' = m[0] R + m[1] G + m[2] B + m[3]
   * @gamma: the gamma of the gamma effect
   * @vignette_strength: darkening at the corners, 0..1
   * @vignette_radius: where it starts, 0..1 of centre to corner
   * @key: the chroma key's colour, R, G, B
   * @key_tolerance: chroma distance keyed out fully, 0..1
   * @key_softness: distance over which alpha rises back, 0..1
   * @echo_decay: what the trail keeps per frame, 0..1
   *
   * The parameters of the fused pass; accel_effects_params_init() gives the
   * identity, accel_effects_parse() fills it from a description.
   */
  typedef struct
  {
    unsigned flags;
    float matrix[12];
    float gamma;
    float vignette_strength;
    float vignette_radius;
    uint8_t key[3];
    float key_tolerance;
    float key_softness;
    float echo_decay;
  } AccelEffectsParams;

  void accel_effects_params_init (AccelEffectsParams *effects);

  /* fills @effects from @description; 0 on success, otherwise
   * ACCEL_IMAGE_INVALID_VALUE with the reason in @message (@size bytes,
   * may be 0), e.g. "unknown effect 'contrats' (did you mean
   * 'contrast'?)" or "'contrast=9': the value must be in [0, 4]" */
  int accel_effects_parse (const char *description, AccelEffectsParams *effects,
      char *message, size_t size);

  /* float RGBA planes of history the effects keep: 0, 1 or 2 */
  int accel_effects_history_planes (const AccelEffectsParams *effects);
  /* bytes of that history for a @width x @height frame */
  size_t accel_effects_history_size (
      const AccelEffectsParams *effects, int width, int height);

  /* the fused pass from @src to @dst, RGBA8 or BGRA8. @history: device
   * memory of accel_effects_history_size () bytes, 16-byte aligned (NULL
   * when that is 0), read and updated; @history_valid: 0 on the first
   * frame and after a flush. Without any effect on, a copy. */
  int accel_effects_apply (void *stream, int format, const void *src,
      size_t src_pitch, void *dst, size_t dst_pitch, int width, int height,
      const AccelEffectsParams *effects, float *history, int history_valid);

  int accel_effects_apply_host (int format, const void *src, size_t src_pitch,
      void *dst, size_t dst_pitch, int width, int height,
      const AccelEffectsParams *effects, float *history, int history_valid);

#ifdef __cplusplus
}
#endif
