#!/usr/bin/env bash
# The fourteenth session's fourth A/B call: base (834c967), sb (the scatter's loads side by side),
# pk (sb, and the count keeps each circle's tiles, where its rect is at most 2x2 tiles, as a
# packed word that the scatter reads instead of walking the rect and testing its tiles again),
# pkt (pk, and the count lets the scan's blocks launch from its start). Checks against cpu-ref
# over several frames and awkward sizes first.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="base sb pk pkt"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in pk pkt; do
  for job in "rand1M 1000x777 0:3" "micro2M 1000x777 0:3" "rand100k 1000x777 0:2" "snow 1000x777 0:3" "rand1M 257x193 0:2" \
             "rand1M 1023x1025 0:1" "rand1M 2000x64 0:1" "rand1M 64x2000 0:1" "micro2M 257x193 0:1" "rand10k 1000x777 0:1"; do
    set -- $job
    for mode in "" --early-exit; do
      timeout 120 .device/$v/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" $mode > "$OUT/tmp.log" 2>&1
      echo "$v check $1 $2 frames $3 ${mode:-exact}: rc=$? $(grep -c PASS "$OUT/tmp.log") PASS; $(tail -1 "$OUT/tmp.log")" >> "$OUT/checks.txt"
    done
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s: $(grep -c 'rc=0' "$OUT/checks.txt") rc=0 of $(wc -l < "$OUT/checks.txt")"
for round in 1 2 3; do
  for v in $V; do
    .device/$v/circles bench --scenes rand1M,micro2M,rand100k,snow -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact,early-exit --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' >> "$OUT/ab_summary.txt"
  done
done
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
