#!/usr/bin/env bash
# The fourteenth session's fifth A/B call: base (bc6993f) against el, the row groups' walk with
# its tiles taken border last (blocks start in index order, so the inner tiles go first and the
# image's border tiles, with fewer pairs in rand1M, make the last wave's stragglers): built from
# edges_last_variants.patch with EDGES_LAST defined. Checks against cpu-ref first.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="base el"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for job in "rand1M 1000x777 0:2" "rand1M 1024x1024 0" "rand1M 257x193 0:2" "rand1M 2000x64 0" "rand1M 64x2000 0" \
           "rand1M 1023x1025 0" "stress10M 1000x777 0"; do
  set -- $job
  for mode in "" --early-exit; do
    timeout 150 .device/el/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" $mode > "$OUT/tmp.log" 2>&1
    echo "el check $1 $2 frames $3 ${mode:-exact}: rc=$? $(grep -c PASS "$OUT/tmp.log") PASS; $(tail -1 "$OUT/tmp.log")" >> "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s: $(grep -c 'rc=0' "$OUT/checks.txt") rc=0 of $(wc -l < "$OUT/checks.txt")"
for round in 1 2 3 4; do
  for v in $V; do
    .device/$v/circles bench --scenes rand1M,stress10M -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' >> "$OUT/ab_summary.txt"
  done
done
for v in $V; do
  timeout 120 .device/$v/circles bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --tile-size 32 --modes exact \
    --repeat 5 --warmup 1 --max-seconds 20 > "$OUT/tmp.log" 2>&1
  { echo "== 4K $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, "4K", $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' >> "$OUT/ab_summary.txt"
done
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
