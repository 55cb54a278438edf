#!/usr/bin/env bash
# A/B timing of several builds of `circles` in one device call: every variant checked against
# cpu-ref first, then timed in turn, round after round (each round starting with the next
# variant), so that each comparison is made on the same machine minutes apart (frames differ by a
# few per cent between the machines a lease gets).
#
# Usage (on the GPU machine, from the project root):
#   VARIANTS="base new" bash scripts/gpu-ab.sh
# with each variant's executable at .device/<variant>/circles (or circles.gz, unpacked here).
# Settings, by environment variable (defaults in brackets):
#   VARIANTS  the variants, the baseline first                              [base new]
#   CHECKED   the variants checked against cpu-ref                          [all but the first]
#   CHECKS    `circles check` jobs, "scene WxH frames" separated by ';' (empty: none)
#             [rand1M 1000x777 0:2; rand1M 257x193 0:2; micro2M 1000x777 0:2]
#   CHECK_MODES  the modes each check runs in                               [exact early-exit]
#   SCENES    the timed scenes                                              [rand1M,micro2M,rand100k,snow]
#   SIZE      their size                                                    [1024x1024]
#   MODES     exact,early-exit or one of them                               [exact,early-exit]
#   ROUNDS    rounds of every variant in turn                               [3]
#   RENDERER  the renderer, and TILE its tile size (empty: the renderer's)  [cuda-tile-binned, TILE=32]
#   BIG       "scene WxH" timed once a variant after the rounds (empty: none) [stress10M 3840x2160]
#   OUT       where the logs go                                             [/tmp/out]
# Writes $OUT/checks.txt (a line a check), $OUT/ab.log (every bench's output) and
# $OUT/ab_summary.txt ("variant scene renderer median stage medians..." a line a pair), and prints
# each pair's medians side by side. Exit status 1 when a check or a bench failed.
set -uo pipefail
VARIANTS=${VARIANTS:-"base new"}
read -r -a variants <<< "$VARIANTS"
CHECKED=${CHECKED:-"${variants[*]:1}"}
CHECKS=${CHECKS-"rand1M 1000x777 0:2; rand1M 257x193 0:2; micro2M 1000x777 0:2"}
SCENES=${SCENES:-rand1M,micro2M,rand100k,snow}
SIZE=${SIZE:-1024x1024}
MODES=${MODES:-exact,early-exit}
ROUNDS=${ROUNDS:-3}
RENDERER=${RENDERER:-cuda-tile-binned}
TILE=${TILE-32}
BIG=${BIG-"stress10M 3840x2160"}
CHECK_MODES=${CHECK_MODES:-"exact early-exit"}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
status=0
for v in "${variants[@]}"; do
  [ -f ".device/$v/circles.gz" ] && gunzip -f ".device/$v/circles.gz"
  [ -x ".device/$v/circles" ] || { echo "gpu-ab: no executable .device/$v/circles" >&2; exit 2; }
done
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tile_args=()
[ -n "$TILE" ] && tile_args=(--tile-size "$TILE")
IFS=';' read -r -a checks <<< "$CHECKS"
for v in $CHECKED; do
  for job in "${checks[@]}"; do
    read -r scene size frames <<< "$job"
    [ -n "$scene" ] || continue
    for mode in $CHECK_MODES; do
      flag=()
      [ "$mode" = early-exit ] && flag=(--early-exit)
      timeout 300 ".device/$v/circles" check "$scene" -r "$RENDERER" "${tile_args[@]}" -s "$size" --frames "$frames" \
        "${flag[@]}" > "$OUT/tmp.log" 2>&1
      rc=$?
      [ "$rc" -eq 0 ] || status=1
      echo "$v check $scene $size frames $frames $mode: rc=$rc $(grep -c PASS "$OUT/tmp.log") PASS; $(tail -1 "$OUT/tmp.log")" \
        >> "$OUT/checks.txt"
    done
  done
done
[ -f "$OUT/checks.txt" ] && echo "checks: $(grep -c 'rc=0' "$OUT/checks.txt") of $(wc -l < "$OUT/checks.txt") passed after $(( $(date +%s) - T0 )) s"
# One bench of variant $1 (its other arguments: bench's), appended to the logs under label $2.
bench() {
  local v=$1 label=$2
  shift 2
  ".device/$v/circles" bench --renderers "$RENDERER" "${tile_args[@]}" "$@" > "$OUT/tmp.log" 2>&1 || status=1
  { echo "== $label"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
  awk -v l="$label" '$2 ~ /^[a-z]/ && $3 ~ /^[0-9]+$/ {print l, $0}' "$OUT/tmp.log" |
    sed -E 's/ +[0-9]+ +([0-9.]+) +[0-9.]+ +[0-9.]+ +/ \1 /; s/ +/ /g' >> "$OUT/ab_summary.txt"
}
# Round r starts with variant r (mod the count): the first bench of a round read about 1% slower
# than the same binary right after it (an A/A call: docs/bench/shade14/aa/), so each variant takes
# each place in turn.
n=${#variants[@]}
for round in $(seq "$ROUNDS"); do
  for k in $(seq 0 $((n - 1))); do
    v=${variants[$(( (round - 1 + k) % n ))]}
    bench "$v" "$v" --scenes "$SCENES" -s "$SIZE" --modes "$MODES" --repeat 20 --warmup 3 --max-seconds 1.5
  done
done
if [ -n "$BIG" ]; then
  read -r scene size <<< "$BIG"
  for v in "${variants[@]}"; do
    bench "$v" "$v" --scenes "$scene" -s "$size" --modes exact --repeat 5 --warmup 1 --max-seconds 20
  done
fi
rm -f "$OUT/tmp.log"
# Each pair's frame medians, variant after variant.
awk '{key = $2 " " $3; if (!(key in seen)) {seen[key] = 1; order[n++] = key} m[key, $1] = m[key, $1] " " $4}
     END {for (i = 0; i < n; i++) {line = order[i]; split(vars, vs, " ");
            for (j = 1; j in vs; j++) line = line " | " vs[j] ":" m[order[i], vs[j]]; print line}}' \
  vars="${variants[*]}" "$OUT/ab_summary.txt"
echo "gpu-ab: done after $(( $(date +%s) - T0 )) s"
exit $status
