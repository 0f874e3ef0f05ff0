#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# builds a fuzz harness (yaml: the YAML loader, description: the one-line
# descriptions) with clang's libFuzzer and AddressSanitizer (the loader and
# the description parser compiled in, for coverage) against an existing
# build, and fuzzes it for SECONDS:
#   tests/fuzz/run-libfuzzer.sh build 60 [yaml|description]
# Leaks are left to the valgrind tests: LeakSanitizer counts GLib's
# per-thread caches of threads that ended as lost, valgrind does not.
set -e
build=${1:-build}; seconds=${2:-60}; harness=${3:-yaml}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
case $build in /*) bdir=$build ;; *) bdir=$top/$build ;; esac
case $harness in
  yaml) corpus=corpus ;;
  description) corpus=corpus-description ;;
  *) echo "run-libfuzzer.sh: no harness '$harness' (yaml or description)" >&2; exit 2 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang -g -O1 -fsanitize=fuzzer,address -DACCEL_FUZZ_LIBFUZZER \
  -I"$top/engine" -I"$bdir/engine" $(pkg-config --cflags glib-2.0 gobject-2.0) \
  "$here/fuzz-$harness.c" "$top/pipelines/accelyaml.c" \
  "$top/pipelines/accelyaml-values.c" "$top/pipelines/accelyaml-syntax.c" \
  "$top/pipelines/accelyaml-meetings.c" "$top/pipelines/acceldescription.c" \
  $(pkg-config --cflags --libs yaml-0.1) \
  -L"$bdir/engine" -laccel-1.0 \
  $(pkg-config --libs glib-2.0 gobject-2.0) -Wl,-rpath,"$bdir/engine" \
  -o "$out/fuzz-$harness"
cp -r "$here/$corpus" "$out/corpus"
ASAN_OPTIONS=detect_leaks=0 ACCEL_BACKEND=host "$out/fuzz-$harness" -max_total_time="$seconds" -max_len=4096 \
  -timeout=5 -detect_leaks=0 -artifact_prefix="$out/" "$out/corpus"
