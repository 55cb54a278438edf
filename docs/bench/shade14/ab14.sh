#!/usr/bin/env bash
# The fourteenth session's first A/B call: the scatter of binning by counting at more blocks an SM.
# base: the committed code (834c967); s5, s6: __launch_bounds__(256, 5 or 6) (48 registers, 16
# bytes spilled; 40, 136); t3: 512 threads a block, 4 keys a thread in the block sort (the same
# 2,048 slots; the smaller sort 1,536), at three blocks an SM (40 registers, 8 bytes spilled); t0:
# the same at its own 56 registers (two blocks). Then Nsight Compute on base: the scatter of a
# steady frame (the third) with its source view, and the shade's pipes. Binaries gzipped in .device/:
# the variants built from 834c967 with dropped_scatter_occupancy.patch and its macros defined
# (s5: SCATTER_MINB=5; s6: 6; t3: BIN_THREADS=512 BIN_ITEMS=4 BIN_ITEMS_FEW=3 SCATTER_MINB=3; t0: the same
# without SCATTER_MINB).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="base s5 s6 t3 t0"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in $V; do
  for job in "rand1M 1000x777 0:2" "micro2M 1000x777 0:2" "rand100k 1000x777 0:1"; do
    set -- $job
    timeout 120 .device/$v/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" > "$OUT/tmp.log" 2>&1
    echo "$v check $1 $2 frames $3: rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s"
for round in 1 2 3; do
  for v in $V; do
    .device/$v/circles bench --scenes rand1M,micro2M,rand100k -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact,early-exit --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' | tee -a "$OUT/ab_summary.txt"
  done
done
echo "bench done after $(( $(date +%s) - T0 )) s"
mkdir -p /tmp/ncu
ncu --section SourceCounters --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section LaunchStats --section SpeedOfLight -k regex:scatter -s 2 -c 1 -f -o /tmp/ncu/scatter \
  .device/base/circles render rand1M -r cuda-tile-binned -s 1024x1024 --frames 0:3 -o /tmp/ncu.png > /tmp/ncu/scatter.log 2>&1
echo "ncu scatter rc=$?"
ncu --import /tmp/ncu/scatter.ncu-rep --page details > /tmp/ncu/scatter.details.txt 2>&1
ncu --import /tmp/ncu/scatter.ncu-rep --page source --csv --print-source sass > /tmp/ncu/scatter.sass.csv 2>&1
ncu --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats --section SpeedOfLight \
  --metrics sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
  -k regex:^shade_kernel -c 1 -f -o /tmp/ncu/shade .device/base/circles render rand1M -r cuda-tile-binned -s 1024x1024 -o /tmp/ncu.png > /tmp/ncu/shade.log 2>&1
echo "ncu shade rc=$?"
ncu --import /tmp/ncu/shade.ncu-rep --page details > /tmp/ncu/shade.details.txt 2>&1
rm -f /tmp/ncu/*.ncu-rep
tar -czf "$OUT/ncu.tar.gz" -C /tmp ncu
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
