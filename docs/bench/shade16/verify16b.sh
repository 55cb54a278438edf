#!/usr/bin/env bash
# The sixteenth session's last code (.device/fin16b: the counting kernels' sums in one helper,
# add_work): the GPU tests and `fast-sanitize`, and the fast table again.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/fin16b/*.gz
BIN=.device/fin16b GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -20
cp /tmp/gpu-run.log "$OUT/"
