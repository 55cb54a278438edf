#!/usr/bin/env bash
# The fifteenth session's verification of its last code (.device/fin15: the limits staged four rows
# a lane and the walk's shared addresses carried): `scripts/gpu-run.sh tests fast-sanitize fast`.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
gunzip -f .device/fin15/*.gz
BIN=.device/fin15 GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize fast > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$? after $(( $(date +%s) - T0 )) s"
grep -E "tests ran|PASSED|FAILED|SKIPPED|rc=[1-9]" /tmp/gpu-run.log | head -20
cp /tmp/gpu-run.log "$OUT/"
