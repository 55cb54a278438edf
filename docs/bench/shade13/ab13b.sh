#!/usr/bin/env bash
# The thirteenth session's second device call: where the staged limits' time goes. Binaries in
# .device/: base (5103d56), v0 (the new coverage test, no staged limits, batches of 1,024), v1
# (limits staged with batches of 256), v2 (no limits, batches of 256), v3 (batches of 1,024 walked
# in phases of 256 circles whose limits are computed at the phase's start, 32 KB of dynamic
# shared memory). `circles check` of v3 and v0 first; then three rounds in turn; then 4K.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
for v in base v0 v1 v2 v3; do [ -f .device/$v/circles.gz ] && gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in v3 v0; do
  for job in "rand1M 1000x777 0:2" "rand1M 257x193 0:2" "stress10M 1000x777 0" "rand1M 1023x1025 0"; do
    set -- $job
    timeout 120 .device/$v/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" > "$OUT/tmp.log" 2>&1
    echo "$v check $1 $2 frames $3: rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
for round in 1 2 3; do
  for v in base v0 v1 v2 v3; do
    .device/$v/circles bench --scenes rand1M,stress10M,rand100k -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
  done
done
for v in base v0 v1 v3; do
  timeout 120 .device/$v/circles bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --tile-size 32 --modes exact \
    --repeat 5 --warmup 1 --max-seconds 20 > "$OUT/tmp.log" 2>&1
  { echo "== 4K $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="4K $v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
done
echo "all done after $(( $(date +%s) - T0 )) s"
