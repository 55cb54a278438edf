#!/usr/bin/env bash
# The eighteenth session's code (.device/v18: the eight-pixel walk's colour in half precision by
# default, --float-colour for float): the GPU tests with the GPU required, the fast table (every
# scene, exact, exact-float and early exit, both tiles; stress10M at 3840x2160), the walk's SASS;
# then (second call, STEP=sanitize) fast-sanitize, rand1M's float build included.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/v18/*.gz 2>/dev/null
if [ "${STEP:-main}" = sanitize ]; then
  BIN=.device/v18 GPU_RUN_PACK=1 bash scripts/gpu-run.sh fast-sanitize > /tmp/gpu-run.log 2>&1
else
  cuobjdump -sass .device/v18/circles 2>/dev/null |
    awk '/Function : .*shade_rows8_kernelILb0ELb1E/ {on=1} on && /Function : / && !/shade_rows8_kernelILb0ELb1E/ {on=0} on' \
      > "$OUT/sass_rows8_half.txt"
  BIN=.device/v18 GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast > /tmp/gpu-run.log 2>&1
fi
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -30
cp /tmp/gpu-run.log "$OUT/"
