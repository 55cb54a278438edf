#!/usr/bin/env bash
# The twelfth session's one device call (its device time allowed one): an A/B of the scatter's
# sort beside the scan, and of the count's circles loaded a round ahead, against the session's
# base (76daf10's kernels, the code at d86162e), three rounds in turn; then `circles check` of the scatter change alone,
# the GPU tests (CIRCLES_REQUIRE_GPU=1) and compute-sanitizer with both changes on.
# Binaries: .device/base/circles (base), .device/bin/{circles,circles_gpu_tests} (new; the count's
# load ahead with CIRCLES_AB_COUNT_AHEAD=1). Everything goes to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=.device/base/circles
N=.device/bin/circles
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
bench() {  # label binary [VAR=value ...]
  local label=$1 bin=$2
  shift 2
  env "$@" timeout 90 "$bin" bench --scenes rand1M,micro2M,rand100k,snow -s 1024x1024 --renderers cuda-tile-binned \
    --tile-size 32 --modes exact,early-exit --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
  { echo "== $label"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="$label" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $7, $8, $9, $10, $11, $12, $13, $14}' "$OUT/tmp.log" |
    tee -a "$OUT/ab_summary.txt"
}
for round in 1 2 3; do
  bench base "$B"
  bench overlap "$N" CIRCLES_AB_COUNT_AHEAD=0
  bench ahead "$N" CIRCLES_AB_COUNT_AHEAD=1
done
echo "A/B done after $(( $(date +%s) - T0 )) s"
# The scatter change alone against cpu-ref (the GPU tests below run with the count ahead too).
for s in rand1M micro2M rand100k snow; do
  for m in "" --early-exit; do
    CIRCLES_AB_COUNT_AHEAD=0 timeout 60 "$N" check "$s" -r cuda-tile-binned $m -s 1000x777 --frames 0:2 > "$OUT/tmp.log" 2>&1
    echo "check $s ${m:-exact} (count ahead off): rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
echo "== GPU tests (CIRCLES_REQUIRE_GPU=1, CIRCLES_AB_COUNT_AHEAD=1)"
CIRCLES_REQUIRE_GPU=1 CIRCLES_AB_COUNT_AHEAD=1 timeout 240 .device/bin/circles_gpu_tests --gtest_brief=1 > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$?"
tail -4 "$OUT/gpu_tests.log"
echo "tests done after $(( $(date +%s) - T0 )) s"
# compute-sanitizer, both changes on, 257x193: the binned-by-counting scenes (snow: the step fused
# into the count, so the count's plain path), exact and early exit; a verdict line a run.
: > "$OUT/sanitizer.log"
for tool in memcheck racecheck synccheck; do
  for s in rand1M micro2M snow rand100k; do
    for m in "" --early-exit; do
      [ $(( $(date +%s) - T0 )) -lt 420 ] || { echo "$tool $s ${m:-exact}: not run (time)" | tee -a "$OUT/sanitizer.runs.txt"; continue; }
      f=0; [ "$s" = snow ] && f=0:3
      CIRCLES_AB_COUNT_AHEAD=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$N" render "$s" \
        -r cuda-tile-binned $m -s 257x193 --frames $f -o /tmp/san.png > /tmp/san.log 2>&1
      rc=$?
      cat /tmp/san.log >> "$OUT/sanitizer.log"
      echo "$tool $s ${m:-exact}: rc=$rc $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/san.log)" | tee -a "$OUT/sanitizer.runs.txt"
    done
  done
done
echo "all done after $(( $(date +%s) - T0 )) s"
