#!/usr/bin/env bash
# After the session's review (.device/r18: HalfPixel's read-out no longer adds the batch's alpha,
# always 0 by then): the GPU tests with the GPU required, checks against cpu-ref, and the two
# frames the half walk serves, default and --float-colour.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
gunzip -f .device/r18/*.gz 2>/dev/null
CIRCLES_REQUIRE_GPU=1 .device/r18/circles_gpu_tests --gtest_brief=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$?"; tail -3 "$OUT/gpu_tests.log"
for m in "" --float-colour; do
  .device/r18/circles check rand1M -r cuda-tile-binned -s 1000x777 $m 2>&1 | grep -E "PASS|FAIL" | sed "s|^|${m:-default}: |"
done | tee "$OUT/checks.txt"
.device/r18/circles bench --renderers cuda-tile-binned --tile-size 32 --scenes rand1M -s 1024x1024 --modes exact,exact-float \
  --repeat 20 --warmup 3 > "$OUT/bench_rand1M.log" 2>&1
.device/r18/circles bench --renderers cuda-tile-binned --tile-size 32 --scenes stress10M -s 3840x2160 --modes exact,exact-float \
  --repeat 5 --warmup 1 --max-seconds 20 > "$OUT/bench_stress4k.log" 2>&1
grep -hE "^(rand1M|stress10M) " "$OUT/bench_rand1M.log" "$OUT/bench_stress4k.log"
