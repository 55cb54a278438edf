set -uo pipefail
gunzip -f .device/r1/circles.gz 2>/dev/null
export CIRCLES_BINNED_RUNS=1
SASS_JOBS="stress4k stress10M 3840x2160 ^shade_rows8" BIN=.device/r1 bash scripts/gpu-run.sh sass
