#!/usr/bin/env bash
# The viewer's GPU tests and checks on the committed code (the default build's binaries, stripped,
# .device/view18): `scripts/gpu-run.sh viewer` (rand1M's frames in the viewer take the eight-pixel walk, its colour in half precision).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
gunzip -f .device/view18/*.gz
OUT=${OUT:-/tmp/out} BIN=.device/view18 GPU_RUN_PACK=1 bash scripts/gpu-run.sh viewer > /tmp/viewer.log 2>&1
echo "gpu-run rc=$?"
grep -E "tests ran|PASSED|FAILED|SKIPPED|ERROR SUMMARY|FPS" /tmp/viewer.log | head -20
