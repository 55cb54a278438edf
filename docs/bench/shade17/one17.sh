#!/usr/bin/env bash
# The eight-pixel walk's keep factor and alpha from the kernel's arguments where every circle has
# the same alpha (one: the committed code with dropped_one_alpha.patch) against the committed walk
# (base: the binary of named17.sh's base, the same walk), exact; checks against cpu-ref first; then
# the GPU tests and fast-sanitize on one (its circles and circles_gpu_tests in .device/one).
set -uo pipefail
O=${OUT:-/tmp/out}
mkdir -p $O
gunzip -f .device/*/*.gz 2>/dev/null
VARIANTS="base one" SCENES=rand1M,stress10M MODES=exact ROUNDS=3 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:2; rand1M 257x193 0:2; stress10M 1000x777 0:1; rand1M 1023x1025 0:1" BIG= \
  OUT=$O/ab bash scripts/gpu-ab.sh 2>&1 | tail -4
VARIANTS="base one" SCENES=stress10M SIZE=3840x2160 MODES=exact ROUNDS=3 CHECKS= BIG= \
  OUT=$O/ab4k bash scripts/gpu-ab.sh 2>&1 | tail -3
BIN=.device/one OUT=$O/v GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize 2>&1 | grep -E "PASSED|FAILED|SKIPPED|rc=[1-9]|==" | head -20
