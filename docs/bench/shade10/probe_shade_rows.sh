#!/bin/bash
# Tail probe: shade grid limited to R tile rows (32 tiles a row), rand1M and stress10M at 1024x1024.
B=.device/ab/circles_probe
for scene in rand1M stress10M; do
  for r in 4 6 7 12 13 18 19 24 25 28 32; do
    echo "rows=$r $scene"
    PROBE_SHADE_ROWS=$r $B bench --scenes $scene --renderers cuda-tile-binned --tile-size 32 --repeat 15 --warmup 3 --max-seconds 3 2>&1 | grep -E "^$scene" | cut -c1-200
  done
done
