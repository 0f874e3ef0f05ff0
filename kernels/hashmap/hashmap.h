/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the kernels' name for the installed header */
#pragma once

#include <accel/accelhashmap.h>
