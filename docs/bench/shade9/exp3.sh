#!/bin/bash
# Session 9, third A/B: the row groups' kernel at three blocks an SM (80 registers, no spill:
# circles_occ3) and with the two-circle walk too (circles_unroll3), against HEAD (circles_base).
cd "$(dirname "$0")/../../.."
A=.device/ab
for v in occ3 unroll3; do
  echo "=== check $v rand1M 1000x777"; $A/circles_$v check rand1M -r cuda-tile-binned -s 1000x777 --frames 0:2 2>&1 | tail -2
done
cuobjdump -sass -fun '_ZN7circles54_GLOBAL__N__3993f172_21_render_tile_binned_cu_87f694b312shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0EEEvNS_13DeviceCirclesENS_11FrameParamsENS0_9ShadeArgsE' $A/circles_unroll3 > $OUT/unroll3.sass 2>&1
for rep in 1 2 3; do
  for v in base occ3 unroll3; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]"
  done
done
for v in base occ3 unroll3; do
  echo "=== 4K $v"
  $A/circles_$v bench -s 3840x2160 --scenes stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 5 2>&1 | grep -E "^[a-z]"
done
