#!/usr/bin/env bash
# plain (the eight-pixel walk, committed) against runs (the same binary with CIRCLES_BINNED_RUNS=1:
# per-box lists a batch, runs of box-covering circles composed), three rounds, exact mode;
# checks against cpu-ref first.
set -uo pipefail
gunzip -f .device/r1/circles.gz 2>/dev/null
VARIANTS="plain runs" CHECKED="runs" SCENES=rand1M,stress10M MODES=exact ROUNDS=3 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:2; rand1M 257x193 0:2; rand1M 1023x1025 0:1; rand1M 2000x64 0:1; rand1M 64x2000 0:1; stress10M 1000x777 0:1" \
  OUT=$OUT/ab bash scripts/gpu-ab.sh 2>&1 | tail -6
cut -c1-220 $OUT/ab/checks.txt
