#!/bin/bash
# Session 10, A/B 5: thr2 = the staged row-band thresholds as two planes (16-byte stride, no bank
# conflicts) against 1ffd693.
A=.device/ab
for s in rand1M stress10M; do $A/circles_thr2 check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -1 | cut -c1-120; done
for rep in 1 2 3; do
  for v in base thr2; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^(rand|stress)" | cut -c1-150
  done
done
