#!/bin/bash
A=.device/ab
{
for v in ${CHECKV:-new}; do
for sz in 1024x1024 1000x777 257x193 64x2000; do
  echo "$v rand1M $sz: $($A/circles_$v check rand1M -r cuda-tile-binned -s $sz --frames 0:1 2>&1 | tail -1 | cut -c1-160)"
done
echo "$v stress10M 1000x777: $($A/circles_$v check stress10M -r cuda-tile-binned -s 1000x777 --frames 0:1 2>&1 | tail -1 | cut -c1-160)"
done
} > $OUT/checks.txt 2>&1
cat $OUT/checks.txt | cut -c1-110
for rep in 1 2; do
  for v in ${VARIANTS:-base new}; do
    echo "=== $v rep $rep"
    $A/circles_$v bench -s 1024x1024 --scenes ${SCENES:-rand1M,stress10M} --renderers cuda-tile-binned --tile-size 32 --modes exact --repeat 30 --max-seconds 1 2>&1 | grep -E "^[a-z]" | grep -v "^bench:\|^scene" | cut -c1-130
  done
done 2>&1 | tee $OUT/ab.txt
