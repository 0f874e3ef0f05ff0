/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the fuzz harnesses' own driver: each harness defines
 * LLVMFuzzerTestOneInput() for libFuzzer, and without libFuzzer its main()
 * calls fuzz_driver_main(), so the same harness runs as an ordinary test */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int fuzz_driver_main (int argc, char **argv, const char *corpus_dir,
    guint32 seed, const char *tokens);
