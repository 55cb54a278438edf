#!/usr/bin/env bash
# fin16 (committed) against pipe (the eight-pixel walk's staging loads issued a batch ahead: the
# position in registers, the colour by cp.async into shared memory, the id two batches ahead),
# four rounds, exact mode; checks against cpu-ref first.
set -uo pipefail
gunzip -f .device/fin16/*.gz .device/pipe/*.gz 2>/dev/null
VARIANTS="fin16 pipe" SCENES=rand1M,stress10M MODES=exact ROUNDS=4 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:2; rand1M 257x193 0:2; stress10M 1000x777 0:1" \
  OUT=$OUT/ab bash scripts/gpu-ab.sh 2>&1 | tail -6
