#!/usr/bin/env bash
# The walk loop's SASS of the committed binned row-groups kernel, then compute-sanitizer on the
# direct kernels (`scripts/gpu-run.sh direct-sanitize`: their pixels' test changed with the
# coverage test's new form).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
cuobjdump -sass .device/bin/circles 2>/dev/null | awk '/Function : .*shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=1} p&&/Function : /&&!/ELi32ELb0ELb0ELi0ELi4ELb0ELb0E/{p=0} p' | sed 's/ *\/\* 0x[0-9a-f]* \*\/ *$//' | grep -v '^ *$' > /tmp/sass_rows.txt
n=$(grep -n "FLO.U32" /tmp/sass_rows.txt | tail -1 | cut -d: -f1)
sed -n "$((n-4)),$((n+40))p" /tmp/sass_rows.txt > "$OUT/sass_walk_loop.txt"
GPU_RUN_PACK=1 bash scripts/gpu-run.sh direct-sanitize 2>&1 | tail -45
