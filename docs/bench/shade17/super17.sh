#!/usr/bin/env bash
# A measurement, not a design: binning at super tiles of 64, 128 and 256 pixels (s1, s2, s3:
# CIRCLES_BINNED_SUPER=1/2/3 of super_prototype.patch, the sort forced) while the eight-pixel walk
# still shades 32x32 tiles, reading its super tile's list whole (the circles that miss its tile
# are staged and never visited: no compaction). What the binning costs at each size, and what
# staging the extra circles costs the shade. Checks against cpu-ref first.
set -uo pipefail
O=${OUT:-/tmp/out}
mkdir -p $O
VARIANTS="base s1 s2 s3" SCENES=rand1M,stress10M MODES=exact ROUNDS=2 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:1; stress10M 1000x777 0:1; rand1M 257x193 0:1" BIG= \
  OUT=$O/ab bash scripts/gpu-ab.sh 2>&1 | tail -4
VARIANTS="base s1 s2 s3" SCENES=stress10M SIZE=3840x2160 MODES=exact ROUNDS=2 CHECKS= BIG= \
  OUT=$O/ab4k bash scripts/gpu-ab.sh 2>&1 | tail -3
