/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the host references' frames split across cores: rows in bands, run on the
 * calling thread and one GLib thread pool per process (per module that links
 * this library), sized to the cores
 *
 * ACCEL_HOST_THREADS=N (read once) caps the threads a call uses, the caller
 * included; 1 runs every band on the calling thread. */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /* runs rows [@y0, @y1) of a frame; bands never overlap, so a band may
   * write its own output rows without locks */
  typedef void (*AccelHostRowsFunc) (void *data, int y0, int y1);

  /* calls @fn over [0, @rows) in bands of at least @min_rows rows, on the
   * calling thread and the pool's, and returns once every band is done.
   * The calling thread takes bands too, so a call finishes even while other
   * callers keep the pool busy. MT safe. */
  void accel_host_parallel_rows (
      int rows, int min_rows, AccelHostRowsFunc fn, void *data);

  /* rows a band needs to be worth a thread's wake-up: about 64 KiB of a
   * frame of @row_bytes a row (>= 1) */
  int accel_host_min_rows (size_t row_bytes);

  /* how many threads a call may use, the caller included (>= 1). MT safe. */
  int accel_host_threads (void);

#ifdef __cplusplus
}
#endif
