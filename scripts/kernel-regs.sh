#!/usr/bin/env bash
# Registers, spills and shared memory of every kernel in one CUDA file, from ptxas (no GPU
# needed): one line a kernel, "kernel: N registers; [stack size, shared memory;] spills". The
# fast renderer's walks run at a register cap (__launch_bounds__), where an edit can make ptxas
# spill; check here before taking an edit to the GPU machine. It compiles with the renderer
# kernels' flags (circles_kernels in CMakeLists.txt: no FMA contraction); the kernel lab builds with
# FMA on, and -DCIRCLES_LAB_PTXAS_VERBOSE=ON prints its kernels' usage from the real build.
# Usage: bash scripts/kernel-regs.sh kernels/renderers/binned/renderer.cu [extra nvcc flags, e.g. -DNAME=1]
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), ARCH (default 90).
set -euo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: $0 FILE.cu [nvcc flags...]" >&2; exit 2; }
file=$1
shift
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
ARCH=${ARCH:-90}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# circles_kernels' flags (CMakeLists.txt) that change the code: no FMA contraction.
"$NVCC" -I"$root" -O3 -DNDEBUG --generate-code=arch=compute_$ARCH,code=sm_$ARCH --fmad=false \
  -Xcompiler=-ffp-contract=off -std=c++17 -x cu -c "$file" -o "$out" -Xptxas -v "$@" 2>&1 |
  awk '
    /Compiling entry function/ { name = $0; sub(/.*entry function .?/, "", name); sub(/.? for .*/, "", name); next }
    /bytes stack frame/ { sp = $0; sub(/.*stack frame, /, "", sp); next }
    /Used [0-9]+ registers/ {
      r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r)
      s = $0; sub(/.*registers, /, "", s); sub(/used [0-9]+ barriers,? ?/, "", s)
      print name ": " r " registers; " (s == "" ? "" : s "; ") sp
    }
    /error/ { print; bad = 1 }
    END { exit bad }' |
  c++filt | sed -E 's/circles::\(anonymous namespace\)::|circles:://g; s/\(DeviceCircles, FrameParams, ShadeArgs\)//; s/^void //'
