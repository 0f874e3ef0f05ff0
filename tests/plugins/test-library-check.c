/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the checked path of the library plugins: what a failed library call
 * reports */
#include <string.h>

#include "accel-test.h"
#include "accellibrarycheck.h"

static void
test_failed_call (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStage) stage = accel_stage_new ("core.scale", "gain", NULL);

  g_assert_false (accel_library_check_failed (stage, "accel-test", "cuFFT", 4,
      "CUFFT_INVALID_VALUE", NULL, "cufftExecC2C (plan, in, out, -1)",
      "accelfft.c", 321, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_LIBRARY);
  g_assert_cmpstr (error->message, ==,
      "stage 'gain' (core.scale): cufftExecC2C (plan, in, out, -1) failed: "
      "cuFFT status CUFFT_INVALID_VALUE (4) at accelfft.c:321");
}

static void
test_failed_call_detail (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStage) stage = accel_stage_new ("core.scale", "gain", NULL);

  g_assert_false (accel_library_check_failed (stage, "accel-test", "cuSPARSE",
      3, "CUSPARSE_STATUS_INVALID_VALUE", "invalid value", "cusparseSpMV (...)",
      "accelspmv.c", 12, NULL));
  accel_library_check_failed (stage, "accel-test", "cuSPARSE", 3,
      "CUSPARSE_STATUS_INVALID_VALUE", "invalid value", "cusparseSpMV (...)",
      "accelspmv.c", 12, &error);
  g_assert_nonnull (strstr (error->message,
      "cuSPARSE status CUSPARSE_STATUS_INVALID_VALUE (3): invalid value at "
      "accelspmv.c:12"));
}

int
main (int argc, char **argv)
{
  accel_backend_set_default (ACCEL_BACKEND_HOST, NULL);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/library-check/failed-call", test_failed_call);
  g_test_add_func (
      "/library-check/failed-call-detail", test_failed_call_detail);
  return g_test_run ();
}
