/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: the Gloo interface (accelgloo.h) of a build without
 * Gloo: every call fails saying so, and the stages run on GPUs only */
#include "accelgloo.h"

#include <stdlib.h>
#include <string.h>

static int
missing (char **error)
{
  *error = strdup ("this accel was built without Gloo (libgloo-dev): the "
                   "collective stages run on GPUs only");
  return -1;
}

int
accel_gloo_available (void)
{
  return 0;
}

AccelGloo *
accel_gloo_new (int rank, int size, const char *host, const char *prefix,
    const AccelGlooStore *store, int timeout_ms, char **error)
{
  missing (error);
  return NULL;
}

void
accel_gloo_free (AccelGloo *gloo)
{
}

int
accel_gloo_all_reduce (AccelGloo *gloo, const void *in, void *data,
    size_t count, size_t elem_size, AccelGlooReduceFunc reduce, unsigned tag,
    char **error)
{
  return missing (error);
}

int
accel_gloo_reduce (AccelGloo *gloo, void *data, size_t count, size_t elem_size,
    AccelGlooReduceFunc reduce, int root, unsigned tag, char **error)
{
  return missing (error);
}

int
accel_gloo_all_gather (AccelGloo *gloo, const void *in, void *out, size_t count,
    size_t elem_size, unsigned tag, char **error)
{
  return missing (error);
}

int
accel_gloo_broadcast (AccelGloo *gloo, void *data, size_t count,
    size_t elem_size, int root, unsigned tag, char **error)
{
  return missing (error);
}

int
accel_gloo_send (AccelGloo *gloo, const void *data, size_t bytes, int peer,
    unsigned tag, char **error)
{
  return missing (error);
}

int
accel_gloo_recv (AccelGloo *gloo, void *data, size_t bytes, int peer,
    unsigned tag, char **error)
{
  return missing (error);
}
