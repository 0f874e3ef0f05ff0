#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# installs the build into a temporary directory (meson install --destdir),
# builds embed.c against the installed accel-1.0.pc and runs it on the
# installed library and plugins: what docs/embedding.md tells embedders
set -eu
build=$1
src=$(dirname "$0")
dest=$(mktemp -d "${TMPDIR:-/tmp}/accel-install-XXXXXX")
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null
prefix=$(meson introspect "$build" --buildoptions \
  | python3 -c 'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"]); print(o["libdir"])')
libdir=$(echo "$prefix" | sed -n 2p)
prefix=$(echo "$prefix" | sed -n 1p)
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac

# the .pc files name the final prefix: copies of them name $dest's
mkdir "$dest/pc"
for pc in "$dest$libdir"/pkgconfig/*.pc; do
  sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" > "$dest/pc/$(basename "$pc")"
done
export PKG_CONFIG_PATH="$dest/pc"
cc -o "$dest/embed" "$src/embed.c" $(pkg-config --cflags --libs accel-1.0)

# only the installed copies: the library, and the plugins from their
# installed directory
unset ACCEL_PLUGIN_PATH ACCEL_PLUGIN_PATH_ONLY LD_LIBRARY_PATH
out=$(LD_LIBRARY_PATH="$dest$libdir" ACCEL_PLUGIN_PATH="$dest$libdir/accel-1.0" \
  ACCEL_BACKEND=host "$dest/embed")
echo "$out"
case $(echo "$out" | sed -n 1p) in
  "frames 3 digest "????????????????????????????????????????????????????????????????) ;;
  *) echo "unexpected output"; exit 1 ;;
esac
# the installed libaccel-kernels-1.0 and its header
[ "$(echo "$out" | sed -n 2p)" = "neighbours 1 1 0" ] || {
  echo "unexpected neighbour counts"; exit 1; }
# the program ran on the installed library, not on the build tree's
LD_LIBRARY_PATH="$dest$libdir" ldd "$dest/embed" | grep -q "$dest$libdir/libaccel-1.0.so"
