#!/usr/bin/env bash
# The thirteenth session's first device call: the coverage test as dx*dx <= r^2 - dy^2 with the
# row's limit staged per circle and row (s_lim) in the row groups' walk of binned exact frames,
# against the session's base (5103d56), in turn, three rounds; `circles check` of the new binary
# against its cpu-ref first; the GPU tests (CIRCLES_REQUIRE_GPU=1) on the new one; the walk's SASS.
# Binaries: .device/base/circles (base), .device/bin/{circles,circles_gpu_tests} (new).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=.device/base/circles
N=.device/bin/circles
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
for job in "rand1M 1000x777 0:2" "rand1M 1024x1024 0" "rand1M 257x193 0:2" "stress10M 1000x777 0" "rand100k 1000x777 0:2" "micro2M 1000x777 0:2" "snow 1000x777 0:2"; do
  set -- $job
  timeout 120 "$N" check "$1" -r cuda-tile-binned -s "$2" --frames "$3" > "$OUT/tmp.log" 2>&1
  echo "check $1 $2 frames $3: rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
done
echo "checks done after $(( $(date +%s) - T0 )) s"
bench() {  # label binary
  "$2" bench --scenes rand1M,stress10M,rand100k,micro2M -s 1024x1024 --renderers cuda-tile-binned \
    --tile-size 32 --modes exact --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
  { echo "== $1"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="$1" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $7, $8, $9, $10, $11, $12, $13, $14}' "$OUT/tmp.log" |
    tee -a "$OUT/ab_summary.txt"
}
for round in 1 2 3; do
  bench base "$B"
  bench limits "$N"
done
for bin in "$B" "$N"; do
  timeout 120 "$bin" bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --tile-size 32 --modes exact \
    --repeat 5 --warmup 1 --max-seconds 20 > "$OUT/tmp.log" 2>&1
  { echo "== 4K $bin"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  grep cuda-tile-binned "$OUT/tmp.log" | sed "s|^|4K $bin |" | tee -a "$OUT/ab_summary.txt"
done
echo "A/B done after $(( $(date +%s) - T0 )) s"
cuobjdump -sass "$N" 2>/dev/null | awk '/Function : .*shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=1} p&&/Function : /&&!/ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=0} p' > "$OUT/sass_walk.txt"
wc -l "$OUT/sass_walk.txt"
echo "== GPU tests (CIRCLES_REQUIRE_GPU=1)"
CIRCLES_REQUIRE_GPU=1 timeout 300 .device/bin/circles_gpu_tests --gtest_brief=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$?"
tail -4 "$OUT/gpu_tests.log"
echo "all done after $(( $(date +%s) - T0 )) s"
