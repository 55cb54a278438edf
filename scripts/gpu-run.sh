#!/usr/bin/env bash
# One device run on the GPU machine: GPU tests with the GPU required, compute-sanitizer on the
# kernels, then the benchmark. Expects the executables in $BIN (default .device/bin) and writes
# logs under $OUT. Usage: bash scripts/gpu-run.sh [tests] [sanitize] [bench] (default: all three).
set -uo pipefail
BIN=${BIN:-.device/bin}
OUT=${OUT:-/tmp/circles-gpu-out}
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests sanitize bench)
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      echo "== GPU tests (CIRCLES_REQUIRE_GPU=1)"
      CIRCLES_REQUIRE_GPU=1 "$BIN/circles_gpu_tests" --gtest_brief=1 2>&1 | tee "$OUT/gpu_tests.log" | tail -25
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      ;;
    sanitize)
      echo "== compute-sanitizer"
      : > "$OUT/sanitizer.log"
      for tool in memcheck racecheck synccheck; do
        for r in $("$BIN/circles" list | awk '/^  cuda-/ {print $1}'); do
          for scene in rand10k pattern snow; do
            frames=0; [ "$scene" = snow ] && frames=0:3
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN/circles" render "$scene" \
              -r "$r" -s 257x193 --frames "$frames" -o /tmp/san.png > /tmp/san.log 2>&1
            rc=$?
            cat /tmp/san.log >> "$OUT/sanitizer.log"
            line=$(grep -E "(ERROR|RACECHECK) SUMMARY" /tmp/san.log)
            echo "$tool $r $scene: rc=$rc $line"
            [ "$rc" -eq 0 ] || status=1
          done
        done
      done
      ;;
    bench)
      echo "== benchmark 1024x1024"
      "$BIN/circles" bench -s 1024x1024 --frames 20 --warmup 3 --max-seconds 3 \
        --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
      ;;
  esac
done
exit $status
