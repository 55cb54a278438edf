#!/usr/bin/env bash
# The sixteenth session's A/B: base (the fifteenth session's code, ddf819d: its binary with
# CIRCLES_BINNED_ROWS unset) against fin16 (binned row-group walks at eight pixels a lane), four
# rounds, each starting with the next variant, exact mode; checks against cpu-ref first.
set -uo pipefail
gunzip -f .device/r8/circles.gz .device/fin16/*.gz 2>/dev/null
VARIANTS="base fin16" SCENES=rand1M,stress10M,rand100k,rand10k,pattern MODES=exact ROUNDS=4 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:2; rand1M 2000x64 0:1; stress10M 1000x777 0:1; rand10k 257x193 0:3" \
  OUT=$OUT/ab bash scripts/gpu-ab.sh 2>&1 | tail -12
