#!/usr/bin/env bash
# shade_kernel's kernels that walk per row group (kSubBoxes: direct exact frames of small flat
# circles) with their binned code compiled out (sub) against the committed code (base): which
# plans the small frames take, checks against cpu-ref, A/B at 257x193 (where rand10k's and the
# animated scenes' circles are small), then the GPU tests and direct-sanitize on sub.
set -uo pipefail
O=${OUT:-/tmp/out}
mkdir -p $O
gunzip -f .device/*/*.gz 2>/dev/null
for sc in rand10k bouncingballs hypnosis fireworks pattern; do
  .device/sub/circles bench --renderers cuda-tile-binned --scenes $sc -s 257x193 --repeat 2 --warmup 1 --json $O/p.json > /dev/null 2>&1
  echo "$sc: $(grep -o '"plan": "[^"]*"' $O/p.json)"
done | tee $O/plans.txt
VARIANTS="base sub" SCENES=rand10k,bouncingballs,hypnosis,fireworks,pattern SIZE=257x193 MODES=exact ROUNDS=3 \
  CHECK_MODES=exact CHECKS="rand10k 257x193 0:2; bouncingballs 257x193 0:3; hypnosis 257x193 0:3; fireworks 257x193 0:3" BIG= \
  OUT=$O/ab bash scripts/gpu-ab.sh 2>&1 | tail -7
BIN=.device/sub OUT=$O/v GPU_RUN_PACK=1 bash scripts/gpu-run.sh tests direct-sanitize 2>&1 | grep -E "PASSED|FAILED|SKIPPED|rc=[1-9]|==" | head -20
