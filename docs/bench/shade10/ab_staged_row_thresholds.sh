#!/bin/bash
# Session 10, A/B 1: the row groups' culling with the y part staged per circle (thr) against 1ffd693 (base).
A=.device/ab
echo "== check thr against cpu-ref"
for s in rand1M stress10M; do
  $A/circles_thr check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
done
$A/circles_thr check rand1M -r cuda-tile-binned -s 257x193 2>&1 | tail -1
$A/circles_thr check rand1M -r cuda-tile-binned -s 1024x1024 2>&1 | tail -1
for rep in 1 2 3; do
  for v in base thr; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for rep in 1 2; do
  for v in base thr; do
    echo "=== $v 4K rep $rep"
    $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 --warmup 1 --max-seconds 5 2>&1 | grep -E "^[a-z]"
  done
done
echo "== sanitizers on thr"
for t in memcheck racecheck; do
  CIRCLES_BINNED_TINY=0 compute-sanitizer --tool $t --error-exitcode 9 $A/circles_thr render rand1M -r cuda-tile-binned -s 257x193 -o /tmp/s.png > /tmp/s.log 2>&1
  echo "$t rand1M: rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/s.log | tail -1)"
done
