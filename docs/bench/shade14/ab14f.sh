#!/usr/bin/env bash
# The fourteenth session's sixth A/B call: base (bc6993f), el (the row groups' walk of binned
# frames takes its tiles border last: EDGES_LAST) and ela (every shade kernel does, the direct
# ones and the tiny-circle one too: EDGES_LAST_ALL), on every scene at 1024x1024, both modes,
# three rounds; built from edges_last_variants.patch. Checks of ela against cpu-ref first.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
V="base el ela"
for v in $V; do gunzip -f .device/$v/circles.gz; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
for job in "micro2M 1000x777 0:2" "rand100k 1000x777 0:2" "snow 1000x777 0:3" "biglittle 1000x777 0:2" "pattern 1000x777 0:3" \
           "hypnosis 257x193 0:3" "fireworks 1000x777 0:3" "rand10k 2000x64 0" "rgb 1000x777 0:2" "micro2M 64x2000 0"; do
  set -- $job
  for mode in "" --early-exit; do
    timeout 150 .device/ela/circles check "$1" -r cuda-tile-binned -s "$2" --frames "$3" $mode > "$OUT/tmp.log" 2>&1
    echo "ela check $1 $2 frames $3 ${mode:-exact}: rc=$? $(grep -c PASS "$OUT/tmp.log") PASS; $(tail -1 "$OUT/tmp.log")" >> "$OUT/checks.txt"
  done
done
echo "checks done after $(( $(date +%s) - T0 )) s: $(grep -c 'rc=0' "$OUT/checks.txt") rc=0 of $(wc -l < "$OUT/checks.txt")"
for round in 1 2 3; do
  for v in $V; do
    .device/$v/circles bench -s 1024x1024 --renderers cuda-tile-binned \
      --tile-size 32 --modes exact,early-exit --repeat 20 --warmup 3 --max-seconds 1 > "$OUT/tmp.log" 2>&1
    { echo "== $v"; cat "$OUT/tmp.log"; } >> "$OUT/ab.log"
    awk -v l="$v" '$2 ~ /^cuda-tile-binned/ {print l, $1, $2, $4, $0}' "$OUT/tmp.log" | sed -E 's/ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +clear/ clear/' >> "$OUT/ab_summary.txt"
  done
done
rm -f "$OUT/tmp.log"
echo "all done after $(( $(date +%s) - T0 )) s"
