#!/usr/bin/env bash
# The fourteenth session's last kernel change: snow's binned exact frames back in index order
# (.device/snowx; base: bc6993f, fin: border last for every binned exact frame). Order-balanced
# A/B at 1920x1080 and 1024x1024, then `scripts/gpu-run.sh tests fast-sanitize` on snowx.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
VARIANTS="base fin snowx" CHECKS="snow 1000x777 0:3; rand1M 257x193 0:2" CHECKED=snowx SCENES=rand1M,rand100k,snow SIZE=1920x1080 \
  MODES=exact ROUNDS=4 BIG="" OUT="$OUT/hd" bash scripts/gpu-ab.sh
VARIANTS="base fin snowx" CHECKS="" SCENES=snow,rand1M SIZE=1024x1024 MODES=exact,early-exit ROUNDS=4 BIG="" OUT="$OUT/sq" \
  bash scripts/gpu-ab.sh
gunzip -f .device/snowx/circles_gpu_tests.gz
BIN=.device/snowx GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize > /tmp/gpu-run.log 2>&1
echo "gpu-run rc=$?"
grep -E "PASSED|FAILED|SKIPPED" /tmp/gpu-run.log | head
cp /tmp/gpu-run.log "$OUT/"
