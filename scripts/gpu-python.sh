#!/usr/bin/env bash
# The Python module on the GPU machine, whose Python (3.12, torch, CuPy, pip's pybind11) is not
# the build's: builds python/ on its own against an installed circles package, then runs the
# pytest suite with the GPU required (CIRCLES_REQUIRE_GPU=1: a GPU test fails where it cannot run).
#
# Usage: PREFIX=/path/to/install bash scripts/gpu-python.sh [pytest arguments]
#   PREFIX  a `cmake --install` of a CUDA build (lib/cmake/circles, bin/circles)
#   BUILD   where the module is built (default build-py)
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=$(realpath "${PREFIX:?PREFIX: the install prefix of a CUDA build}")
BUILD=${BUILD:-build-py}
PYTHON=${PYTHON:-$(command -v python3)}
cmake -S python -B "$BUILD" -G Ninja -DCIRCLES_PYTHON="$PYTHON" -Dcircles_DIR="$PREFIX/lib/cmake/circles" \
  -Dpybind11_DIR="$("$PYTHON" -m pybind11 --cmakedir)" > "$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD"
export PYTHONPATH=$PWD/$BUILD/python CIRCLES_BIN=$PREFIX/bin/circles CIRCLES_REQUIRE_GPU=1
"$PYTHON" -m pytest -q -p no:cacheprovider -rs tests/python "$@"
