#!/usr/bin/env bash
# `circles render` over MPI ranks (docs/SCALE.md) against one process: for 1, 2, 3 and 4 ranks
# (mpirun --oversubscribe: more ranks than cores), each file must be the same bytes (cmp) as the
# one-process render of the same frame, and a failure on any rank must end the job non-zero with
# one message and no partial file. One case a run, so ctest names what failed:
#   render_test.sh CIRCLES MPIEXEC WORKDIR CASE
# CASE: bands_still, bands_animation, frames_animation, frames_still, errors.
set -euo pipefail
circles=$1 mpiexec=$2 work=$3 case=$4

# -q: no launcher banners about the exit status (the failure's one line is circles'). Root (a CI
# container) needs Open MPI's consent.
mpirun=("$mpiexec" -q --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then mpirun+=(--allow-run-as-root); fi
ranks=(1 2 3 4)
# A sanitized build (CIRCLES_SANITIZE, scripts/ci-sanitize.sh; ctest sets CIRCLES_SANITIZED=1):
# AddressSanitizer and UBSan stay on, leak checks go off. Open MPI leaves allocations of its
# plugins behind at MPI_Finalize and unloads the plugins first, so LeakSanitizer cannot name them
# (<unknown module>) to suppress them, and every rank would fail.
if [ "${CIRCLES_SANITIZED:-0}" = 1 ]; then export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"; fi

rm -rf "$work" && mkdir -p "$work" && cd "$work"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# same_bytes ONE MANY: the file MANY is the file ONE, byte for byte.
same_bytes() {
  [ -f "$2" ] || fail "$2 was not written"
  cmp "$1" "$2" > /dev/null || fail "$2 differs from the one-process $1"
}

# No file but the ones named is left in the folder (no partial PNG, no temporary).
only_files() {
  local want got
  want=$(printf '%s\n' "$@" | sort)
  got=$(ls -A | sort)
  [ "$got" = "$want" ] || fail "the folder holds: $(echo $got) (expected: $(echo $want))"
}

# one_error FILE: FILE (a run's stderr) holds exactly one error line.
one_error() {
  local n
  n=$(grep -c 'error' "$1" || true)
  [ "$n" -eq 1 ] || { cat "$1" >&2; fail "$n error lines, expected one"; }
}

# bands SCENE SIZE RENDERER [ARGS...]: one image (or each --frames frame) in bands over K ranks.
bands() {
  local scene=$1 size=$2 renderer=$3
  shift 3
  "$circles" render "$scene" -s "$size" -r "$renderer" "$@" -o one.png 2> /dev/null
  local k
  for k in "${ranks[@]}"; do
    "${mpirun[@]}" -np "$k" "$circles" render "$scene" -s "$size" -r "$renderer" --mpi bands "$@" -o "k$k.png" \
      2> log || { cat log >&2; fail "$scene $size $renderer $* over $k ranks failed"; }
    local f
    for f in one*.png; do same_bytes "$f" "k$k${f#one}"; done
    echo "ok: bands, $scene $size $renderer $* over $k ranks ($(ls one*.png | wc -l) files)"
  done
  rm -f ./*.png log
}

# frames SCENE SIZE RENDERER A:B: the frames over K ranks, each file written by its rank.
frames() {
  local scene=$1 size=$2 renderer=$3 range=$4
  "$circles" render "$scene" -s "$size" -r "$renderer" --frames "$range" -o one.png 2> /dev/null
  local k
  for k in "${ranks[@]}"; do
    "${mpirun[@]}" -np "$k" "$circles" render "$scene" -s "$size" -r "$renderer" --frames "$range" -o "k$k.png" \
      2> log || { cat log >&2; fail "$scene $size $renderer $range over $k ranks failed"; }
    local f n=0
    for f in one-*.png; do
      same_bytes "$f" "k$k${f#one}"
      n=$((n + 1))
    done
    [ "$(ls k$k-*.png | wc -l)" -eq "$n" ] || fail "over $k ranks: $(ls k$k-*.png | wc -l) files, expected $n"
    echo "ok: frames, $scene $size $renderer $range over $k ranks ($n files)"
  done
  rm -f ./*.png log
}

case $case in
  bands_still)
    # 120 rows; 7 rows (not divisible by 2, 3 or 4); 3 rows (4 ranks: one band empty).
    for r in cpu-ref cpu-mt; do
      bands rand10k 200x120 "$r"
      bands rand10k 61x7 "$r"
      bands rand10k 40x3 "$r"
    done
    # Wide and tall frames (the unit square fitted with an offset); a single row.
    bands biglittle 90x37 cpu-mt
    bands pattern 23x95 cpu-ref
    bands rgb 16x1 cpu-mt
    # Bands of more than one message (8 MiB of rows): 2100 rows of 16 KiB.
    bands rgb 4096x2100 cpu-mt
    # Without mpirun, --mpi is one rank (MPI's singleton): the same bytes.
    "$circles" render rand10k -s 61x7 -o one.png 2> /dev/null
    "$circles" render rand10k -s 61x7 --mpi bands -o single.png 2> log || { cat log >&2; fail "--mpi without mpirun"; }
    same_bytes one.png single.png
    echo "ok: --mpi bands without mpirun"
    ;;
  bands_animation)
    # Snow shading over a gradient, 30 frames in; fireworks, several frames each banded.
    bands snow 97x61 cpu-mt --frames 30
    bands snow 64x45 cpu-ref --frames 3
    bands fireworks 64x45 cpu-mt --frames 10:13
    # The default under mpirun with one frame: bands (with cpu-mt).
    "$circles" render bouncingballs -s 50x33 -r cpu-mt --frames 12 -o one.png 2> /dev/null
    "${mpirun[@]}" -np 3 "$circles" render bouncingballs -s 50x33 --frames 12 -o k.png 2> log || { cat log >&2; fail "default mode"; }
    grep -q 'bands of 11 rows over 3 ranks' log || { cat log >&2; fail "one frame under mpirun is not drawn in bands"; }
    same_bytes one.png k.png
    echo "ok: bands by default for one frame"
    ;;
  frames_animation)
    # 7 frames (not divisible by 2, 3 or 4); 3 frames over 4 ranks (one rank without frames).
    frames bouncingballs 64x40 cpu-ref 0:7
    frames snow 48x30 cpu-mt 28:31
    frames hypnosis 33x33 cpu-mt 5:10
    # The default under mpirun with several frames: frames.
    "${mpirun[@]}" -np 2 "$circles" render fireworks -s 20x20 -r cpu-mt --frames 0:4 -o k.png 2> log || { cat log >&2; fail "default mode"; }
    grep -q 'over 2 ranks, 2 frames each' log || { cat log >&2; fail "several frames under mpirun are not spread by frames"; }
    echo "ok: frames by default for several frames"
    ;;
  frames_still)
    # A still scene's frames (the same picture each), a printf pattern for the names.
    "$circles" render rand10k -s 50x30 -r cpu-mt --frames 0:3 -o 'one-%03d.png' 2> /dev/null
    for k in "${ranks[@]}"; do
      "${mpirun[@]}" -np "$k" "$circles" render rand10k -s 50x30 -r cpu-mt --frames 0:3 -o "k$k-%03d.png" 2> log ||
        { cat log >&2; fail "over $k ranks"; }
      for f in 000 001 002; do same_bytes "one-$f.png" "k$k-$f.png"; done
      echo "ok: frames, rand10k still 0:3 over $k ranks"
    done
    rm -f ./*.png log
    ;;
  errors)
    # A bad scene file: every rank fails alike; one message, exit 1, no output.
    printf 'circles-scene 1\nsize 8 8\nbogus 1\n' > bad.scene
    for k in "${ranks[@]}"; do
      rc=0
      "${mpirun[@]}" -np "$k" "$circles" render bad.scene -o out.png 2> log || rc=$?
      [ "$rc" -eq 1 ] || { cat log >&2; fail "bad scene over $k ranks: exit $rc, expected 1"; }
      one_error log
      grep -q "bad.scene:3:1: error: unknown directive 'bogus'" log || { cat log >&2; fail "the message does not say where"; }
      only_files bad.scene log
    done
    echo "ok: a bad scene file: exit 1, one message, no file"
    # One rank alone fails (rank 2's memory limit): the job fails, rank 0 writes nothing.
    rc=0
    "${mpirun[@]}" -np 2 "$circles" render rand10k -s 40x30 -o out.png : \
      -np 1 env CIRCLES_MEMORY_LIMIT_MB=1 "$circles" render rand10k -s 40x30 -o out.png 2> log || rc=$?
    [ "$rc" -eq 1 ] || { cat log >&2; fail "rank 2 failing: exit $rc, expected 1"; }
    one_error log
    grep -q 'circles: error: rank 2 of 3: .* needs about .* of memory' log || { cat log >&2; fail "the message does not name rank 2"; }
    only_files bad.scene log
    echo "ok: bands, one rank failing: exit 1, one message naming it, no file"
    # Frames: rank 1 cannot write frame 3 (a folder stands there); the other frames are written,
    # whole, and the message says which were and which was not.
    mkdir out-0003.png
    "$circles" render bouncingballs -s 32x32 -r cpu-mt --frames 0:6 -o one.png 2> /dev/null
    rc=0
    "${mpirun[@]}" -np 3 "$circles" render bouncingballs -s 32x32 -r cpu-mt --frames 0:6 -o out.png 2> log || rc=$?
    [ "$rc" -eq 1 ] || { cat log >&2; fail "frame 3 unwritable: exit $rc, expected 1"; }
    one_error log
    grep -q "circles: error: rank 1 of 3: cannot write PNG 'out-0003.png'.*frames 0..2, 4..5 were written (each file whole), frame 3 was not" log ||
      { cat log >&2; fail "the message does not say what was written"; }
    for f in 0000 0001 0002 0004 0005; do same_bytes "one-$f.png" "out-$f.png"; done
    rmdir out-0003.png && rm -f one-*.png out-*.png
    echo "ok: frames, one frame unwritable: exit 1, one message, the other frames whole"
    # Bands, several frames: frame 1's file cannot be begun (a link into a missing folder). Rank 0
    # still takes every rank's rows, writes nothing of frame 1, and says what was written.
    ln -s nowhere/x.png out-0001.png
    "$circles" render fireworks -s 64x40 -r cpu-mt --frames 0:3 -o one.png 2> /dev/null
    rc=0
    "${mpirun[@]}" -np 3 "$circles" render fireworks -s 64x40 --mpi bands --frames 0:3 -o out.png 2> log || rc=$?
    [ "$rc" -eq 1 ] || { cat log >&2; fail "frame 1 unwritable in bands: exit $rc, expected 1"; }
    one_error log
    grep -q "circles: error: rank 0 of 3: cannot write PNG 'out-0001.png'.*; frame 1 failed, frame 0 was written, frames 1..2 were not written" log ||
      { cat log >&2; fail "the message does not say what was written"; }
    same_bytes one-0000.png out-0000.png
    rm -f one-*.png out-0000.png out-0001.png
    only_files bad.scene log
    echo "ok: bands, frame 1 unwritable: exit 1, one message, frame 0 whole, nothing of frames 1 and 2"
    # A renderer that cannot draw bands, a missing folder: command-line mistakes, exit 2.
    for args in "-r cuda-naive --mpi bands" "-o no/such/dir/x.png"; do
      rc=0
      # shellcheck disable=SC2086
      "${mpirun[@]}" -np 2 "$circles" render rand10k -s 16x16 $args 2> log || rc=$?
      [ "$rc" -eq 2 ] || { cat log >&2; fail "$args: exit $rc, expected 2"; }
      one_error log
    done
    grep -q "does not exist" log || { cat log >&2; fail "the missing folder is not named"; }
    only_files bad.scene log
    echo "ok: refused before any work: exit 2, one message"
    # Any other command under mpirun is refused (each rank would do all of its work).
    rc=0
    "${mpirun[@]}" -np 2 "$circles" scene save rgb x.scene 2> log || rc=$?
    [ "$rc" -eq 2 ] && one_error log && grep -q 'only `circles render` runs over MPI ranks' log ||
      { cat log >&2; fail "scene save under mpirun: exit $rc"; }
    only_files bad.scene log
    echo "ok: other commands refused under mpirun"
    ;;
  *)
    fail "unknown case '$case'"
    ;;
esac
