#!/bin/sh
# Installs the circles build BUILD into a fresh prefix under WORK, then configures, builds and runs
# tests/consumer against it with find_package(circles), as a user's own project would.
set -eu
build=$1
work=$2
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
"$work/build/consumer" "$work"
