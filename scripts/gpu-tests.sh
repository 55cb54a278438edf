#!/usr/bin/env bash
# The GPU machine's entry point to the tests: runs every test binary with the GPU required
# (CIRCLES_REQUIRE_GPU=1, CIRCLES_REQUIRE_COUNTERS=1: a test that needs the GPU or its counters
# fails where it cannot run instead of skipping), then fails the run on any skip that is not
# marked expected (tests/test_util.h: "[expected skip]", e.g. a test of the no-GPU path, or a tool
# that this machine lacks). The summary names every skip, expected or not.
#
# Usage: bash scripts/gpu-tests.sh [BINARY...]   (default: every test binary in $BIN)
#   BIN      the folder with `circles` and the test binaries, or a build folder (default .device/bin)
#   OUT      where the logs and gtest's XML go (default /tmp/circles-gpu-tests)
#   SHARDS   run each gtest binary as this many shards at once (default 1); the GPU is shared,
#            and the CPU references of the GPU tests run on every core. With more than one, the
#            tests that read hardware counters (*Counter*) run alone afterwards
#   CIRCLES_SOURCE_DIR  the source tree (scenes, golden images, fuzz corpus; default: here)
# Exit status: 0 when every binary passed and no skip was unexpected, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${BIN:-.device/bin}")
OUT=${OUT:-/tmp/circles-gpu-tests}
SHARDS=${SHARDS:-1}
mkdir -p "$OUT"
rm -f "$OUT"/*.xml "$OUT"/*.log "$OUT/summary.txt"
export CIRCLES_SOURCE_DIR=${CIRCLES_SOURCE_DIR:-$(pwd)}
export CIRCLES_BIN="$BIN/circles"
export CIRCLES_REQUIRE_GPU=1 CIRCLES_REQUIRE_COUNTERS=1
[ -x "$CIRCLES_BIN" ] || { echo "gpu-tests: no executable circles in $BIN" >&2; exit 2; }
# A test binary in $BIN, or in $BIN/tests (a build folder).
where() { if [ -x "$BIN/$1" ]; then echo "$BIN/$1"; elif [ -x "$BIN/tests/$1" ]; then echo "$BIN/tests/$1"; fi; }
binaries=("$@")
if [ ${#binaries[@]} -eq 0 ]; then
  for b in circles_tests circles_gpu_tests circles_viewer_tests circles_viewer_input_tests circles_scene_fuzz_replay; do
    [ -n "$(where "$b")" ] && binaries+=("$b") || echo "gpu-tests: $b is not in $BIN: not run" | tee -a "$OUT/summary.txt"
  done
fi
status=0
for b in "${binaries[@]}"; do
  if [ "$b" = circles_scene_fuzz_replay ]; then  # not gtest: the fuzz corpus replayed
    "$(where "$b")" "$CIRCLES_SOURCE_DIR/fuzz/corpus" > "$OUT/$b.log" 2>&1
    rc=$?
    echo "gpu-tests: $b: exit $rc ($(tail -1 "$OUT/$b.log"))" | tee -a "$OUT/summary.txt"
    [ $rc -eq 0 ] || status=1
    continue
  fi
  pids=()
  shards=$SHARDS
  [ "$b" = circles_viewer_input_tests ] && shards=1  # one X server a test: they run one at a time
  # Hardware counters are one profiler at a time, and their DRAM figures are the whole GPU's: the
  # tests that read them run alone, after the shards.
  parts=()
  for ((k = 0; k < shards; k++)); do parts+=("$k"); done
  split=0  # (a GTEST_FILTER of the caller's is left alone: then no split)
  [ "$shards" -gt 1 ] && [ -z "${GTEST_FILTER:-}" ] && split=1 && parts+=(counters)
  for part in "${parts[@]}"; do
    if [ "$part" = counters ]; then
      for pid in "${pids[@]}"; do wait "$pid"; echo $? > "$OUT/$b.rc.$pid"; done
      "$(where "$b")" --gtest_brief=1 --gtest_filter='*Counter*' --gtest_output="xml:$OUT/$b.$part.xml" > "$OUT/$b.$part.log" 2>&1
      echo $? > "$OUT/$b.rc.$part"
    else
      filter=()
      [ $split -eq 1 ] && filter=(--gtest_filter='-*Counter*')
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$part "$(where "$b")" --gtest_brief=1 "${filter[@]}" \
        --gtest_output="xml:$OUT/$b.$part.xml" > "$OUT/$b.$part.log" 2>&1 &
      pids+=($!)
    fi
  done
  for ((k = 0; k < ${#parts[@]}; k++)); do
    part=${parts[$k]}
    if [ "$part" = counters ]; then
      rc=$(cat "$OUT/$b.rc.$part")
    elif [ -f "$OUT/$b.rc.${pids[$k]}" ]; then
      rc=$(cat "$OUT/$b.rc.${pids[$k]}")
    else
      wait "${pids[$k]}"
      rc=$?
    fi
    echo "gpu-tests: $b part $part of $shards shards: exit $rc, $(grep -E '^\[  PASSED  \] [0-9]+ tests?\.$|^ *[0-9]+ FAILED TESTS?$' "$OUT/$b.$part.log" | tr -s ' \n' ' ')" |
      tee -a "$OUT/summary.txt"
    [ "$rc" -eq 0 ] || { status=1; grep -E '^\[  FAILED  \]' "$OUT/$b.$part.log" | head -40; }
    [ -s "$OUT/$b.$part.xml" ] || { echo "gpu-tests: $b part $part wrote no XML" | tee -a "$OUT/summary.txt"; status=1; }
  done
  rm -f "$OUT/$b".rc.*
done
# Every skip, from gtest's XML: expected ones are listed, any other fails the run.
python3 - "$OUT" <<'EOF' | tee -a "$OUT/summary.txt"
import glob, sys, xml.etree.ElementTree as ET
expected, unexpected = [], []
for path in sorted(glob.glob(sys.argv[1] + "/*.xml")):
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("result") != "skipped":
            continue
        node = case.find("skipped")
        message = node.get("message", "") if node is not None else ""
        why = message.split("\n", 1)[-1]
        name = "%s.%s" % (case.get("classname"), case.get("name"))
        (expected if why.startswith("[expected skip]") else unexpected).append("%s: %s" % (name, why))
for line in expected:
    print("gpu-tests: expected skip: " + line)
for line in unexpected:
    print("gpu-tests: UNEXPECTED SKIP: " + line)
print("gpu-tests: %d expected skips, %d unexpected" % (len(expected), len(unexpected)))
sys.exit(1 if unexpected else 0)
EOF
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "gpu-tests: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$OUT/summary.txt"
exit $status
