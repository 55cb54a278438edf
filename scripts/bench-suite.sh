#!/usr/bin/env bash
# The benchmark suite behind docs/BENCHMARKS.md's tables: every built-in scene through every CUDA
# renderer at each tile size, cuda-tile-binned in each mode, at 1024x1024; stress10M at 3840x2160.
# Writes OUTDIR/suite_1024.json and suite_4k.json (and their logs, with the stage medians and the
# plans), OUTDIR/device.txt, then, where python3 runs, tables_1024.md and tables_4k.md (medians,
# work and peak memory: scripts/plot_kernels.py) and, with matplotlib, bench.png.
#
#   bash scripts/bench-suite.sh [OUTDIR]    (default bench-suite; BIN=path/to/circles, default ./build/circles)
#
# Needs a GPU: without one `circles bench` refuses the CUDA renderers (exit 2). About four minutes
# on an H100 or H200.
set -euo pipefail
out=${1:-bench-suite}
bin=${BIN:-./build/circles}
[ -x "$bin" ] || { echo "bench-suite: no executable circles at '$bin' (set BIN)" >&2; exit 2; }
mkdir -p "$out"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader > "$out/device.txt"
fi
"$bin" bench -s 1024x1024 --renderers cuda-naive,cuda-tile-scan,cuda-tile-binned --modes exact,half-colour,early-exit \
  --repeat 15 --warmup 2 --max-seconds 1.5 --json "$out/suite_1024.json" > "$out/suite_1024.log"
"$bin" bench --scenes stress10M -s 3840x2160 --renderers cuda-tile-binned --modes exact,half-colour,early-exit \
  --repeat 5 --warmup 1 --max-seconds 10 --json "$out/suite_4k.json" > "$out/suite_4k.log"
here=$(dirname "$0")
if command -v python3 > /dev/null; then  # 3: no matplotlib, so no PNG (the tables are written)
  python3 "$here/plot_kernels.py" "$out/suite_4k.json" -o "$out/4k" --markdown "$out/tables_4k.md" || [ $? -eq 3 ]
  python3 "$here/plot_kernels.py" "$out/suite_1024.json" -o "$out" --markdown "$out/tables_1024.md" || [ $? -eq 3 ]
fi
echo "bench-suite: $out"
