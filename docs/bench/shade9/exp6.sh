#!/bin/bash
# Session 9, sixth A/B: on top of three blocks an SM (occ3), the row group's mask chosen by two
# selects instead of a branch (sel), and also the next circle picked a visit ahead (pick), against
# HEAD before all three (base); then Nsight Compute's source view of rand1M's shade for pick.
cd "$(dirname "$0")/../../.."
A=.device/ab
for v in sel pick; do
  for s in rand1M stress10M; do
    echo "=== check $v $s 1000x777"; $A/circles_$v check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
  done
done
for rep in 1 2 3; do
  for v in base occ3 sel pick; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for v in base occ3 sel pick; do
  echo "=== 4K $v"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
done
mkdir -p /tmp/bin_pick && cp $A/circles_pick /tmp/bin_pick/circles
BIN=/tmp/bin_pick SASS_JOBS="rand1M_pick rand1M 1024x1024 ^shade_kernel" bash scripts/gpu-run.sh sass
