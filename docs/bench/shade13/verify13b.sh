#!/usr/bin/env bash
# The thirteenth session's last call, on the committed code with the loads ahead and the limits
# read back from the staged geometry (.device/bin): `circles check` against cpu-ref, then
# `scripts/gpu-run.sh tests fast-sanitize fast` (GPU tests with the GPU required, compute-sanitizer
# on cuda-tile-binned, the table), then 1fde294's binary (.device/head) and this one in turn on
# rand1M, stress10M and 4K, twice, and the walk loop's SASS.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/head/circles.gz
for job in "rand1M 1000x777 0:2" "rand1M 1024x1024 0:2" "rand1M 257x193 0:2" "rand1M 1023x1025 0" \
           "rand1M 64x2000 0" "rand1M 2000x64 0" "stress10M 1000x777 0" "stress10M 1024x1024 0"; do
  set -- $job
  timeout 150 .device/bin/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" > /tmp/chk.log 2>&1
  echo "check $1 $2 frames $3: rc=$? $(tail -1 /tmp/chk.log)" | tee -a "$OUT/checks.txt"
done
echo "checks done after $(( $(date +%s) - T0 )) s"
GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize fast > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -20
for round in 1 2; do
  for v in head bin; do
    .device/$v/circles bench --scenes rand1M,stress10M -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact --repeat 20 --warmup 3 --max-seconds 1.5 > /tmp/ab.log 2>&1
    { echo "== $v"; cat /tmp/ab.log; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' /tmp/ab.log | tee -a "$OUT/ab_summary.txt"
    timeout 120 .device/$v/circles bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --tile-size 32 --modes exact \
      --repeat 5 --warmup 1 --max-seconds 20 > /tmp/ab.log 2>&1
    { echo "== 4K $v"; cat /tmp/ab.log; } >> "$OUT/ab.log"
    awk -v l="4K $v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $4, $7, $8}' /tmp/ab.log | tee -a "$OUT/ab_summary.txt"
  done
done
cuobjdump -sass .device/bin/circles 2>/dev/null | awk '/Function : .*shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=1} p&&/Function : /&&!/ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=0} p' | sed 's/ *\/\* 0x[0-9a-f]* \*\/ *$//' | grep -v '^ *$' > /tmp/sass_rows.txt
n=$(grep -n "FLO.U32" /tmp/sass_rows.txt | tail -1 | cut -d: -f1)
sed -n "$((n-4)),$((n+40))p" /tmp/sass_rows.txt > "$OUT/sass_walk_loop.txt"
echo "all done after $(( $(date +%s) - T0 )) s"
