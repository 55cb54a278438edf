#!/usr/bin/env bash
# The fourteenth session's third A/B call, all on top of sb (the scatter's loads side by side):
# c1: the count's matrix columns spread evenly over two blocks an SM (rand1M: 264 blocks of 7 or
# 8 columns, where 245 blocks of 8 left 19 SMs one block); m1: no memset of the count's stats
# in a frame whose first chunk went ahead: the shade of the frame before kept them for the host
# and zeroed them; cm: both. base: 834c967. Checks against cpu-ref over several frames first.
# c1, m1, cm: built with dropped_count_balance_stats_rezero.patch (on top of sb) and COUNT_BALANCE,
# STATS_REZERO or both defined.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="base sb c1 m1 cm"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in c1 m1 cm; do
  for job in "rand1M 1000x777 0:3" "micro2M 1000x777 0:3" "rand100k 1000x777 0:2" "snow 1000x777 0:3" "rand1M 257x193 0:2" "biglittle 1000x777 0:1"; do
    set -- $job
    for mode in "" --early-exit; do
      timeout 120 .device/$v/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" $mode > "$OUT/tmp.log" 2>&1
      echo "$v check $1 $2 frames $3 ${mode:-exact}: rc=$? $(grep -c PASS "$OUT/tmp.log") PASS; $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
    done
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
for round in 1 2 3; do
  for v in $V; do
    .device/$v/circles bench --scenes rand1M,micro2M,rand100k,snow,biglittle,pattern,hypnosis -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact,early-exit --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' >> "$OUT/ab_summary.txt"
  done
done
for v in $V; do
  .device/$v/circles bench --scenes stress10M -s 1024x1024 --renderers cuda-tile-binned \
    --tile-size 32 --modes exact --repeat 10 --warmup 2 --max-seconds 3 > "$OUT/tmp.log" 2>&1
  { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' >> "$OUT/ab_summary.txt"
done
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
