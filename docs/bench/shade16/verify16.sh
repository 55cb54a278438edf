#!/usr/bin/env bash
# The sixteenth session's verification of its code (.device/fin16: binned exact frames of flat
# circles that compose no runs walk at eight pixels a lane, shade_rows8_kernel):
# `scripts/gpu-run.sh tests fast-sanitize fast`.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/fin16/*.gz
BIN=.device/fin16 GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize fast > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -20
cp /tmp/gpu-run.log "$OUT/"
