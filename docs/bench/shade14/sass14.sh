#!/usr/bin/env bash
# Nsight Compute's source view of the row groups' walk (sb, the committed shade) at 3840x2160 on
# stress10M and at 1024x1024 on rand1M, one shade launch each.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
gunzip -f .device/sb/circles.gz
SASS_JOBS="stress4k stress10M 3840x2160 ^shade_kernel
rand1M rand1M 1024x1024 ^shade_kernel" BIN=.device/sb bash scripts/gpu-run.sh sass
