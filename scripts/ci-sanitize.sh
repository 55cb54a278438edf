#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of the CPU code and its tests, then short
# bounded libFuzzer runs on the scene parser and on the binary scene reader (.npz / .npy). Part of
# CI (the README's test command ends with it).
#
#   bash scripts/ci-sanitize.sh          # from anywhere; builds in build-asan/ at the repo root
#
# Phases (each prints its duration): configure build-asan with clang (-DCIRCLES_SANITIZE=ON
# -DCIRCLES_FUZZ=ON, no CUDA, no viewer), build, ctest, fuzz the scene parser, fuzz the binary
# reader. Fails at the first failing phase: any sanitizer report is fatal
# (-fno-sanitize-recover=all), and so is anything a fuzzer finds.
#
# Environment: CIRCLES_FUZZ_SECONDS (default 60, 0 skips fuzzing) bounds the fuzzing, split
# between the two fuzzers (the scene parser gets the odd second; each gets at least 1 s);
# CIRCLES_SANITIZE_JOBS (default 2) the build and ctest parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/build-asan
fuzz_seconds=${CIRCLES_FUZZ_SECONDS:-60}
jobs=${CIRCLES_SANITIZE_JOBS:-2}
# Whole numbers only (libFuzzer would take -max_total_time=0 as "no limit": 0 skips the run here).
if ! [[ $fuzz_seconds =~ ^[0-9]+$ ]]; then
  echo "ci-sanitize: CIRCLES_FUZZ_SECONDS: expected a whole number of seconds, not '$fuzz_seconds'" >&2
  exit 2
fi
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
  echo "ci-sanitize: CIRCLES_SANITIZE_JOBS: expected a whole number from 1, not '$jobs'" >&2
  exit 2
fi

for tool in clang clang++; do
  if ! command -v "$tool" > /dev/null; then
    echo "ci-sanitize: $tool not found (Debian: apt-get install clang libclang-rt-14-dev," \
         "or bash scripts/install-deps.sh)" >&2
    exit 1
  fi
done

# Durations: each phase's is printed when it ends, and all of them again on exit (also when a
# phase fails, the failing one marked).
t_all=$(date +%s)
phase_name=""
phase_start=0
summary=()
phase() {
  phase_name=$1
  phase_start=$(date +%s)
  echo "ci-sanitize: == $1"
}
phase_done() {
  local took=$(( $(date +%s) - phase_start ))
  summary+=("$phase_name: ${took} s")
  echo "ci-sanitize: -- $phase_name took ${took} s"
  phase_name=""
}
completed=0  # set once every phase has passed: a run killed by a signal exits the trap with $? 0
on_exit() {
  local rc=$? verdict
  [ -n "$phase_name" ] && summary+=("$phase_name: FAILED after $(( $(date +%s) - phase_start )) s")
  echo "ci-sanitize: durations:"
  printf 'ci-sanitize:   %s\n' "${summary[@]}"
  if [ "$rc" -ne 0 ]; then verdict="FAILED (exit $rc)"
  elif [ "$completed" -ne 1 ]; then verdict="FAILED (stopped before the end)"
  else verdict=passed
  fi
  echo "ci-sanitize: total $(( $(date +%s) - t_all )) s, $verdict"
}
trap on_exit EXIT

# Every sanitizer report ends the process with an error (the build also has
# -fno-sanitize-recover=all); leaks are reported too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

phase "configure ($build, clang, ASan+UBSan, libFuzzer)"
# A build-asan configured with another compiler cannot be switched to clang: start it afresh.
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$build/CMakeCache.txt"; then
  rm -rf "$build"
fi
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCIRCLES_CUDA=OFF -DCIRCLES_GUI=OFF -DCIRCLES_SANITIZE=ON -DCIRCLES_FUZZ=ON > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
phase_done

phase "build"
cmake --build "$build" -j "$jobs"
phase_done

# Tests left out under the sanitizers, each with its reason (none for now: the GPU tests skip
# themselves without CUDA, the CLI tests run the sanitized binaries, plot_kernels runs Python).
exclude=()
phase "ctest"
ctest_args=(--test-dir "$build" --output-on-failure -j "$jobs")
if [ ${#exclude[@]} -gt 0 ]; then
  ctest_args+=(-E "$(IFS='|'; echo "${exclude[*]}")")
fi
ctest "${ctest_args[@]}"
phase_done

# Each fuzzer grows a scratch corpus in build-asan/fuzz-run/NAME/corpus from its seed corpus in
# fuzz/ (read only); a finding lands in build-asan/fuzz-run/NAME/ as crash-*, leak-*, timeout-* or
# oom-*. Replay one with
#   build-asan/fuzz/circles_scene_fuzz FILE    (or build/tests/circles_scene_fuzz_replay FILE)
#   build-asan/fuzz/circles_npz_fuzz FILE      (or build/tests/circles_npz_fuzz_replay FILE)
# then fix the bug and add the file to the seed corpus as finding-* so that the ctest replaying it
# (scene_fuzz_corpus, npz_fuzz_corpus) keeps it fixed.
if [ "$fuzz_seconds" -eq 0 ]; then
  echo "ci-sanitize: fuzzing skipped (CIRCLES_FUZZ_SECONDS=0)"
  completed=1
  exit 0
fi
# fuzz NAME WHAT SECONDS DICT SEED_CORPUS: one bounded run of build-asan/fuzz/circles_NAME_fuzz.
fuzz() {
  local name=$1 what=$2 seconds=$3 dict=$4 seeds=$5
  phase "fuzz $what for ${seconds} s"
  local run=$build/fuzz-run/$name
  rm -rf "$run"
  mkdir -p "$run/corpus"
  local status=0
  # Without detect_stack_use_after_return here: it makes each input three times slower (10,000
  # instead of 30,000 a second), and the tests above already run with it.
  ASAN_OPTIONS=${ASAN_OPTIONS//detect_stack_use_after_return=1/detect_stack_use_after_return=0} \
    "$build/fuzz/circles_${name}_fuzz" -dict="$dict" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="$run/" \
    "$run/corpus" "$seeds" > "$run/fuzz.log" 2>&1 || status=$?
  local findings
  findings=$(find "$run" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' -o -name 'slow-unit-*' \) | sort)
  grep -E '^#[0-9]+.*(DONE|INITED)' "$run/fuzz.log" || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$run/fuzz.log" || true
  if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    tail -n 80 "$run/fuzz.log"
    echo "ci-sanitize: the $what fuzzer found a problem (exit $status): ${findings:-see the log above}" >&2
    exit 1
  fi
  phase_done
}
rm -rf "$build/fuzz-run"
npz_seconds=$(( fuzz_seconds / 2 ))
[ "$npz_seconds" -eq 0 ] && npz_seconds=1
scene_seconds=$(( fuzz_seconds - npz_seconds ))
[ "$scene_seconds" -eq 0 ] && scene_seconds=1
fuzz scene "scene parser" "$scene_seconds" "$root/fuzz/scene.dict" "$root/fuzz/corpus"
fuzz npz "binary scene reader" "$npz_seconds" "$root/fuzz/npz.dict" "$root/fuzz/corpus-npz"
completed=1
