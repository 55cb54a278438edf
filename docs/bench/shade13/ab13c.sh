#!/usr/bin/env bash
# The thirteenth session's third device call: the staged limits (v1: batches of 256, three blocks
# an SM) with four blocks an SM (v4: 64 registers, no spill), with the walk's x and keep in one
# 8-byte load (v6), and both (v8), against the base (5103d56). Binaries gzipped in .device/.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
for v in base v1 v4 v6 v8; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in v8 v6 v4; do
  for job in "rand1M 1000x777 0:2" "stress10M 1000x777 0"; do
    set -- $job
    timeout 120 .device/$v/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" > "$OUT/tmp.log" 2>&1
    echo "$v check $1 $2 frames $3: rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
for round in 1 2 3; do
  for v in base v1 v4 v6 v8; do
    .device/$v/circles bench --scenes rand1M,stress10M -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
  done
done
for v in base v4 v6 v8; do
  timeout 120 .device/$v/circles bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --tile-size 32 --modes exact \
    --repeat 5 --warmup 1 --max-seconds 20 > "$OUT/tmp.log" 2>&1
  { echo "== 4K $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="4K $v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
done
echo "all done after $(( $(date +%s) - T0 )) s"
