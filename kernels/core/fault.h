/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a kernel that faults on purpose, for fault injection */
#pragma once

#ifdef __cplusplus
extern "C"
{
#endif

  /* writes through an invalid pointer: a sticky illegal-address error */
  int accel_fault_illegal_address_launch (void *stream);

#ifdef __cplusplus
}
#endif
