#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# fails when a C, header or CUDA file differs from what clang-format makes of
# it with the repository's .clang-format; fix with the command it prints
cd "$(dirname "$0")/.." || exit 1
files=$(find engine kernels plugins elements pipelines tests \
  -name '*.c' -o -name '*.h' -o -name '*.cu' | sort)
if ! clang-format --dry-run --Werror $files; then
  echo "unformatted code: run  clang-format -i" $files | cut -c1-200
  exit 1
fi
