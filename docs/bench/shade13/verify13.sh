#!/usr/bin/env bash
# The thirteenth session's verification call: `circles check` of the committed kernels against
# cpu-ref on rand1M and stress10M at awkward sizes, then `scripts/gpu-run.sh tests fast-sanitize`
# (GPU tests with the GPU required; compute-sanitizer on cuda-tile-binned). Binaries: .device/bin.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
for job in "rand1M 1000x777 0:2" "rand1M 1024x1024 0:2" "rand1M 257x193 0:2" "rand1M 1023x1025 0" \
           "rand1M 64x2000 0" "rand1M 2000x64 0" "stress10M 1000x777 0" "stress10M 1024x1024 0"; do
  set -- $job
  timeout 150 .device/bin/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" > "$OUT/tmp.log" 2>&1
  echo "check $1 $2 frames $3: rc=$? $(tail -1 "$OUT/tmp.log")" | tee -a "$OUT/checks.txt"
done
echo "checks done after $(( $(date +%s) - T0 )) s"
GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests fast-sanitize 2>&1 | tail -40
echo "all done after $(( $(date +%s) - T0 )) s"
