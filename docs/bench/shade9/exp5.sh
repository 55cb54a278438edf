#!/bin/bash
# Session 9, fifth A/B: three blocks an SM for the row groups' walk (occ3, as committed) and with
# the next visit's circle loaded a visit ahead on top (pf), against HEAD before both (base); then
# Nsight Compute's source view of rand1M's shade for occ3 and pf.
cd "$(dirname "$0")/../../.."
A=.device/ab
echo "=== check pf rand1M 1000x777"; $A/circles_pf check rand1M -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
for rep in 1 2 3; do
  for v in base occ3 pf; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for v in base occ3 pf; do
  echo "=== 4K $v"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
done
for v in occ3 pf; do
  mkdir -p /tmp/bin_$v && cp $A/circles_$v /tmp/bin_$v/circles
  BIN=/tmp/bin_$v SASS_JOBS="rand1M_$v rand1M 1024x1024 ^shade_kernel" bash scripts/gpu-run.sh sass
  mv $OUT/sass.tar.gz $OUT/sass_$v.tar.gz
done
