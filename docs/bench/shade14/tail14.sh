#!/usr/bin/env bash
# How much of the shade's tail the border-last order left (the committed code, .device/fin):
# Nsight Compute's elapsed and SM-active cycles of rand1M's and stress10M's shade at 1024x1024.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
gunzip -f .device/fin/circles.gz 2>/dev/null
for scene in rand1M stress10M; do
  ncu --metrics gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    -k regex:^shade_kernel -c 1 .device/fin/circles render $scene -r cuda-tile-binned -s 1024x1024 -o /tmp/t.png > "$OUT/tail_$scene.txt" 2>&1
  echo "$scene rc=$?"; grep -E "cycles|issue|duration" "$OUT/tail_$scene.txt"
done
