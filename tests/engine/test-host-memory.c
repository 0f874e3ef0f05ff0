/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* host allocations against what the host has available: alone in its run,
 * so that no other test's memory comes and goes meanwhile */
#include "accel-test.h"

/* a host allocation past what the host has available, but within what it
 * has in all, is refused as out of memory: overcommit granted it, and the
 * kernel killed the process with no message as its pages were touched */
static void
test_host_allocation_past_available (void)
{
  AccelDevice *host = accel_device_get_host ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelBuffer) buf = NULL;
  guint64 available = 0, total = 0;
  AccelType t;

  g_assert_true (
      accel_device_get_memory_info (host, &available, &total, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (available, <, total);
  accel_type_init_bytes (
      &t, ACCEL_MEMORY_HOST, (gint64)(available + (total - available) / 2));
  buf = accel_buffer_new (host, &t, &error);
  g_assert_null (buf);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (
      strstr (error->message, " bytes of host memory: the host has "));
  g_test_message ("%s", error->message);
}

/* a large host allocation's pages are touched as it is made, so that the
 * next one's check counts them: two that each fit but not together were
 * both granted, and the process killed as a stage zeroed them */
static void
test_host_allocation_committed (void)
{
  AccelDevice *host = accel_device_get_host ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelBuffer) buf = NULL;
  const gint64 size = 256 << 20;
  gint64 before = accel_test_resident_bytes ();
  AccelType t;

  accel_type_init_bytes (&t, ACCEL_MEMORY_HOST, size);
  buf = accel_buffer_new (host, &t, &error);
  g_assert_no_error (error);
  g_assert_cmpint (accel_test_resident_bytes () - before, >=, size);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/buffer/host-allocation-past-available",
      test_host_allocation_past_available);
  g_test_add_func (
      "/buffer/host-allocation-committed", test_host_allocation_committed);
  return g_test_run ();
}
