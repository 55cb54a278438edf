#!/usr/bin/env bash
# Pipelined binning (CIRCLES_BINNED_PIPELINE=k: the circles in k chunks, each after the first
# binned on a second stream while the one before shades) against one chunk, stress10M at
# 3840x2160 exact; checks against cpu-ref with the sort forced so that the pipeline runs.
# One binary (the committed code with dropped_pipeline.patch, stripped) at .device/bin/circles.gz,
# and each variant a wrapper .device/<v>/circles that sets the patch's hooks and runs it:
#   base (none), p2/p3/p4 (CIRCLES_BINNED_PIPELINE=2/3/4), p4f (=4 with
#   CIRCLES_BINNED_PIPELINE_FIRST=10), p2n (=2 with CIRCLES_BINNED_PIPELINE_PRIO=0),
#   c2 (CIRCLES_BINNED_MAX_PAIRS=30000000: two chunks one after the other, no pipeline),
#   p3s (=3 with CIRCLES_BINNED_BINNING=sort, for the checks).
set -uo pipefail
O=${OUT:-/tmp/out}
mkdir -p $O
for j in "rand1M 1000x777 0:2" "stress10M 1000x777 0:1" "rand1M 257x193 0:1"; do
  read -r sc sz fr <<< "$j"
  timeout 300 .device/p3s/circles check $sc -r cuda-tile-binned -s $sz --frames $fr > $O/chk.log 2>&1; echo "p3s check $j rc=$? $(tail -1 $O/chk.log)" | tee -a $O/checks.txt
done
.device/p3/circles bench --renderers cuda-tile-binned --scenes stress10M -s 3840x2160 --modes exact --repeat 3 --warmup 1 --json $O/p3.json > $O/p3.log 2>&1
grep -o '"plan": "[^"]*"' $O/p3.json
VARIANTS="base p2 p3 p4 p4f p2n c2" SCENES=stress10M SIZE=3840x2160 MODES=exact ROUNDS=2 CHECKS= BIG= \
  OUT=$O/ab bash scripts/gpu-ab.sh 2>&1 | tail -4
