#!/bin/bash
# Session 8: direct exact frames, box runs (default / =1) vs the per-row-group walk (=0).
cd "$(dirname "$0")/.."
B=.device/bin/circles
mkdir -p /tmp/sc
for r in 16 20 24 28; do python3 scripts/gen_random_scene.py 16000 $r /tmp/sc/d$r.scene; done
for rep in 1 2 3; do
  for c in 1 0; do
    echo "=== compose $c rep $rep"
    CIRCLES_BINNED_COMPOSE=$c $B bench -s 1024x1024 --scenes pattern,bouncingballs,/tmp/sc/d16.scene,/tmp/sc/d20.scene,/tmp/sc/d24.scene,/tmp/sc/d28.scene \
      --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z/]"
  done
done
$B bench -s 1024x1024 --scenes /tmp/sc/d20.scene --renderers cuda-tile-binned --repeat 3 2>&1 | grep -A1 "^/tmp" | tail -1 | cut -c1-300
