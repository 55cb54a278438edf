#!/bin/bash
# Session 10, A/B 2: thr with the occupancy printed, default carveout and max shared (100).
A=.device/ab
for rep in 1 2; do
  echo "=== base rep $rep"
  $A/circles_base bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-zP]"
  for c in "" 100; do
    echo "=== thr carveout '$c' rep $rep"
    $( [ -n "$c" ] && echo env PROBE_CARVEOUT=$c) $A/circles_thr bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-zP]"
  done
done
