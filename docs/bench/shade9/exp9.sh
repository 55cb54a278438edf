#!/bin/bash
# Session 9, ninth A/B: direct exact frames that run the row groups' kernel (16,000 random circles
# of radius 4, 8 and 12 pixels: direct, no box runs), this session's code (head, 509b894) against
# the session's base (d33c0ce): three blocks an SM there instead of four.
cd "$(dirname "$0")/../../.."
A=.device/ab
mkdir -p /tmp/sc
for r in 4 8 12; do python3 scripts/gen_random_scene.py 16000 $r /tmp/sc/d$r.scene; done
$A/circles_head check /tmp/sc/d8.scene -r cuda-tile-binned -s 1000x777 2>&1 | tail -1
for rep in 1 2 3; do
  for v in base head; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes /tmp/sc/d4.scene,/tmp/sc/d8.scene,/tmp/sc/d12.scene --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z/]"
  done
done
$A/circles_head bench -s 1024x1024 --scenes /tmp/sc/d8.scene --renderers cuda-tile-binned --repeat 3 2>&1 | grep -A1 "^/tmp" | tail -1 | cut -c1-300
