#!/usr/bin/env bash
# The sixteenth session's last code (.device/fin16c: the counting kernels' sums in one helper,
# add_work, and the tile's pixel centres and background staged by one, stage_tile_centres): the
# GPU tests, `fast-sanitize` and the fast table again.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/fin16c/*.gz
BIN=.device/fin16c GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize fast > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -20
cp /tmp/gpu-run.log "$OUT/"
