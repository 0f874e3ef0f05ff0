#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# the simulation example of docs/embedding.md, on the backend there is: every
# stepped frame reaches GStreamer (a filesink of raw RGBA: exactly N frames
# of 256x256x4 bytes), and the same run twice shows the same frames, since
# each parameter change lands on the frame it was set before
set -eu
simulation=$1
frames=12
dir=$(mktemp -d "${TMPDIR:-/tmp}/accel-simulation-XXXXXX")
trap 'rm -rf "$dir"' EXIT

for run in a b; do
  "$simulation" $frames \
    "videoconvert ! video/x-raw,format=RGBA ! filesink location=$dir/$run.rgba" \
    > "$dir/$run.out"
  cat "$dir/$run.out"
  grep -q "^frames $frames digest [0-9a-f]\{64\}\$" "$dir/$run.out" || {
    echo "run $run: unexpected output"; exit 1; }
  size=$(stat -c %s "$dir/$run.rgba")
  [ "$size" -eq $((frames * 256 * 256 * 4)) ] || {
    echo "run $run: $size bytes reached the filesink"; exit 1; }
done
cmp "$dir/a.out" "$dir/b.out"
cmp "$dir/a.rgba" "$dir/b.rgba"
# the frames are not all alike: the simulation moved
[ "$(head -c 262144 "$dir/a.rgba" | md5sum)" != \
  "$(tail -c 262144 "$dir/a.rgba" | md5sum)" ]
