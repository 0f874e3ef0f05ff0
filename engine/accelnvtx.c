/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: NVTX ranges per stage and frame, for Nsight Systems; off unless
 * ACCEL_NVTX=1 (read once), so the hot path pays one predictable branch.
 * The ranges are named by stage and carry the frame's sequence number as
 * their payload. nvtx3 is header-only: without a tool attached its calls
 * return at once */
#define G_LOG_DOMAIN "accel-nvtx"

#include "accel-private.h"

#include <nvtx3/nvToolsExt.h>

/* whether ACCEL_NVTX=1 was set when first asked; another value than 0
 * is warned of. MT safe */
gboolean
accel_nvtx_enabled (void)
{
  static gsize once = 0;
  static gboolean on;

  if (g_once_init_enter (&once))
    {
      const char *env = g_getenv ("ACCEL_NVTX");

      on = g_strcmp0 (env, "1") == 0;
      /* "true" or "yes" turned nothing on, without a word */
      if (env && !on && *env && !g_str_equal (env, "0"))
        g_warning ("ACCEL_NVTX=%s is neither 1 (ranges on) nor 0: the NVTX "
                   "ranges stay off",
            env);
      if (on)
        g_debug ("NVTX ranges per stage and frame are on");
      g_once_init_leave (&once, 1);
    }
  return on;
}

/* opens a range named @name on the calling thread, with @sequence as its
 * payload */
void
accel_nvtx_push (const char *name, guint64 sequence)
{
  nvtxEventAttributes_t attr = { 0 };

  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = name;
  attr.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  attr.payload.ullValue = sequence;
  nvtxRangePushEx (&attr);
}

/* closes the calling thread's innermost range */
void
accel_nvtx_pop (void)
{
  nvtxRangePop ();
}
