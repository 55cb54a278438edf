#!/usr/bin/env bash
# The thirteenth session's eighth A/B call: the walk takes two circles of a row group's mask a
# pass, their loads side by side (an odd last one pairs with limits no pixel meets), at four
# blocks an SM (p4, 64 registers) and three (p3, 72), against head (c5cef68's walk, built
# from the same file with the pairs off). Binaries gzipped in .device/.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="head p4 p3"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for v in p4 p3; do
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
cuobjdump -sass .device/p4/circles 2>/dev/null | awk '/Function : .*shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=1} p&&/Function : /&&!/ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=0} p' | sed 's/ *\/\* 0x[0-9a-f]* \*\/ *$//' | grep -v '^ *$' > /tmp/sass_p4.txt
n=$(grep -n "FLO.U32" /tmp/sass_p4.txt | tail -1 | cut -d: -f1); sed -n "$((n-30)),$((n+60))p" /tmp/sass_p4.txt > "$OUT/sass_p4_loop.txt"
echo "all done after $(( $(date +%s) - T0 )) s"
