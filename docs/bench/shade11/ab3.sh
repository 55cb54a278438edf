#!/bin/bash
A=.device/ab
{
for sz in 1024x1024 1000x777 257x193 1023x1025 64x2000 2000x64; do
  echo "rand1M $sz: $($A/circles_new check rand1M -r cuda-tile-binned -s $sz --frames 0:1 2>&1 | tail -1 | cut -c1-160)"
done
echo "stress10M 1000x777: $($A/circles_new check stress10M -r cuda-tile-binned -s 1000x777 --frames 0:1 2>&1 | tail -1 | cut -c1-160)"
} > $OUT/checks.txt 2>&1
cat $OUT/checks.txt
for rep in 1 2; do
  for v in ${VARIANTS:-base new}; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes rand1M,stress10M --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]" | grep -v "^bench:" | cut -c1-170
  done
done 2>&1 | tee $OUT/ab.txt
K=$(cuobjdump -symbols $A/circles_new 2>/dev/null | grep -o '_ZN[^ ]*shade_kernelILNS_7ShadingE0ELi32ELb0ELb0ELi0ELi4ELb0ELb0E[^ ]*' | head -1)
cuobjdump -sass -fun "$K" $A/circles_new > $OUT/sass.txt 2>&1; echo "sass rc=$? $(wc -l < $OUT/sass.txt)"
