/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: CUDA devices, the host pseudo-device and the backend choice. The
 * devices are found once, on first use, and never change; only a device's
 * generation moves (atomically). G_MESSAGES_DEBUG=accel-device tells what
 * was found and when a generation goes stale */
#define G_LOG_DOMAIN "accel-device"

#include "accel-private.h"

#include <unistd.h>

struct _AccelDevice
{
  GObject parent;

  gint index; /* -1: the host */
  gchar *name;
  guint64 total_memory;
  gint cc_major, cc_minor;
  guint64 peer_mask;    /* bit i: can access device i */
  guint64 peer_enabled; /* bit i: access to device i enabled (peer_lock) */
  guint generation;     /* atomic */
};

G_DEFINE_FINAL_TYPE (AccelDevice, accel_device, G_TYPE_OBJECT)

static GPtrArray *cuda_devices; /* AccelDevice*, by index */
static GMutex peer_lock;
static AccelDevice *host_device;
static AccelBackend default_backend;

static void
accel_device_finalize (GObject *object)
{
  AccelDevice *self = ACCEL_DEVICE (object);

  g_free (self->name);
  G_OBJECT_CLASS (accel_device_parent_class)->finalize (object);
}

static void
accel_device_class_init (AccelDeviceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = accel_device_finalize;
}

static void
accel_device_init (AccelDevice *self)
{
  /* a restarted worker's devices are one generation on */
  self->generation = accel_supervisor_get_generation ();
}

static AccelDevice *
device_new_host (void)
{
  AccelDevice *dev = g_object_new (ACCEL_TYPE_DEVICE, NULL);

  dev->index = -1;
  dev->name = g_strdup ("host");
  dev->total_memory
      = (guint64)sysconf (_SC_PHYS_PAGES) * (guint64)sysconf (_SC_PAGESIZE);
  return dev;
}

static AccelDevice *
device_new_cuda (gint index)
{
  AccelDevice *dev = g_object_new (ACCEL_TYPE_DEVICE, NULL);
  struct cudaDeviceProp prop;

  dev->index = index;
  if (accel_cuda_check (cudaGetDeviceProperties (&prop, index), NULL))
    {
      dev->name = g_strdup (prop.name);
      dev->total_memory = prop.totalGlobalMem;
      dev->cc_major = prop.major;
      dev->cc_minor = prop.minor;
    }
  else
    {
      dev->name = g_strdup_printf ("cuda:%d", index);
    }
  return dev;
}

static gpointer
devices_init (gpointer data)
{
  const char *env = g_getenv ("ACCEL_BACKEND");
  int n = 0;

  host_device = device_new_host ();
  cuda_devices = g_ptr_array_new_with_free_func (g_object_unref);

  /* without a driver or a GPU this fails: that is the host backend */
  if (!accel_cuda_check (cudaGetDeviceCount (&n), NULL))
    n = 0;
  for (int i = 0; i < n; i++)
    {
      AccelDevice *dev = device_new_cuda (i);

      g_debug ("CUDA device %d: %s, compute capability %d.%d, "
               "%" G_GUINT64_FORMAT " MiB",
          i, dev->name, dev->cc_major, dev->cc_minor, dev->total_memory >> 20);
      g_ptr_array_add (cuda_devices, dev);
    }
  for (int i = 0; i < n && i < 64; i++)
    {
      AccelDevice *dev = cuda_devices->pdata[i];
      for (int j = 0; j < n && j < 64; j++)
        {
          int can = 0;
          if (i != j
              && accel_cuda_check (cudaDeviceCanAccessPeer (&can, i, j), NULL)
              && can)
            dev->peer_mask |= G_GUINT64_CONSTANT (1) << j;
        }
    }

  default_backend = n > 0 ? ACCEL_BACKEND_CUDA : ACCEL_BACKEND_HOST;
  if (env && g_ascii_strcasecmp (env, "host") == 0)
    default_backend = ACCEL_BACKEND_HOST;
  else if (env && g_ascii_strcasecmp (env, "cuda") == 0 && n == 0)
    g_warning ("ACCEL_BACKEND=cuda but no CUDA device is usable; "
               "running on the host backend");
  else if (env && *env && g_ascii_strcasecmp (env, "cuda") != 0
           && g_ascii_strcasecmp (env, "auto") != 0)
    g_warning ("ACCEL_BACKEND=%s is not one of host, cuda, auto", env);

  g_debug ("%d CUDA device(s); default backend %s", n,
      default_backend == ACCEL_BACKEND_CUDA ? "cuda" : "host");
  return NULL;
}

static void
ensure_devices (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, devices_init, NULL);
}

/**
 * accel_backend_get_default:
 *
 * The backend new graphs run on: CUDA when a device is usable, unless the
 * environment variable `ACCEL_BACKEND=host` (or accel_backend_set_default())
 * asks for the host.
 *
 * Returns: the default backend. MT safe.
 */
AccelBackend
accel_backend_get_default (void)
{
  ensure_devices ();
  return default_backend;
}

/**
 * accel_backend_set_default:
 * @backend: the backend to use from now on
 * @error: return location for a #GError, or %NULL
 *
 * For example from a `--backend` option.
 *
 * Returns: %FALSE with %ACCEL_ERROR_NO_DEVICE when @backend is CUDA and no
 * device is usable.
 * Called from the thread that builds the graphs, before the first is built:
 * the default is read without a lock.
 */
gboolean
accel_backend_set_default (AccelBackend backend, GError **error)
{
  g_return_val_if_fail (
      backend == ACCEL_BACKEND_HOST || backend == ACCEL_BACKEND_CUDA, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  ensure_devices ();
  if (backend == ACCEL_BACKEND_CUDA && cuda_devices->len == 0)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NO_DEVICE,
          "the CUDA backend was asked for, but no CUDA device is usable");
      return FALSE;
    }
  default_backend = backend;
  g_debug ("default backend set to %s",
      backend == ACCEL_BACKEND_CUDA ? "cuda" : "host");
  return TRUE;
}

/**
 * accel_device_list:
 *
 * Returns: (transfer container) (element-type AccelDevice): the host
 * pseudo-device followed by every CUDA device. MT safe.
 */
GPtrArray *
accel_device_list (void)
{
  GPtrArray *list = g_ptr_array_new ();

  ensure_devices ();
  g_ptr_array_add (list, host_device);
  for (guint i = 0; i < cuda_devices->len; i++)
    g_ptr_array_add (list, cuda_devices->pdata[i]);
  return list;
}

/**
 * accel_device_get_n_cuda:
 *
 * Returns: how many CUDA devices are usable. MT safe.
 */
guint
accel_device_get_n_cuda (void)
{
  ensure_devices ();
  return cuda_devices->len;
}

/**
 * accel_device_get_default:
 *
 * Returns: (transfer none): CUDA device 0 on the CUDA backend, the host
 * otherwise. MT safe.
 */
AccelDevice *
accel_device_get_default (void)
{
  ensure_devices ();
  if (default_backend == ACCEL_BACKEND_CUDA && cuda_devices->len > 0)
    return cuda_devices->pdata[0];
  return host_device;
}

/**
 * accel_device_get_host:
 *
 * Returns: (transfer none): the host pseudo-device. MT safe.
 */
AccelDevice *
accel_device_get_host (void)
{
  ensure_devices ();
  return host_device;
}

/**
 * accel_device_get_cuda:
 * @index: CUDA device ordinal
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer none): the device, or %NULL with %ACCEL_ERROR_NO_DEVICE.
 * MT safe.
 */
AccelDevice *
accel_device_get_cuda (gint index, GError **error)
{
  ensure_devices ();
  if (index < 0 || (guint)index >= cuda_devices->len)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NO_DEVICE,
          "there is no CUDA device %d (%u usable)", index, cuda_devices->len);
      return NULL;
    }
  return cuda_devices->pdata[index];
}

/**
 * accel_device_is_host:
 * @device: a device
 *
 * Returns: %TRUE for the host pseudo-device. MT safe.
 */
gboolean
accel_device_is_host (AccelDevice *device)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), TRUE);
  return device->index < 0;
}

/**
 * accel_device_get_index:
 * @device: a device
 *
 * Returns: the CUDA device ordinal, -1 for the host. MT safe.
 */
gint
accel_device_get_index (AccelDevice *device)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), -1);
  return device->index;
}

/**
 * accel_device_get_name:
 * @device: a device
 *
 * Returns: (transfer none): the product name, "host" for the host, as long
 * as the process runs. MT safe.
 */
const char *
accel_device_get_name (AccelDevice *device)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), NULL);
  return device->name;
}

/**
 * accel_device_get_total_memory:
 * @device: a device
 *
 * Returns: the device's memory in bytes (physical memory for the host).
 * MT safe.
 */
guint64
accel_device_get_total_memory (AccelDevice *device)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), 0);
  return device->total_memory;
}

/**
 * accel_device_get_compute_capability:
 * @device: a device
 * @major: (out) (optional): major version, 0 for the host
 * @minor: (out) (optional): minor version, 0 for the host
 *
 * MT safe.
 */
void
accel_device_get_compute_capability (
    AccelDevice *device, gint *major, gint *minor)
{
  g_return_if_fail (ACCEL_IS_DEVICE (device));
  if (major)
    *major = device->cc_major;
  if (minor)
    *minor = device->cc_minor;
}

/**
 * accel_device_can_access_peer:
 * @device: a CUDA device
 * @peer: another CUDA device
 *
 * Returns: %TRUE when kernels on @device can read @peer's memory directly.
 * MT safe.
 */
gboolean
accel_device_can_access_peer (AccelDevice *device, AccelDevice *peer)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (ACCEL_IS_DEVICE (peer), FALSE);
  if (device->index < 0 || peer->index < 0 || peer->index >= 64)
    return FALSE;
  return (device->peer_mask >> peer->index) & 1;
}

/**
 * accel_device_enable_peer_access:
 * @device: a CUDA device
 * @peer: another CUDA device
 * @error: return location for a #GError, or %NULL
 *
 * Lets @device's kernels and copies read @peer's memory directly
 * (cudaDeviceEnablePeerAccess), once per pair, where
 * accel_device_can_access_peer() says it can.
 *
 * Returns: %TRUE when @device reaches @peer's memory directly; %FALSE
 * without @error when it cannot (copies between them are then staged
 * through host memory by the driver), with @error when enabling failed.
 * MT safe; makes @device current on the calling thread.
 */
gboolean
accel_device_enable_peer_access (
    AccelDevice *device, AccelDevice *peer, GError **error)
{
  guint64 bit;
  cudaError_t status;

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (ACCEL_IS_DEVICE (peer), FALSE);
  if (!accel_device_can_access_peer (device, peer))
    return FALSE;
  bit = G_GUINT64_CONSTANT (1) << peer->index;
  g_mutex_lock (&peer_lock);
  if (device->peer_enabled & bit)
    goto done;
  if (!accel_device_make_current (device, error))
    goto failed;
  status = cudaDeviceEnablePeerAccess (peer->index, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled)
    (void)cudaGetLastError (); /* not sticky: forget it */
  else if (!accel_cuda_check (status, error))
    goto failed;
  device->peer_enabled |= bit;
  g_debug ("%s reads %s's memory directly", device->name, peer->name);
done:
  g_mutex_unlock (&peer_lock);
  return TRUE;

  /* ERRORS */
failed:
  {
    g_mutex_unlock (&peer_lock);
    return FALSE;
  }
}

/**
 * accel_device_get_generation:
 * @device: a device
 *
 * The generation counts how often the device's context was replaced; buffers
 * of an older generation are stale.
 *
 * Returns: the current generation (1 at start). MT safe.
 */
guint
accel_device_get_generation (AccelDevice *device)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), 0);
  return g_atomic_int_get (&device->generation);
}

/**
 * accel_device_bump_generation:
 * @device: a device
 *
 * Marks every buffer allocated so far on @device as stale. The supervisor
 * calls this when it replaces a poisoned context.
 *
 * Returns: the new generation. MT safe.
 */
guint
accel_device_bump_generation (AccelDevice *device)
{
  guint generation;

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), 0);
  generation = (guint)g_atomic_int_add (&device->generation, 1) + 1;
  g_debug ("%s: generation %u; buffers of older generations are stale",
      device->name, generation);
  return generation;
}

/**
 * accel_device_make_current:
 * @device: a device
 * @error: return location for a #GError, or %NULL
 *
 * Makes @device the calling thread's CUDA device (nothing for the host).
 *
 * Returns: %TRUE on success. MT safe; affects the calling thread only.
 */
gboolean
accel_device_make_current (AccelDevice *device, GError **error)
{
  g_return_val_if_fail (ACCEL_IS_DEVICE (device), FALSE);
  if (device->index < 0)
    return TRUE;
  return accel_cuda_check (cudaSetDevice (device->index), error);
}

/* a number read from a one-line file such as a cgroup's memory.max; FALSE
 * for "max" or no such file */
static gboolean
read_bytes_file (const char *path, guint64 *bytes)
{
  g_autofree gchar *text = NULL;
  gchar *end;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  *bytes = g_ascii_strtoull (text, &end, 10);
  return end != text;
}

/* what the host can give without swapping: MemAvailable (page cache and
 * reclaimable memory counted, as free(1)'s "available"), where the
 * kernel says it, else the free pages, which leave out the cache and can
 * be a small part of it; within the limit of the process's cgroup (v2,
 * as a container sees it), where the OOM killer comes sooner */
static guint64
host_available_memory (void)
{
  g_autofree gchar *meminfo = NULL;
  const char *line;
  guint64 kib, room, max, current;

  if (g_file_get_contents ("/proc/meminfo", &meminfo, NULL, NULL)
      && (line = strstr (meminfo, "\nMemAvailable:"))
      && (kib = g_ascii_strtoull (line + strlen ("\nMemAvailable:"), NULL, 10))
             > 0)
    room = kib * 1024;
  else
    room
        = (guint64)sysconf (_SC_AVPHYS_PAGES) * (guint64)sysconf (_SC_PAGESIZE);
  if (read_bytes_file ("/sys/fs/cgroup/memory.max", &max)
      && read_bytes_file ("/sys/fs/cgroup/memory.current", &current))
    room = MIN (room, max > current ? max - current : 0);
  return room;
}

/**
 * accel_device_get_memory_info:
 * @device: a device
 * @free_bytes: (out) (optional): free memory (on the host, the memory
 *   available without swapping: MemAvailable, within the cgroup's
 *   memory.max)
 * @total_bytes: (out) (optional): total memory
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE on success. MT safe; makes @device current on the calling
 * thread.
 */
gboolean
accel_device_get_memory_info (AccelDevice *device, guint64 *free_bytes,
    guint64 *total_bytes, GError **error)
{
  guint64 f = 0, t = 0;
  size_t cuda_free, cuda_total;

  g_return_val_if_fail (ACCEL_IS_DEVICE (device), FALSE);
  if (device->index < 0)
    {
      f = host_available_memory ();
      t = device->total_memory;
    }
  else if (!accel_device_make_current (device, error)
           || !accel_cuda_check (
               cudaMemGetInfo (&cuda_free, &cuda_total), error))
    {
      return FALSE;
    }
  else
    {
      f = cuda_free;
      t = cuda_total;
    }
  if (free_bytes)
    *free_bytes = f;
  if (total_bytes)
    *total_bytes = t;
  return TRUE;
}

/* graph mode's captures on one side, calls that wait on the whole device
 * on the other: such a call made while another thread captures a stream
 * breaks the capture and fails itself */
static GRWLock global_call_lock;

/**
 * accel_device_global_call_begin:
 *
 * Brackets, with accel_device_global_call_end(), a call that waits on the
 * whole device or its legacy default stream: cudaMalloc(), cudaFree(),
 * cudaMallocHost(), cudaDeviceSynchronize(), library calls that do such
 * things (cuRAND's host generators, plan creation). While a stage's work is
 * being captured into a CUDA graph on another thread (graph mode), the call
 * waits for the capture to end, which takes microseconds. Calls that only
 * enqueue work on a stream need no bracket. MT safe; does not nest.
 */
void
accel_device_global_call_begin (void)
{
  g_rw_lock_writer_lock (&global_call_lock);
}

/**
 * accel_device_global_call_end:
 *
 * Ends what accel_device_global_call_begin() began. MT safe.
 */
void
accel_device_global_call_end (void)
{
  g_rw_lock_writer_unlock (&global_call_lock);
}

/* a capture runs: global calls wait (captures may overlap each other) */
void
accel_device_capture_begin (void)
{
  g_rw_lock_reader_lock (&global_call_lock);
}

void
accel_device_capture_end (void)
{
  g_rw_lock_reader_unlock (&global_call_lock);
}
