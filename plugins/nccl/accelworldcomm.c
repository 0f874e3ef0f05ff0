/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: a communicator's setup through the world's store (see
 * accelworldcomm.h); every key is scoped to the world's generation */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelworldcomm.h"

/* Gloo's rendezvous through the world's store */
static int
store_set (
    void *user, const char *key, const void *data, size_t size, char **error)
{
  g_autoptr (GBytes) value = g_bytes_new (data, size);
  g_autoptr (GError) e = NULL;

  if (accel_world_set (user, key, value, &e))
    return 0;
  *error = strdup (e->message);
  return -1;
}

static void *
store_get (void *user, const char *key, size_t *size, char **error)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (GBytes) value = accel_world_get (user, key, &e);
  void *copy;

  if (!value)
    {
      *error = strdup (e->message);
      return NULL;
    }
  *size = g_bytes_get_size (value);
  copy = malloc (MAX (*size, 1));
  memcpy (copy, g_bytes_get_data (value, NULL), *size);
  return copy;
}

/**
 * accel_world_comm_nccl_id:
 * @world: the joined world
 * @key: the communicator's name in the store
 * @make: whether this rank makes the id (the communicator's rank 0) or
 *   takes it from the store
 * @id: (out): the id
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE with the communicator's unique id. Blocks up to the
 * world's timeout. MT safe.
 */
gboolean
accel_world_comm_nccl_id (AccelWorld *world, const char *key, gboolean make,
    ncclUniqueId *id, GError **error)
{
  g_autofree gchar *id_key = g_strdup_printf ("%s/nccl-id", key);
  g_autoptr (GBytes) bytes = NULL;
  ncclResult_t status;

  if (make)
    {
      if ((status = ncclGetUniqueId (id)) != ncclSuccess)
        {
          g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY,
              "ncclGetUniqueId failed: %s", ncclGetErrorString (status));
          return FALSE;
        }
      bytes = g_bytes_new (id, sizeof *id);
      return accel_world_set (world, id_key, bytes, error);
    }
  if (!(bytes = accel_world_get (world, id_key, error)))
    return FALSE;
  if (g_bytes_get_size (bytes) != sizeof *id)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
          "'%s' in the world's store is %zu bytes, not an NCCL unique id",
          id_key, g_bytes_get_size (bytes));
      return FALSE;
    }
  memcpy (id, g_bytes_get_data (bytes, NULL), sizeof *id);
  return TRUE;
}

/**
 * accel_world_comm_gloo:
 * @world: the joined world
 * @key: the communicator's name in the store
 * @rank: this process's place among the members
 * @size: the number of members
 * @message: (out): why it failed (malloc'd)
 *
 * Returns: a Gloo context of @size members, connected through TCP from
 * this machine's address as the coordinator sees it, or %NULL. Blocks up
 * to the world's timeout. MT safe.
 */
AccelGloo *
accel_world_comm_gloo (
    AccelWorld *world, const char *key, guint rank, guint size, char **message)
{
  g_autofree gchar *prefix = g_strdup_printf ("%s/gloo/", key);
  AccelGlooStore store = { store_set, store_get, world };

  return accel_gloo_new ((int)rank, (int)size,
      accel_world_get_local_host (world), prefix, &store,
      (int)accel_world_get_timeout_ms (world), message);
}
