#!/bin/bash
# Session 9, first A/B: the row groups' culling for a whole batch before the walk (circles_cull)
# against HEAD before it (circles_base); checks against cpu-ref at a size off the tile grid first.
cd "$(dirname "$0")/../../.."
A=.device/ab
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
for s in rand1M stress10M fireworks hypnosis; do
  echo "=== check $s 1000x777"; $A/circles_cull check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
done
for rep in 1 2 3; do
  for v in base cull; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M,rand100k,fireworks,hypnosis,pattern,micro2M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for rep in 1 2; do
  for v in base cull; do
    echo "=== 4K $v rep $rep"
    $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
  done
done
