#!/usr/bin/env bash
# fin16 (committed: the eight-pixel walk built for eight blocks an SM, 64 registers) against b9
# (nine blocks, 56 registers, 24 bytes spilled), four rounds, exact mode; checks first.
set -uo pipefail
gunzip -f .device/fin16/*.gz .device/b9/*.gz 2>/dev/null
VARIANTS="fin16 b9" SCENES=rand1M,stress10M MODES=exact ROUNDS=4 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:2; stress10M 1000x777 0:1" \
  OUT=$OUT/ab bash scripts/gpu-ab.sh 2>&1 | tail -6
