#!/usr/bin/env bash
# The fourteenth session's last call, on the committed code (binned exact frames take their tiles
# border last; .device/fin): `scripts/gpu-run.sh tests fast-sanitize direct-sanitize fast`.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/fin/*.gz
BIN=.device/fin GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize direct-sanitize fast > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -20
cp /tmp/gpu-run.log "$OUT/"
