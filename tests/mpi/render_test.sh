#!/usr/bin/env bash
# `circles render` over MPI ranks (docs/SCALE.md) against one process: for 1, 2, 3 and 4 ranks
# (mpirun --oversubscribe: more ranks than cores), each file of frames and bands must be the same
# bytes (cmp) as the one-process render of the same frame, each file of circles (sort-last) every
# 8-bit channel within 1 of the one-process cpu-ref PNG's (one rank: its bytes), and a failure on
# any rank must end the job non-zero with one message and no partial file. One case a run, so
# ctest names what failed:
#   render_test.sh CIRCLES MPIEXEC WORKDIR CASE
# CASE: bands_still, bands_animation, frames_animation, frames_still, errors, circles_sortlast,
# circles_errors. The circles cases need python3 (its standard library: PNGs decoded with zlib).
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

# within_one REF TEST...: each PNG TEST is REF's size and every 8-bit channel of it is within 1 of
# REF's; says how many channels differ.
within_one() {
  local f
  for f in "${@:2}"; do [ -f "$f" ] || fail "$f was not written"; done
  python3 -c "$png_within_py" "$@" || fail "${*:2} not within 1 of $1"
}
png_within_py=$(cat <<'PY'
import struct, sys, zlib

def pixels(path):
    """An 8-bit RGBA PNG's width, height and bytes, rows unfiltered (filters 0 to 4)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, w, h = 8, [], 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            if (depth, colour) != (8, 6):
                sys.exit(f"{path}: not 8-bit RGBA")
        elif kind == b"IDAT":
            idat.append(body)
    raw, stride = zlib.decompress(b"".join(idat)), 4 * w
    out, prev = bytearray(), bytearray(stride)
    for j in range(h):
        at = j * (stride + 1)
        f, row = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        for i in range(stride):
            a = row[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1:
                row[i] = (row[i] + a) & 255
            elif f == 2:
                row[i] = (row[i] + b) & 255
            elif f == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += row
        prev = row
    return w, h, bytes(out)

ref = pixels(sys.argv[1])
for path in sys.argv[2:]:
    test = pixels(path)
    if test[:2] != ref[:2]:
        sys.exit(f"{path} is {test[0]}x{test[1]}, {sys.argv[1]} {ref[0]}x{ref[1]}")
    steps = [abs(x - y) for x, y in zip(ref[2], test[2])]
    differ, worst = sum(1 for d in steps if d), max(steps, default=0)
    if worst > 1:
        sys.exit(f"{path}: a channel differs from {sys.argv[1]}'s by {worst} steps ({differ} differ)")
    print(f"  {path}: {differ} of {len(steps)} channels differ from {sys.argv[1]}'s, by 1")
PY
)

# hostile SEED FILE: writes a random valid scene to FILE (docs/FORMAT.md's whole range, as
# tests/random_scene.h draws them, colours in [0, 1]: sizes of a row or a column, radii from the
# least float to 1e6, centres far outside, alphas 0, 1 and tiny, snow shading, gradients, every
# animation from a later frame; one seed in four deep: thousands of faint circles over every
# pixel) and prints the arguments that draw it: -s WxH --frames F.
hostile() {
  python3 -c "$hostile_py" "$1" "$2"
}
hostile_py=$(cat <<'PY'
import math, random, sys

seed, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(seed)
pick = rng.randrange
def log_uniform(lo, hi):
    return lo * math.pow(hi / lo, rng.random())
deep = seed % 4 == 0
kind = pick(4)
w, h = [(1 + pick(3), 1 + pick(120)), (1 + pick(120), 1 + pick(3)), (32 * (1 + pick(3)), 32 * (1 + pick(2))),
        (1 + pick(97), 1 + pick(61))][kind]
if deep:
    w, h = 24 + pick(40), 16 + pick(30)
scale = min(w, h)
animation = ["none", "bouncingballs", "hypnosis", "fireworks", "snow"][pick(5)] if pick(2) else "none"
n = 4000 + pick(12000) if deep else [1, 3, 40, 400, 2500][pick(5)]
if animation == "hypnosis":
    n = min(n, 60)  # rings grow to the frame's size: few, so that one frame stays quick
colour_kind, alpha_kind, radius_kind, place_kind = pick(2), pick(6), pick(5), pick(3)
start = pick(1000) if animation != "none" and pick(2) else 0
frame = start + (1 + pick(20) if animation != "none" else 0)
lines = ["circles-scene 1", f"size {w} {h}"]
if pick(3) == 0:
    lines.append("background gradient " + " ".join(repr(rng.random()) for _ in range(6)))
else:
    a = [0.0, 1.0, rng.random()][pick(3)]
    lines.append("background solid " + " ".join(repr(rng.random()) for _ in range(3)) + f" {a!r}")
lines += [f"shading {'snow' if pick(4) == 0 else 'flat'}", f"animation {animation}", f"seed {seed}",
          f"frame {start}", f"count {n}"]
def colour():
    return rng.random() if colour_kind == 0 else float(pick(2))
def alpha(k):
    return [0.5, (8 + pick(9)) / 16, rng.random(), log_uniform(1e-7, 1e-2), float(pick(2)), None][k]
def radius(k):
    if k == 0:
        return max(1.4e-45, log_uniform(1.4e-45, 1e-4)) if pick(4) == 0 else log_uniform(1e-3, 1.0) / scale
    if k == 4:
        return min(1e6, log_uniform(1e-3, 2e6 * scale) / scale)
    return [None, log_uniform(1, 8), log_uniform(8, 80), log_uniform(0.5, 2) * scale][k] / scale
for _ in range(n):
    rk = pick(5) if radius_kind == 4 else radius_kind
    r = log_uniform(0.6, 1.5) if deep else radius(rk)
    pk = pick(3) if place_kind == 2 else place_kind
    if pk == 0 or deep:
        x, y = rng.random(), rng.random()
    elif pk == 1:
        x, y = -0.2 + 1.4 * rng.random(), -0.2 + 1.4 * rng.random()
    else:
        x, y = rng.choice([-1, 1]) * log_uniform(2, 1e6), -1e6 + 2e6 * rng.random()
    z = -1e6 + 2e6 * rng.random() if pick(8) == 0 else rng.random()
    a = log_uniform(1e-4, 2e-2) if deep else alpha(alpha_kind)
    if a is None:
        a = alpha(pick(5))
    fields = [x, y, z, r, colour(), colour(), colour(), a]
    if animation != "none":
        fields += [-1 + 2 * rng.random(), -1 + 2 * rng.random()]
    lines.append(" ".join(repr(v) for v in fields))
open(path, "w").write("\n".join(lines) + "\n")
print(f"-s {w}x{h} --frames {frame}")
PY
)

# sortlast SCENE RENDERER [ARGS...]: the frame (or each --frames frame) drawn from its circles split
# over K ranks (--mpi circles), each PNG within 1 of the one-process cpu-ref PNG in every channel;
# over one rank cpu-ref's bytes.
sortlast() {
  local scene=$1 renderer=$2
  shift 2
  "$circles" render "$scene" -r cpu-ref "$@" -o one.png 2> /dev/null
  local k f
  for k in "${ranks[@]}"; do
    "${mpirun[@]}" -np "$k" "$circles" render "$scene" -r "$renderer" --mpi circles "$@" -o "k$k.png" 2> log ||
      { cat log >&2; fail "$scene $renderer $* over $k ranks failed"; }
    grep -q "circles in draw order over $k rank" log || { cat log >&2; fail "no plan of the circles over $k ranks"; }
    for f in one*.png; do
      if [ "$k" -eq 1 ]; then same_bytes "$f" "k$k${f#one}"; else within_one "$f" "k$k${f#one}"; fi
    done
    echo "ok: circles, $scene $renderer $* over $k ranks ($(ls one*.png | wc -l) files)"
  done
  rm -f ./*.png log
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
    # Past one process's 16384 a side (bands go to 65536): one process refuses, naming --mpi
    # bands; over 1, 2 and 3 ranks the PNG is the same bytes, and --mpi circles still refuses.
    rc=0; "$circles" render rand10k -s 20000x6 -o big.png 2> log || rc=$?
    [ "$rc" -eq 2 ] || { cat log >&2; fail "20000x6 in one process: exit $rc, not 2 (a bad command line)"; }
    grep -q -- "--mpi bands" log || { cat log >&2; fail "the refusal of 20000x6 does not name --mpi bands"; }
    for k in 1 2 3; do
      "${mpirun[@]}" -np "$k" "$circles" render rand10k -s 20000x6 -r cpu-mt --mpi bands -o "w$k.png" 2> log ||
        { cat log >&2; fail "20000x6 in bands over $k ranks failed"; }
    done
    same_bytes w1.png w2.png
    same_bytes w1.png w3.png
    rc=0; "${mpirun[@]}" -np 2 "$circles" render rand10k -s 20000x6 --mpi circles -o c.png 2> log || rc=$?
    [ "$rc" -eq 2 ] || { cat log >&2; fail "20000x6 with --mpi circles: exit $rc, not 2"; }
    [ ! -e c.png ] || fail "a refused --mpi circles left c.png"
    echo "ok: bands past 16384 a side"
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
  circles_sortlast)
    command -v python3 > /dev/null || fail "python3 is needed to compare the PNGs"
    # Heights that 2, 3 and 4 do not divide; 3 rows over 4 ranks (an empty piece); one row and 3
    # circles (ranks without circles, ranks without rows).
    sortlast rand10k cpu-mt -s 200x120
    sortlast rand10k cpu-ref -s 61x7
    sortlast rand10k cpu-mt -s 40x3
    sortlast rgb cpu-mt -s 16x1
    # Wide and tall frames; big circles under small ones; 2M sub-pixel circles.
    sortlast biglittle cpu-mt -s 90x37
    sortlast littlebig cpu-ref -s 37x90
    sortlast pattern cpu-ref -s 23x95
    sortlast micro2M cpu-mt -s 64x64
    # Animated, each rank moving its own circles: snow's shading over a gradient at a few frames,
    # fireworks' sparks on ranks that do not hold their bursts, bouncing balls, growing rings.
    sortlast snow cpu-mt -s 97x61 --frames 30
    sortlast snow cpu-ref -s 64x45 --frames 3
    sortlast snow cpu-mt -s 48x30 --frames 0:3
    sortlast fireworks cpu-mt -s 64x45 --frames 10:13
    sortlast bouncingballs cpu-ref -s 50x33 --frames 12
    sortlast hypnosis cpu-mt -s 33x33 --frames 5:8
    # Binary scenes: each rank's range a view of the mapped file; animated, the range copied.
    "$circles" scene save rand10k r.npz 2> /dev/null
    "$circles" scene save snow s.npz 2> /dev/null
    sortlast r.npz cpu-mt -s 100x80
    sortlast s.npz cpu-mt -s 60x40 --frames 2:4
    # Random valid scenes from the whole range the format allows (hostile, above).
    for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
      args=$(hostile "$seed" "h$seed.scene")
      # shellcheck disable=SC2086
      sortlast "h$seed.scene" cpu-mt $args
    done
    # cpu-ref and cpu-mt draw a layer to the same bits: the same file over 3 ranks.
    for scene in rand10k snow; do
      "${mpirun[@]}" -np 3 "$circles" render "$scene" -s 70x50 -r cpu-ref --mpi circles -o ref.png 2> /dev/null
      "${mpirun[@]}" -np 3 "$circles" render "$scene" -s 70x50 -r cpu-mt --mpi circles -o mt.png 2> /dev/null
      cmp ref.png mt.png > /dev/null || fail "$scene over 3 ranks: cpu-ref and cpu-mt layers differ"
    done
    echo "ok: circles, cpu-ref and cpu-mt the same bytes"
    # The plan: which rank holds which circles and composites which rows.
    "${mpirun[@]}" -np 4 "$circles" render rand10k -s 40x30 --mpi circles -o k.png 2> log || { cat log >&2; fail "plan"; }
    grep -q 'rand10k: 10000 circles in draw order over 4 ranks: rank 0 circles 0..2499, rank 1 circles 2500..4999, rank 2 circles 5000..7499, rank 3 circles 7500..9999' log &&
      grep -q 'rand10k: composited rows, top first: rank 0 rows 0..7, rank 1 rows 8..15, rank 2 rows 16..22, rank 3 rows 23..29' log ||
      { cat log >&2; fail "the plan is not said"; }
    echo "ok: circles, the plan said"
    # Colours above 1 (up to 3): rank 0 notes the narrower promise once; still within 1 here.
    printf 'circles-scene 1\nsize 30 20\ncount 3\n0.3 0.5 0 0.4 3 0.5 2 0.5\n0.6 0.5 0 0.4 1.5 3 0 0.25\n0.5 0.4 0 0.3 0 0 2.5 0.75\n' > bright.scene
    "$circles" render bright.scene -r cpu-ref -o one.png 2> /dev/null
    "${mpirun[@]}" -np 3 "$circles" render bright.scene --mpi circles -o k.png 2> log || { cat log >&2; fail "bright"; }
    [ "$(grep -c 'has colours up to 3: --mpi circles keeps each 8-bit channel within 1 of cpu-ref.s only where fewer than 10962 circles cover a pixel' log)" -eq 1 ] ||
      { cat log >&2; fail "colours above 1 are not noted once"; }
    within_one one.png k.png
    echo "ok: circles, colours above 1 noted"
    ;;
  circles_errors)
    # A renderer that cannot draw a layer: a command-line mistake, exit 2, one message, no file.
    rc=0
    "${mpirun[@]}" -np 2 "$circles" render rand10k -s 16x16 -r cuda-naive --mpi circles -o x.png 2> log || rc=$?
    [ "$rc" -eq 2 ] || { cat log >&2; fail "cuda-naive: exit $rc, expected 2"; }
    one_error log
    grep -q 'circles: error: --mpi circles draws with cpu-ref or cpu-mt' log || { cat log >&2; fail "cuda-naive is not refused"; }
    only_files log
    echo "ok: circles, a CUDA renderer refused: exit 2, one message, no file"
    # A missing scene file: every rank fails alike; one message, exit 1, no file.
    for k in "${ranks[@]}"; do
      rc=0
      "${mpirun[@]}" -np "$k" "$circles" render nosuch.npz --mpi circles -o x.png 2> log || rc=$?
      [ "$rc" -eq 1 ] || { cat log >&2; fail "a missing file over $k ranks: exit $rc, expected 1"; }
      one_error log
      grep -q 'nosuch.npz.*cannot open' log || { cat log >&2; fail "the missing file is not named"; }
      only_files log
    done
    echo "ok: circles, a missing scene file: exit 1, one message, no file"
    # One rank alone fails (rank 2's memory limit): the job fails, rank 0 writes nothing.
    rc=0
    "${mpirun[@]}" -np 2 "$circles" render rand10k -s 40x30 --mpi circles -o out.png : \
      -np 1 env CIRCLES_MEMORY_LIMIT_MB=1 "$circles" render rand10k -s 40x30 --mpi circles -o out.png 2> log || rc=$?
    [ "$rc" -eq 1 ] || { cat log >&2; fail "rank 2 failing: exit $rc, expected 1"; }
    one_error log
    grep -q 'circles: error: rank 2 of 3: .* needs about .* of memory' log || { cat log >&2; fail "the message does not name rank 2"; }
    only_files log
    echo "ok: circles, one rank failing: exit 1, one message naming it, no file"
    # Several frames, frame 1's file cannot be begun (a link into a missing folder): frame 0 whole,
    # nothing of frames 1 and 2, and the message says so.
    ln -s nowhere/x.png out-0001.png
    "$circles" render fireworks -s 64x40 -r cpu-ref --frames 0:3 -o one.png 2> /dev/null
    rc=0
    "${mpirun[@]}" -np 3 "$circles" render fireworks -s 64x40 --mpi circles --frames 0:3 -o out.png 2> log || rc=$?
    [ "$rc" -eq 1 ] || { cat log >&2; fail "frame 1 unwritable: exit $rc, expected 1"; }
    one_error log
    grep -q "circles: error: rank 0 of 3: cannot write PNG 'out-0001.png'.*; frame 1 failed, frame 0 was written, frames 1..2 were not written" log ||
      { cat log >&2; fail "the message does not say what was written"; }
    command -v python3 > /dev/null && within_one one-0000.png out-0000.png
    rm -f one-*.png out-0000.png out-0001.png
    only_files log
    echo "ok: circles, frame 1 unwritable: exit 1, one message, frame 0 whole, nothing of frames 1 and 2"
    ;;
  *)
    fail "unknown case '$case'"
    ;;
esac
