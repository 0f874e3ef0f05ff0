/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: the host backend's collectives through Gloo, behind a
 * plain C interface (Gloo is C++; nothing of it leaks past this header).
 * Gloo's rendezvous goes through the world's own store, by the two
 * callbacks of AccelGlooStore */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct _AccelGloo AccelGloo;

  /* set: 0 on success, else a malloc'd message in *error; get: the value
   * (malloc'd, its size in *size), waiting for a rank to set it, or NULL
   * with a malloc'd message in *error */
  typedef struct
  {
    int (*set) (void *user, const char *key, const void *data, size_t size,
        char **error);
    void *(*get) (void *user, const char *key, size_t *size, char **error);
    void *user;
  } AccelGlooStore;

  /* out[i] = a[i] op b[i] for n elements (out may be a or b) */
  typedef void (*AccelGlooReduceFunc) (
      void *out, const void *a, const void *b, size_t n);

  /* every call returns 0 on success, else -1 with a malloc'd message in
   * *error; element sizes are 1, 2, 4 or 8 bytes */
  /* 1 where Gloo is built in, 0 where its calls only fail */
  int accel_gloo_available (void);
  AccelGloo *accel_gloo_new (int rank, int size, const char *host,
      const char *prefix, const AccelGlooStore *store, int timeout_ms,
      char **error);
  void accel_gloo_free (AccelGloo *gloo);

  /* @in may be NULL: @data is then reduced in place */
  int accel_gloo_all_reduce (AccelGloo *gloo, const void *in, void *data,
      size_t count, size_t elem_size, AccelGlooReduceFunc reduce, unsigned tag,
      char **error);
  int accel_gloo_reduce (AccelGloo *gloo, void *data, size_t count,
      size_t elem_size, AccelGlooReduceFunc reduce, int root, unsigned tag,
      char **error);
  int accel_gloo_all_gather (AccelGloo *gloo, const void *in, void *out,
      size_t count, size_t elem_size, unsigned tag, char **error);
  int accel_gloo_broadcast (AccelGloo *gloo, void *data, size_t count,
      size_t elem_size, int root, unsigned tag, char **error);
  int accel_gloo_send (AccelGloo *gloo, const void *data, size_t bytes,
      int peer, unsigned tag, char **error);
  int accel_gloo_recv (AccelGloo *gloo, void *data, size_t bytes, int peer,
      unsigned tag, char **error);

#ifdef __cplusplus
}
#endif
