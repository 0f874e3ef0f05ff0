/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* an NVTX tool, loaded the way Nsight Systems is (NVTX_INJECTION64_PATH):
 * it writes every range push and pop to the file ACCEL_TEST_NVTX_LOG names,
 * one line each, so a test can read what a profiler would have been shown:
 *   push <thread> <message> <u64 payload or -> / pop <thread> */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

static int log_fd = -1;

/* one write() per line on an O_APPEND file: lines of threads never mix */
static void
put_line (const char *line, int len)
{
  if (len > 0 && write (log_fd, line, (size_t)len) != len)
    abort ();
}

static long
thread_id (void)
{
  return syscall (SYS_gettid);
}

static int NVTX_API
record_push_ex (const nvtxEventAttributes_t *attr)
{
  char line[512];
  const char *message = "?";
  char payload[32] = "-";

  if (attr->messageType == NVTX_MESSAGE_TYPE_ASCII && attr->message.ascii)
    message = attr->message.ascii;
  if (attr->payloadType == NVTX_PAYLOAD_TYPE_UNSIGNED_INT64)
    snprintf (payload, sizeof payload, "%llu",
        (unsigned long long)attr->payload.ullValue);
  put_line (line, snprintf (line, sizeof line, "push %ld %s %s\n", thread_id (),
                      message, payload));
  return 0;
}

static int NVTX_API
record_pop (void)
{
  char line[64];

  put_line (line, snprintf (line, sizeof line, "pop %ld\n", thread_id ()));
  return 0;
}

int NVTX_API InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_table);

/* the entry point NVTX looks up in the library it loads */
int NVTX_API
InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_table)
{
  const NvtxExportTableCallbacks *callbacks = get_table (NVTX_ETID_CALLBACKS);
  const char *path = getenv ("ACCEL_TEST_NVTX_LOG");
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;

  if (!callbacks || !path
      || !callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE, &table, &size)
      || size <= NVTX_CBID_CORE_RangePop)
    return 0;
  log_fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0)
    return 0;
  *table[NVTX_CBID_CORE_RangePushEx] = (NvtxFunctionPointer)record_push_ex;
  *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)record_pop;
  return 1;
}
