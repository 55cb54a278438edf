#!/usr/bin/env bash
# The thirteenth session's fourth A/B call, against the committed code (head, 1fde294's kernels):
# a: the next batch's id loaded before the walk; b: the limits' y and radius^2 read from the
# staged geometry (an 8-byte load a circle) instead of two shuffles (56 registers); c: a and b;
# e: c with the next batch's position loaded too; f: c at five blocks an SM (48 registers, no
# spill); g: b at five blocks an SM. Binaries gzipped in .device/.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="head a b c e f g"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in c e f g; do
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
