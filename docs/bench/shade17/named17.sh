#!/usr/bin/env bash
# The eight-pixel walk with named barriers per group (named: a warp stages its group once every
# warp has walked that group of the batch before, and walks a group once its stager has staged
# it) against the block-wide barriers (base); checks against cpu-ref, the sanitizers on rand1M
# and rand10k through the new code, then A/B (1024x1024 and 3840x2160, exact).
# .device/named/circles: the committed code with dropped_named_barriers.patch as first measured
# (its groups count computed at the batch's start and a __syncwarp inside the group loop: 20
# bytes spilled); .device/base/circles: the same with CIRCLES_ROWS8_NAMED 0 (the committed walk).
set -uo pipefail
O=${OUT:-/tmp/out}
mkdir -p $O
gunzip -f .device/*/circles.gz
for tool in memcheck racecheck synccheck; do
  for sc in rand1M rand10k; do
    compute-sanitizer --tool $tool --error-exitcode 9 .device/named/circles render $sc -r cuda-tile-binned -s 257x193 \
      -o /tmp/san.png > /tmp/san.log 2>&1
    echo "$tool named $sc: rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/san.log)" | tee -a $O/sanitizer.runs.txt
  done
done
VARIANTS="base named" SCENES=rand1M,stress10M MODES=exact ROUNDS=3 CHECK_MODES=exact \
  CHECKS="rand1M 1000x777 0:2; rand1M 257x193 0:2; stress10M 1000x777 0:1; rand1M 1023x1025 0:1" BIG= \
  OUT=$O/ab bash scripts/gpu-ab.sh 2>&1 | tail -4
VARIANTS="base named" SCENES=stress10M SIZE=3840x2160 MODES=exact ROUNDS=3 CHECKS= BIG= \
  OUT=$O/ab4k bash scripts/gpu-ab.sh 2>&1 | tail -3
