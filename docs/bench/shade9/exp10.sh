#!/bin/bash
# Session 9, tenth call: the row groups' walk of binned frames as its own kernel (kBinned, three
# blocks an SM) and direct frames back at four (head2), against the session's base (d33c0ce), on
# direct frames of small circles and on rand1M and stress10M; then the GPU tests and the three
# sanitizer tools on the kernels it touches.
cd "$(dirname "$0")/../../.."
A=.device/ab
mkdir -p /tmp/sc
for r in 4 8 12; do python3 scripts/gen_random_scene.py 16000 $r /tmp/sc/d$r.scene; done
for rep in 1 2; do
  for v in base head2; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes /tmp/sc/d4.scene,/tmp/sc/d8.scene,/tmp/sc/d12.scene,rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z/]"
  done
done
echo "== GPU tests"
CIRCLES_REQUIRE_GPU=1 .device/bin/circles_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.log 2>&1; echo "rc=$?"; tail -3 $OUT/gpu_tests.log
echo "== sanitizers"
for t in memcheck racecheck synccheck; do
  for s in rand1M stress10M /tmp/sc/d8.scene; do
    CIRCLES_BINNED_TINY=0 compute-sanitizer --tool $t --error-exitcode 9 .device/bin/circles render $s -r cuda-tile-binned -s 257x193 -o /tmp/s.png > /tmp/s.log 2>&1
    echo "$t $s exact: rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/s.log | tail -1)"
  done
done
