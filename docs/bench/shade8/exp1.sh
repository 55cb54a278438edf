#!/bin/bash
# Session 8, first look: SASS of the binary, the rand1M shade's source view, stress10M at 4K with box runs vs per-row-group walk.
cd "$(dirname "$0")/.."
B=.device/bin/circles
(cuobjdump -sass $B 2>&1 | gzip > $OUT/circles_sass.txt.gz) &
for rep in 1 2; do
  for c in default 0; do
    echo "=== compose $c rep $rep"
    if [ $c = default ]; then $B bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]";
    else CIRCLES_BINNED_COMPOSE=0 $B bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"; fi
  done
done
wait
SASS_JOBS="rand1M rand1M 1024x1024 ^shade_kernel
stress4k stress10M 3840x2160 ^shade_kernel" bash scripts/gpu-run.sh sass
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
