#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# builds the YAML loader's fuzz harness with clang's libFuzzer and
# AddressSanitizer (the loader itself compiled in, for coverage) against an
# existing build, and fuzzes for SECONDS:
#   tests/fuzz/run-libfuzzer.sh build 60
set -e
build=${1:-build}; seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
clang -g -O1 -fsanitize=fuzzer,address -DACCEL_FUZZ_LIBFUZZER \
  -I"$top/engine" -I"$top/$build/engine" $(pkg-config --cflags glib-2.0 gobject-2.0) \
  "$here/fuzz-yaml.c" "$top/pipelines/accelyaml.c" $(pkg-config --cflags --libs yaml-0.1) \
  -L"$top/$build/engine" -laccel-1.0 \
  $(pkg-config --libs glib-2.0 gobject-2.0) -Wl,-rpath,"$top/$build/engine" \
  -o "$out/fuzz-yaml"
cp -r "$here/corpus" "$out/corpus"
ACCEL_BACKEND=host "$out/fuzz-yaml" -max_total_time="$seconds" -max_len=4096 \
  -timeout=5 "$out/corpus"
