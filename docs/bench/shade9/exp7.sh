#!/bin/bash
# Session 9, seventh A/B: the row groups' walk at two blocks an SM (occ2: 128 registers, 86 used;
# rand1M's 1,024 tiles then make 3.9 waves, where three blocks make 2.6) against three (new, f5d87e8)
# and HEAD before the session (base).
cd "$(dirname "$0")/../../.."
A=.device/ab
echo "=== check occ2 rand1M 1000x777"; $A/circles_occ2 check rand1M -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
for rep in 1 2 3; do
  for v in base new occ2; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for v in base new occ2; do
  echo "=== 4K $v"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
done
