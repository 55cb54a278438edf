#!/bin/bash
# Session 9, second A/B: the row groups' walk two circles a pass (circles_unroll) against HEAD
# without it (circles_base); a check against cpu-ref off the tile grid first; the SASS of the
# walk's kernel (cuobjdump) to see where the spills went.
cd "$(dirname "$0")/../../.."
A=.device/ab
for s in rand1M stress10M; do
  echo "=== check $s 1000x777"; $A/circles_unroll check $s -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
done
cuobjdump -sass -fun '_ZN7circles54_GLOBAL__N__3993f172_21_render_tile_binned_cu_87f694b312shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0EEEvNS_13DeviceCirclesENS_11FrameParamsENS0_9ShadeArgsE' $A/circles_unroll > $OUT/unroll.sass 2>&1
for rep in 1 2 3; do
  for v in base unroll; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for v in base unroll; do
  echo "=== 4K $v"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
done
