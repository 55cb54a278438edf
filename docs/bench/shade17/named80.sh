#!/usr/bin/env bash
# The named-barrier walk (dropped_named_barriers.patch) at six blocks an SM (80 registers, no
# spill: named80) against the same walk with block-wide barriers at six (base80) and the committed
# walk at eight (base); checks first.
set -uo pipefail
O=${OUT:-/tmp/out}
mkdir -p $O
gunzip -f .device/*/*.gz 2>/dev/null
VARIANTS="base base80 named80" SCENES=rand1M,stress10M MODES=exact ROUNDS=2 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:1; rand1M 257x193 0:1; stress10M 1000x777 0:1" BIG= \
  OUT=$O/ab bash scripts/gpu-ab.sh 2>&1 | tail -4
VARIANTS="base base80 named80" SCENES=stress10M SIZE=3840x2160 MODES=exact ROUNDS=2 CHECKS= BIG= \
  OUT=$O/ab4k bash scripts/gpu-ab.sh 2>&1 | tail -3
