#!/bin/bash
# Session 10, A/B 4: the walk's visit loop unrolled by two (#pragma unroll 2) against 1ffd693.
A=.device/ab
echo "== check unroll against cpu-ref"
for s in rand1M stress10M rand100k pattern biglittle hypnosis; do
  $A/circles_unroll check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -1 | cut -c1-140
  $A/circles_unroll check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 --early-exit 2>&1 | tail -1 | cut -c1-140
done
for rep in 1 2 3; do
  for v in base unroll; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M,rand100k,biglittle,pattern,rand10k,hypnosis,micro2M --renderers cuda-tile-binned --tile-size 32 --modes exact,early-exit --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]" | grep -v "^bench:" | cut -c1-150
  done
done
for v in base unroll; do
  echo "=== $v 4K"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 --warmup 1 --max-seconds 5 2>&1 | grep -E "^stress" | cut -c1-150
done
