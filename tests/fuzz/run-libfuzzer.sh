#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# builds the YAML loader's fuzz harness with clang's libFuzzer and
# AddressSanitizer (the loader itself compiled in, for coverage) against an
# existing build, and fuzzes for SECONDS:
#   tests/fuzz/run-libfuzzer.sh build 60
# Leaks are left to the valgrind tests: LeakSanitizer counts GLib's
# per-thread caches of threads that ended as lost, valgrind does not.
set -e
build=${1:-build}; seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
case $build in /*) bdir=$build ;; *) bdir=$top/$build ;; esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang -g -O1 -fsanitize=fuzzer,address -DACCEL_FUZZ_LIBFUZZER \
  -I"$top/engine" -I"$bdir/engine" $(pkg-config --cflags glib-2.0 gobject-2.0) \
  "$here/fuzz-yaml.c" "$top/pipelines/accelyaml.c" $(pkg-config --cflags --libs yaml-0.1) \
  -L"$bdir/engine" -laccel-1.0 \
  $(pkg-config --libs glib-2.0 gobject-2.0) -Wl,-rpath,"$bdir/engine" \
  -o "$out/fuzz-yaml"
cp -r "$here/corpus" "$out/corpus"
ASAN_OPTIONS=detect_leaks=0 ACCEL_BACKEND=host "$out/fuzz-yaml" -max_total_time="$seconds" -max_len=4096 \
  -timeout=5 -detect_leaks=0 -artifact_prefix="$out/" "$out/corpus"
