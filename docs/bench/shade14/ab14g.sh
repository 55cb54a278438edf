#!/usr/bin/env bash
# The fourteenth session's last A/B call: base (bc6993f) against fin (the committed code: binned
# exact frames take their tiles border last), every scene at 1024x1024, both modes, three rounds,
# and stress10M at 3840x2160; `circles check` of fin against cpu-ref first (.device/fin).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="base fin"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for job in "rand1M 1000x777 0:2" "rand1M 1024x1024 0" "rand1M 257x193 0:2" "rand1M 2000x64 0" "rand1M 64x2000 0" \
           "rand1M 1023x1025 0" "stress10M 1000x777 0" "micro2M 1000x777 0:2" "rand100k 1000x777 0:2" "snow 1000x777 0:3" \
           "biglittle 1000x777 0:2" "pattern 257x193 0:3" "rand10k 2000x64 0"; do
  set -- $job
  for mode in "" --early-exit; do
    timeout 150 .device/fin/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" $mode > "$OUT/tmp.log" 2>&1
    echo "fin check $1 $2 frames $3 ${mode:-exact}: rc=$? $(grep -c PASS "$OUT/tmp.log") PASS; $(tail -1 "$OUT/tmp.log")" >> "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s: $(grep -c 'rc=0' "$OUT/checks.txt") rc=0 of $(wc -l < "$OUT/checks.txt")"
for round in 1 2 3; do
  for v in $V; do
    .device/$v/circles bench -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact,early-exit --repeat 20 --warmup 3 --max-seconds 1 > "$OUT/tmp.log" 2>&1
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
