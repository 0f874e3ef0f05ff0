/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: placement of stages on GPUs by policy. The choice itself is a
 * function of counts and free memory (accel_placement_pick()), so it is
 * tested without GPUs; a placer feeds it the devices' state.
 * G_MESSAGES_DEBUG=accel-placement tells where each stage went and why */
#define G_LOG_DOMAIN "accel-placement"

#include "accel-private.h"

struct _AccelPlacer
{
  AccelPlacement policy;
  GPtrArray *devices; /* the CUDA devices, or the host alone */
  guint *stages_on;   /* per device, the stages placed there */
  guint64 *free_bytes;
  guint n_placed;
};

GType
accel_placement_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_PLACEMENT_FIRST, "ACCEL_PLACEMENT_FIRST", "first" },
    { ACCEL_PLACEMENT_ROUND_ROBIN, "ACCEL_PLACEMENT_ROUND_ROBIN",
        "round-robin" },
    { ACCEL_PLACEMENT_LEAST_LOADED, "ACCEL_PLACEMENT_LEAST_LOADED",
        "least-loaded" },
    { ACCEL_PLACEMENT_MEMORY_FIT, "ACCEL_PLACEMENT_MEMORY_FIT", "memory-fit" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelPlacement", values));
  return (GType)type;
}

/**
 * accel_placement_pick: (skip)
 * @policy: the policy
 * @n_devices: the GPUs to choose from, 1 or more
 * @n_placed_before: stages placed so far (round robin)
 * @stages_on: (array length=n_devices): stages placed on each GPU so far
 *   (least loaded, and ties of memory fit)
 * @free_bytes: (array length=n_devices): free memory of each GPU (memory
 *   fit)
 *
 * Returns: the index of the GPU @policy picks for the next stage. MT safe.
 */
guint
accel_placement_pick (AccelPlacement policy, guint n_devices,
    guint n_placed_before, const guint *stages_on, const guint64 *free_bytes)
{
  guint best = 0;

  g_return_val_if_fail (n_devices > 0, 0);
  switch (policy)
    {
    case ACCEL_PLACEMENT_ROUND_ROBIN:
      return n_placed_before % n_devices;
    case ACCEL_PLACEMENT_LEAST_LOADED:
      for (guint i = 1; i < n_devices; i++)
        if (stages_on[i] < stages_on[best])
          best = i;
      return best;
    case ACCEL_PLACEMENT_MEMORY_FIT:
      for (guint i = 1; i < n_devices; i++)
        if (free_bytes[i] > free_bytes[best]
            || (free_bytes[i] == free_bytes[best]
                && stages_on[i] < stages_on[best]))
          best = i;
      return best;
    case ACCEL_PLACEMENT_FIRST:
    default:
      return 0;
    }
}

/**
 * accel_placer_new: (skip)
 * @policy: how to place
 *
 * Returns: (transfer full): a placer for one graph's stages, with the
 * devices' free memory as it is now. Called from the thread that builds
 * the graph.
 */
AccelPlacer *
accel_placer_new (AccelPlacement policy)
{
  AccelPlacer *placer = g_new0 (AccelPlacer, 1);

  placer->policy = policy;
  placer->devices = g_ptr_array_new ();
  if (accel_backend_get_default () == ACCEL_BACKEND_CUDA)
    for (guint i = 0; i < accel_device_get_n_cuda (); i++)
      {
        AccelDevice *dev = accel_device_get_cuda ((gint)i, NULL);
        if (dev)
          g_ptr_array_add (placer->devices, dev);
      }
  if (placer->devices->len == 0)
    g_ptr_array_add (placer->devices, accel_device_get_host ());
  placer->stages_on = g_new0 (guint, placer->devices->len);
  placer->free_bytes = g_new0 (guint64, placer->devices->len);
  for (guint i = 0; i < placer->devices->len; i++)
    {
      AccelDevice *dev = placer->devices->pdata[i];
      guint64 total;
      if (!accel_device_is_host (dev) && policy == ACCEL_PLACEMENT_MEMORY_FIT
          && !accel_device_get_memory_info (
              dev, &placer->free_bytes[i], &total, NULL))
        placer->free_bytes[i] = 0;
    }
  return placer;
}

/**
 * accel_placer_place: (skip)
 * @placer: a placer
 * @bytes: what the stage is expected to allocate (memory fit), or 0
 *
 * Returns: (transfer none): the device for the next stage. Called from the
 * thread that builds the graph.
 */
AccelDevice *
accel_placer_place (AccelPlacer *placer, guint64 bytes)
{
  guint i = accel_placement_pick (placer->policy, placer->devices->len,
      placer->n_placed, placer->stages_on, placer->free_bytes);
  AccelDevice *dev = placer->devices->pdata[i];

  placer->stages_on[i]++;
  placer->n_placed++;
  placer->free_bytes[i] -= MIN (placer->free_bytes[i], bytes);
  g_debug ("stage %u on %s (%u stages there)", placer->n_placed,
      accel_device_get_name (dev), placer->stages_on[i]);
  return dev;
}

/**
 * accel_placer_free: (skip)
 * @placer: (transfer full): a placer
 */
void
accel_placer_free (AccelPlacer *placer)
{
  g_ptr_array_unref (placer->devices);
  g_free (placer->stages_on);
  g_free (placer->free_bytes);
  g_free (placer);
}
