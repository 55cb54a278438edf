#!/bin/bash
# Session 9, eighth A/B on the row groups' kernel, against f5d87e8 (new): its four row-group boxes
# culled from the circle's half-height at the box's nearest column (one rsqrt, two compares a box:
# sq), batches of 1,024 staged two circles a thread at a time (b2), and both (sqb2).
cd "$(dirname "$0")/../../.."
A=.device/ab
for v in sq b2 sqb2; do
  for s in rand1M stress10M; do
    echo "=== check $v $s 1000x777"; $A/circles_$v check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
  done
done
for rep in 1 2 3; do
  for v in new sq b2 sqb2; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for v in new sq b2 sqb2; do
  echo "=== 4K $v"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
done
