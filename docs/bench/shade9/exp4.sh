#!/bin/bash
# Session 9, fourth A/B, exact frames: three blocks an SM for the row groups' kernel (occ3), with
# batches of 1,024 circles there too (occ3b), and three blocks for every exact four-pixel kernel
# (occ3all: composing and direct ones as well), against HEAD (base).
cd "$(dirname "$0")/../../.."
A=.device/ab
for v in occ3b occ3all; do
  for s in rand1M rand100k pattern fireworks; do
    echo "=== check $v $s 1000x777"; $A/circles_$v check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
  done
done
for rep in 1 2; do
  for v in base occ3 occ3b occ3all; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for v in base occ3 occ3b; do
  echo "=== 4K $v"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
done
