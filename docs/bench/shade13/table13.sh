#!/usr/bin/env bash
# The thirteenth session's table call: `scripts/gpu-run.sh fast` (every scene, both modes and
# tiles at 1024x1024; stress10M at 3840x2160) with the committed binary (.device/bin), then the
# base (5103d56, .device/base) and the committed binary in turn on rand1M, stress10M and 4K, and
# the walk loop's SASS.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/base/circles.gz
bash scripts/gpu-run.sh fast > "$OUT/fast_console.log" 2>&1
echo "fast rc=$? after $(( $(date +%s) - T0 )) s"
for round in 1 2; do
  for v in base bin; do
    .device/$v/circles bench --scenes rand1M,stress10M -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact --repeat 20 --warmup 3 --max-seconds 1.5 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
    timeout 120 .device/$v/circles bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --tile-size 32 --modes exact \
      --repeat 5 --warmup 1 --max-seconds 20 > "$OUT/tmp.log" 2>&1
    { echo "== 4K $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="4K $v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' "$OUT/tmp.log" | tee -a "$OUT/ab_summary.txt"
  done
done
cuobjdump -sass .device/bin/circles 2>/dev/null | awk '/Function : .*shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=1} p&&/Function : /&&!/ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=0} p' | sed 's/ *\/\* 0x[0-9a-f]* \*\/ *$//' | grep -v '^ *$' > "$OUT/sass_rows.txt"
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
