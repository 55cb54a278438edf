#!/usr/bin/env bash
# Session 18: the eight-pixel walk with its colour in half precision, measured to size an option
# for the 4K target (not landed). .device/h0: the committed code; h1: R and G a half2, B and A
# floats; h2: R and G a half2, B and the batch's alpha a half2 (docs/bench/shade18/half_colour_experiment.patch,
# CIRCLES_HALF_RG=1 or 2). Checks against cpu-ref (max |diff| a channel), then two rounds of rand1M and
# stress10M at 1024x1024 and stress10M at 3840x2160, exact; and the walk's SASS of each.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
for v in h0 h1 h2; do gunzip -f .device/$v/circles.gz 2>/dev/null; done
for v in h0 h1 h2; do
  cuobjdump -sass .device/$v/circles 2>/dev/null |
    awk '/Function : .*shade_rows8_kernelILb0E/ {on=1} on && /Function : / && !/shade_rows8_kernelILb0E/ {on=0} on' > "$OUT/sass_$v.txt"
  echo "$v: $(wc -l < "$OUT/sass_$v.txt") lines of SASS"
done
VARIANTS="h0 h1 h2" CHECKED="h0 h1 h2" CHECKS="rand1M 1000x777 0:1; rand1M 257x193 0:1; stress10M 1000x777 0:1" \
  CHECK_MODES=exact SCENES=rand1M,stress10M SIZE=1024x1024 MODES=exact ROUNDS=2 BIG="stress10M 3840x2160" \
  OUT="$OUT/ab" bash scripts/gpu-ab.sh
cat "$OUT/ab/checks.txt"
# A second 4K round, in the other order.
for v in h2 h1 h0; do
  .device/$v/circles bench --renderers cuda-tile-binned --tile-size 32 --scenes stress10M -s 3840x2160 --repeat 5 --warmup 1 --max-seconds 20 \
    --modes exact > "$OUT/big2_$v.log" 2>&1
  echo "$v 4K: $(grep -E "stress10M" "$OUT/big2_$v.log" | tail -2)"
done
