#!/bin/bash
# Session 10, A/B 3: binning by counting with a bigger scatter sort (kBinItems 12, 16: 3,072 and
# 4,096 pairs a block of circles, so bigger blocks of circles and a smaller matrix) against 1ffd693.
A=.device/ab
echo "== checks against cpu-ref"
for v in items12 items16; do
  for s in rand1M rand100k snow; do
    for m in "" --early-exit; do
      $A/circles_$v check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 $m 2>&1 | tail -1 | sed "s/^/$v $m: /" | cut -c1-150
    done
  done
done
for rep in 1 2 3; do
  for v in base items12 items16; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,rand100k,micro2M,snow --renderers cuda-tile-binned --tile-size 32 --modes exact,early-exit --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]|binned by" | grep -v "^bench:" | sed -E 's/.*(binned by counting \([^)]*\)).*/    \1/' | cut -c1-200
  done
done
