#!/usr/bin/env bash
# The thirteenth session's fifth A/B call, against the committed code (head, 1fde294's kernels):
# e: the next batch's id and position loaded before the walk, the limits' y and radius^2 read
# from the staged geometry (59 registers); h: e with its colour loaded too (63); i: e with the
# limits shuffled (64); j: h with the limits shuffled (64). Binaries gzipped in .device/.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="head e h i j"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in h i j; do
  for job in "rand1M 1000x777 0:2" "stress10M 1000x777 0"; do
    set -- $job
    timeout 120 .device/$v/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" > "$OUT/tmp.log" 2>&1
    echo "$v check $1 $2 frames $3: rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
for round in 1 2 3; do
  for v in $V; do
    .device/$v/circles bench --scenes rand1M,stress10M -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
  done
done
for v in $V; do
  timeout 120 .device/$v/circles bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --tile-size 32 --modes exact \
    --repeat 5 --warmup 1 --max-seconds 20 > "$OUT/tmp.log" 2>&1
  { echo "== 4K $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="4K $v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
done
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
