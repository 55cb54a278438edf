#!/bin/bash
# Session 8: box runs (compose 1) vs the per-row-group walk (compose 0) for binned exact frames at tile 32, by radius.
cd "$(dirname "$0")/.."
B=.device/bin/circles
mkdir -p /tmp/sc
which python3 || exit 3
for r in 16 20 24 32 40 47; do
  n=$(python3 -c "import math; print(int(320*1024*1024/(math.pi*$r*$r)))")
  python3 scripts/gen_random_scene.py $n $r /tmp/sc/r$r.scene
done
for rep in 1 2; do
  for c in 1 0; do
    echo "=== compose $c rep $rep"
    CIRCLES_BINNED_COMPOSE=$c $B bench -s 1024x1024 --scenes /tmp/sc/r16.scene,/tmp/sc/r20.scene,/tmp/sc/r24.scene,/tmp/sc/r32.scene,/tmp/sc/r40.scene,/tmp/sc/r47.scene \
      --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 20 --max-seconds 1 2>&1 | grep -E "^[a-z/]"
  done
done
