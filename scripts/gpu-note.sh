#!/usr/bin/env bash
# Ends the README's test command: when the GPU suites could not run on this machine, one line
# says so and why (ctest itself only lists them as "Skipped"). Prints nothing with a usable GPU.
# Usage: bash scripts/gpu-note.sh [BUILD_DIR]
bin=${1:-build}/circles
[ -x "$bin" ] || exit 0
why=$("$bin" list 2>/dev/null | awk '/UNAVAILABLE:/ { sub(/.*UNAVAILABLE: /, ""); print; exit }')
if [ -n "$why" ]; then
  echo "note: the GPU tests were skipped, not passed: $why."
  echo "      On a machine with an NVIDIA GPU, BIN=${1:-build} bash scripts/gpu-tests.sh runs every test binary with the GPU required"
  echo "      (or fails, also on any skip not marked expected)."
fi
exit 0
