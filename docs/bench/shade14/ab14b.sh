#!/usr/bin/env bash
# The fourteenth session's second A/B call: base (834c967) against sb, the scatter's loads
# issued side by side (the matrix entries of a thread's run heads all loaded before the first is
# used; the circles' counts and positions beside the count's stats). Then Nsight Compute's
# source view of sb's scatter and of the count, each in a steady frame (the third).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="base sb"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in sb; do
  for job in "rand1M 1000x777 0:2" "micro2M 1000x777 0:2" "rand100k 1000x777 0:1" "snow 1000x777 0:2" "rand1M 257x193 0:1" "rand1M 2000x64 0:1"; do
    set -- $job
    for mode in "" --early-exit; do
      timeout 120 .device/$v/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" $mode > "$OUT/tmp.log" 2>&1
      echo "$v check $1 $2 frames $3 ${mode:-exact}: rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
    done
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
for round in 1 2 3; do
  for v in $V; do
    .device/$v/circles bench --scenes rand1M,micro2M,rand100k,snow -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact,early-exit --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' | tee -a "$OUT/ab_summary.txt"
  done
done
echo "bench done after $(( $(date +%s) - T0 )) s"
mkdir -p /tmp/ncu
for job in "scatter sb regex:scatter" "count sb regex:count_tile_blocks"; do
  set -- $job
  ncu --section SourceCounters --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section LaunchStats --section SpeedOfLight -k "$3" -s 2 -c 1 -f -o /tmp/ncu/$1 \
    .device/$2/circles render rand1M -r cuda-tile-binned -s 1024x1024 --frames 0:3 -o /tmp/ncu.png > /tmp/ncu/$1.log 2>&1
  echo "ncu $1 rc=$?"
  ncu --import /tmp/ncu/$1.ncu-rep --page details > /tmp/ncu/$1.details.txt 2>&1
  ncu --import /tmp/ncu/$1.ncu-rep --page source --csv --print-source sass > /tmp/ncu/$1.sass.csv 2>&1
done
rm -f /tmp/ncu/*.ncu-rep
tar -czf "$OUT/ncu.tar.gz" -C /tmp ncu
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
