#!/usr/bin/env bash
# The fourteenth session's verification call, on the committed code (the scatter's loads side by
# side; .device/bin): `circles check` against cpu-ref on the scenes binned by counting, then
# `scripts/gpu-run.sh tests fast-sanitize fast` (GPU tests with the GPU required, compute-sanitizer
# on cuda-tile-binned, the table).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/bin/circles_gpu_tests.gz
for job in "rand1M 1000x777 0:2" "rand1M 257x193 0:2" "rand1M 1023x1025 0" "rand1M 2000x64 0" "micro2M 1000x777 0:2" \
           "rand100k 1000x777 0:2" "snow 1000x777 0:3"; do
  set -- $job
  for mode in "" --early-exit; do
    timeout 150 .device/bin/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" $mode > /tmp/chk.log 2>&1
    echo "check $1 $2 frames $3 ${mode:-exact}: rc=$? $(grep -c PASS /tmp/chk.log) PASS; $(tail -1 /tmp/chk.log)" | tee -a "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize fast > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -20
cp /tmp/gpu-run.log "$OUT/"
echo "all done after $(( $(date +%s) - T0 )) s"
