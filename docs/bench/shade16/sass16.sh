#!/usr/bin/env bash
# Nsight Compute on the committed code (.device/fin16): the source view of the eight-pixel walk
# (shade_rows8_kernel) at 3840x2160 on stress10M and at 1024x1024 on rand1M, one launch each, and
# the floors step (every kernel of one frame: rand1M, micro2M, stress10M at 4K).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
gunzip -f .device/fin16/*.gz 2>/dev/null
SASS_JOBS="stress4k stress10M 3840x2160 ^shade_rows8
rand1M rand1M 1024x1024 ^shade_rows8" BIN=.device/fin16 bash scripts/gpu-run.sh sass floors
