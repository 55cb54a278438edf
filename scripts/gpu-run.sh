#!/usr/bin/env bash
# One device run on the GPU machine: GPU tests with the GPU required, compute-sanitizer on the
# kernels, then the benchmark. Expects the executables in $BIN (default .device/bin) and writes
# logs under $OUT. Usage: bash scripts/gpu-run.sh [tests] [sanitize] [bench] [viewer] [window] [lab-sanitize]
# [lab-bench] [lab-ncu] [lab-counters] [counters] [scans] [lab-live] [counters-viewer] [heat]
# [fast-sanitize] [direct-sanitize] [floors] [sass] (default: the first four; the others are named explicitly).
#
# Preparing a device run (on this machine, once):
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 && ninja -C build-gpu
#   mkdir -p .device/bin && cp build-gpu/circles build-gpu/tests/circles_tests build-gpu/tests/circles_gpu_tests \
#     build-gpu/tests/circles_viewer_tests build-gpu/tests/circles_viewer_input_tests \
#     build-gpu/tests/circles_scene_fuzz_replay .device/bin/
#   bash ../shared/gpu/fetch-gl-debs.sh libglfw3 libstb0   # fills .gl/ (needs .git/info)
# Then one `device run` with carry [".device", ".gl"] and the command
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export OUT; bash scripts/gpu-run.sh
# (if the EGL vendor file is missing there, also export
#  __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json).
# Keep the whole run under the 10-minute limit of one call: `tests sanitize viewer` in one call and
# `bench` in another. Copy the logs you report into docs/bench/. A device call brings back at most
# 8 files from $OUT (the viewer step alone writes 9): with GPU_RUN_PACK=1 the run ends by packing
# the files it wrote into $OUT/gpu-run.tar.gz (read them with tar -xzf).
set -uo pipefail
BIN=$(realpath "${BIN:-.device/bin}") && [ -x "$BIN/circles" ] || {
  echo "gpu-run: no executable circles in '${BIN:-.device/bin}' (see the preparation steps above)" >&2
  exit 2
}
OUT=${OUT:-/tmp/circles-gpu-out}
mkdir -p "$OUT"
stamp=$(mktemp)  # what this run writes under $OUT is newer (GPU_RUN_PACK)
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests sanitize bench viewer)
# Every step named is checked before any runs: a misspelt one would otherwise be skipped silently
# after the device time of the others was spent. (The same list as the case below.)
known=" $(grep -oE '^    [a-z-]+\)$' "$0" | tr -d ' )' | tr '\n' ' ')"
for step in "${steps[@]}"; do
  case "$known" in
    *" $step "*) ;;
    *) echo "gpu-run: unknown step '$step' (steps:$known)" >&2; exit 2 ;;
  esac
done
status=0
# compute-sanitizer's memcheck, racecheck and synccheck on cuda-tile-binned, exact and early exit,
# at 257x193: sanitize_binned LOG FRAMES SCENE... (snow always frames 0:3); the runs' output in
# $OUT/LOG, a line a run (tool, scene, mode, exit status, summary) here and in
# $OUT/<LOG without .log>.runs.txt.
sanitize_binned() {
  local log=$1 frames=$2 tool scene mode f rc
  local runs="$OUT/${log%.log}.runs.txt"
  shift 2
  : > "$OUT/$log"
  : > "$runs"
  for tool in memcheck racecheck synccheck; do
    for scene in "$@"; do
      for mode in "" --half-colour --early-exit; do
        # --half-colour: the eight-pixel walk's half-precision build, which only rand1M takes here.
        [ "$mode" = --half-colour ] && [ "$scene" != rand1M ] && continue
        f=$frames; [ "$scene" = snow ] && f=0:3
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN/circles" render "$scene" -r cuda-tile-binned \
          $mode ${SANITIZE_FLAGS:-} -s 257x193 --frames "$f" -o /tmp/san.png > /tmp/san.log 2>&1
        rc=$?
        cat /tmp/san.log >> "$OUT/$log"
        echo "$tool $scene ${mode:-exact}: rc=$rc $(grep -E "(ERROR|RACECHECK) SUMMARY" /tmp/san.log)" | tee -a "$runs"
        [ "$rc" -eq 0 ] || status=1
      done
    done
  done
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      # Every test binary in $BIN, the GPU required, no unexpected skip (scripts/gpu-tests.sh).
      echo "== every test binary (scripts/gpu-tests.sh: the GPU required, no unexpected skip)"
      BIN="$BIN" OUT="$OUT/tests" SHARDS="${SHARDS:-4}" bash "$(dirname "$0")/gpu-tests.sh" 2>&1 | tail -40
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      ;;
    sanitize)
      echo "== compute-sanitizer"
      : > "$OUT/sanitizer.log"
      : > "$OUT/sanitizer.runs.txt"  # a line a run, as the console shows it
      renderers=$("$BIN/circles" list | awk '/^  cuda-/ {print $1}')
      [ -n "$renderers" ] || { echo "gpu-run: sanitize: circles list names no CUDA renderer" >&2; status=1; }
      for tool in memcheck racecheck synccheck; do
        for r in $renderers; do
          for scene in rand10k pattern snow; do
            frames=0; [ "$scene" = snow ] && frames=0:3
            compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN/circles" render "$scene" \
              -r "$r" -s 257x193 --frames "$frames" -o /tmp/san.png > /tmp/san.log 2>&1
            rc=$?
            cat /tmp/san.log >> "$OUT/sanitizer.log"
            line=$(grep -E "(ERROR|RACECHECK) SUMMARY" /tmp/san.log)
            echo "$tool $r $scene: rc=$rc $line" | tee -a "$OUT/sanitizer.runs.txt"
            [ "$rc" -eq 0 ] || status=1
          done
        done
      done
      ;;
    bench)
      echo "== the benchmark suite (docs/BENCHMARKS.md's tables): every scene, CUDA renderer and mode; stress10M at 4K"
      BIN="$BIN/circles" bash "$(dirname "$0")/bench-suite.sh" "$OUT/suite" || status=1
      echo "== benchmark 1024x1024: CPU renderers (one warm-up frame on the slow scenes)"
      { "$BIN/circles" bench -s 1024x1024 --renderers cpu-mt --tile-size 32 --repeat 10 --warmup 1 --max-seconds 2 &&
        "$BIN/circles" bench -s 1024x1024 --renderers cpu-ref --repeat 5 --warmup 1 --max-seconds 2; } \
        2>&1 | tee "$OUT/bench_cpu.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      ;;
    fast-sanitize)
      echo "== compute-sanitizer on cuda-tile-binned: rand10k, rand1M, micro2M, snow; exact and early exit; rand1M with --half-colour"
      sanitize_binned sanitizer_fast.log 0 rand10k rand1M micro2M snow
      ;;
    direct-sanitize)
      echo "== compute-sanitizer on cuda-tile-binned's direct frames (four pixels a lane, the step fused; early exit)"
      sanitize_binned sanitizer_direct.log 0:3 hypnosis fireworks biglittle pattern rand10k
      # With box runs off, the still direct frames run the row groups' walk built for direct frames
      # (shade_kernel's kSubBoxes instantiations), which no built-in scene runs by default at 1024x1024.
      echo "== the same, box runs off (--binned-compose 0): pattern and rand10k"
      SANITIZE_FLAGS="--binned-compose 0" sanitize_binned sanitizer_direct_compose0.log 0:3 pattern rand10k
      ;;
    sass)
      # Nsight Compute's source view (instructions executed and stall samples per SASS line) and
      # its details page for one launch of a kernel, per job "label scene WxH kernel-regex [flags]"
      # ($SASS_JOBS, one job a line; the defaults below). Everything goes into one archive,
      # $OUT/sass.tar.gz (read the pages with tar -xzf).
      jobs=${SASS_JOBS:-"rand1M rand1M 1024x1024 ^shade_kernel
pattern pattern 1024x1024 ^shade_kernel
micro2M_tiny micro2M 1024x1024 ^tiny_shade_kernel"}
      mkdir -p /tmp/sass && rm -f /tmp/sass/*
      while read -r label scene size kre flags; do
        [ -n "$label" ] || continue
        ncu --section SourceCounters --section WarpStateStats --section SchedulerStats --section Occupancy \
          --section LaunchStats --section SpeedOfLight --section MemoryWorkloadAnalysis -k "regex:$kre" -c 1 \
          -f -o "/tmp/sass/$label" "$BIN/circles" render "$scene" -r cuda-tile-binned -s "$size" $flags \
          -o /tmp/sass.png > "/tmp/sass/$label.ncu.log" 2>&1
        rc=$?; echo "ncu $label rc=$rc"; [ "$rc" -eq 0 ] || { status=1; tail -5 "/tmp/sass/$label.ncu.log"; }
        ncu --import "/tmp/sass/$label.ncu-rep" --page details > "/tmp/sass/$label.details.txt" 2>&1
        ncu --import "/tmp/sass/$label.ncu-rep" --page source --csv --print-source sass \
          > "/tmp/sass/$label.sass.csv" 2>&1
        echo "  $(wc -l < "/tmp/sass/$label.sass.csv") SASS lines; $(grep -E 'Duration|Executed Ipc A|Achieved Occ|Registers Per' "/tmp/sass/$label.details.txt" | tr -s ' ' | tr '\n' ';')"
      done <<< "$jobs"
      rm -f /tmp/sass/*.ncu-rep
      tar -czf "$OUT/sass.tar.gz" -C /tmp sass
      ;;
    floors)
      echo "== Nsight Compute: every kernel of one cuda-tile-binned frame (rand1M, micro2M at 1024^2; stress10M at 4K)"
      m=gpu__time_duration.sum,sm__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio
      m=$m,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active
      m=$m,sm__instruction_throughput.avg.pct_of_peak_sustained_active,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
      for job in "rand1M 1024x1024" "micro2M 1024x1024" "stress10M 3840x2160"; do
        set -- $job
        ncu --metrics "$m" --csv "$BIN/circles" render "$1" -r cuda-tile-binned -s "$2" -o /tmp/floor.png \
          > "$OUT/floors_$1.csv" 2> "$OUT/floors_$1.err"
        rc=$?; echo "ncu $1 rc=$rc rows=$(grep -c '^"' "$OUT/floors_$1.csv")"; [ "$rc" -eq 0 ] || status=1
      done
      ;;
    lab-sanitize)
      echo "== compute-sanitizer on every lab variant (small awkward sizes; every knob value)"
      : > "$OUT/lab_sanitizer.log"
      for tool in memcheck racecheck synccheck; do
        for fam in ${LAB_SANITIZE_FAMILIES:-reduce scan transpose banks conv}; do  # (a subset: LAB_SANITIZE_FAMILIES)
          case "$fam" in
            transpose) size="33x31,257x129" ;;
            banks) size="300" ;;
            *) size="1025,70001" ;;
          esac
          compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN/circles" kernels "$fam" --size "$size" \
            --repeat 1 --warmup 0 > /tmp/san.log 2>&1
          rc=$?
          cat /tmp/san.log >> "$OUT/lab_sanitizer.log"
          line=$(grep -E "(ERROR|RACECHECK) SUMMARY" /tmp/san.log | tail -1)
          echo "$tool $fam: rc=$rc $line"
          [ "$rc" -eq 0 ] || status=1
        done
      done
      ;;
    lab-bench)
      echo "== kernel lab: every family at its default sizes (HBM-sized inputs)"
      "$BIN/circles" kernels all --json "$OUT/kernels.json" 2>&1 | tee "$OUT/kernels.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      ;;
    lab-ncu)
      echo "== Nsight Compute: shared-memory bank conflicts and wavefronts of every bank kernel"
      ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
        --kernel-name regex:bank --csv "$BIN/circles" kernels banks --size 4096 --repeat 1 --warmup 0 \
        > "$OUT/banks_ncu.csv" 2> "$OUT/banks_ncu.err"
      rc=$?; echo "ncu rc=$rc rows=$(grep -c bank "$OUT/banks_ncu.csv")"; [ "$rc" -eq 0 ] || status=1
      ;;
    lab-counters)
      echo "== Nsight Compute: DRAM bytes, shared conflicts, instructions and occupancy of every lab kernel (2^24)"
      m=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
      m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active
      m=$m,smsp__thread_inst_executed_per_inst_executed.ratio,sm__inst_executed.sum
      : > "$OUT/lab_counters.csv"
      for fam in reduce scan conv; do
        type=i32; [ "$fam" = conv ] && type=f32
        ncu --metrics "$m" --csv "$BIN/circles" kernels "$fam" --size 2^24 --type $type --param 256,8 --repeat 1 \
          --warmup 0 >> "$OUT/lab_counters.csv" 2>> "$OUT/lab_counters.err"
        rc=$?; echo "ncu $fam rc=$rc"; [ "$rc" -eq 0 ] || status=1
      done
      ncu --metrics "$m" --csv "$BIN/circles" kernels transpose --size 4096x4096 --repeat 1 --warmup 0 \
        >> "$OUT/lab_counters.csv" 2>> "$OUT/lab_counters.err"
      rc=$?; echo "ncu transpose rc=$rc rows=$(grep -c '^"' "$OUT/lab_counters.csv")"; [ "$rc" -eq 0 ] || status=1
      ;;
    counters)
      echo "== CUPTI range-profiler counters in-process vs Nsight Compute on the same kernels"
      CIRCLES_REQUIRE_GPU=1 CIRCLES_REQUIRE_COUNTERS=1 "$BIN/circles_gpu_tests" --gtest_filter='*Counter*' \
        --gtest_brief=1 2>&1 | tee "$OUT/counter_tests.log" | tail -8
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      BIN="$BIN" OUT="$OUT" bash scripts/counters_vs_ncu.sh 2>&1 | tail -30
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      ;;
    scans)
      echo "== the renderers' scans from the lab: each choice timed side by side (1024x1024), and under"
      echo "   compute-sanitizer memcheck and racecheck (rand10k and snow at 257x193)"
      : > "$OUT/scans_sanitizer.log"; : > "$OUT/bench_scans.log"
      for r in cuda-tile-scan cuda-tile-binned; do
        choices=$("$BIN/circles" list | awk -v r="$r" '$1 == r {f=1; next} f && /--scan/ {print $2; exit}' | tr '|' ' ')
        for sc in $choices; do
          "$BIN/circles" bench --scenes rand10k,rand100k,rand1M,snow --renderers "$r" --tile-size 16 --scan "$sc" \
            -s 1024x1024 --repeat 20 --warmup 3 --max-seconds 2 2>&1 | grep -E "^ *(rand|snow)" | sed "s|^|$sc |" \
            | tee -a "$OUT/bench_scans.log"
          for tool in memcheck racecheck; do
            for scene in rand10k snow; do
              compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN/circles" render "$scene" -r "$r" --scan "$sc" \
                -s 257x193 --frames 0:2 -o /tmp/san.png > /tmp/san.log 2>&1
              rc=$?; cat /tmp/san.log >> "$OUT/scans_sanitizer.log"; [ "$rc" -eq 0 ] || { status=1; echo "$tool $r $sc $scene rc=$rc"; }
            done
          done
        done
      done
      echo "scans sanitizer: $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/scans_sanitizer.log") memcheck clean, $(grep -c 'RACECHECK SUMMARY: 0 hazards' "$OUT/scans_sanitizer.log") racecheck clean"
      echo "== compute-sanitizer on the lab-on-the-frame kernels (transpose view, difference statistics, frame reductions)"
      for tool in memcheck racecheck synccheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN/circles" view --offscreen rand10k -s 700x500 \
          --quit-after 3 --play --transpose-view transpose-best --frame-stats reduce-shuffle --check > /tmp/san.log 2>&1
        rc=$?; cat /tmp/san.log >> "$OUT/scans_sanitizer.log"
        echo "$tool view: rc=$rc $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/san.log | tail -1)"; [ "$rc" -eq 0 ] || status=1
      done
      ;;
    counters-viewer)
      echo "== the Counters panel beside Nsight Compute: a lab variant (256 MiB input) and a renderer's frame"
      # The program's metric list (kernels/cuda/counters.cpp, counter_metrics()), for ncu.
      m=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
      m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active
      m=$m,smsp__thread_inst_executed_per_inst_executed.ratio,sm__inst_executed.sum,sm__inst_issued.avg.pct_of_peak_sustained_active
      "$BIN/circles" view --offscreen rand10k -s 1400x1300 --quit-after 3000 --play --kernels reduce:reduce-shuffle,reduce-global-divergent \
        --counters reduce-shuffle --screenshot "$OUT/viewer_counters.png" > "$OUT/viewer_counters.log" 2>&1 || status=1
      grep -E "counters:" "$OUT/viewer_counters.log"
      # ncu as the program sees the GPU (no cache flush or clock lock between kernels), plus the
      # active cycles to weight per-kernel percentages the way one range sums them.
      ncu --cache-control none --clock-control none --metrics "$m,sm__cycles_active.sum" --csv "$BIN/circles" kernels reduce --variant reduce-shuffle --param 256 --size 67108864 --type i32 \
        --repeat 1 --warmup 0 > "$OUT/viewer_counters_ncu.csv" 2> "$OUT/viewer_counters_ncu.err" || status=1
      "$BIN/circles" view --offscreen rand1M -s 800x600 --render-size 1024x1024 --quit-after 2 --counters frame \
        > "$OUT/viewer_counters_frame.log" 2>&1 || status=1
      grep -E "counters:" "$OUT/viewer_counters_frame.log"
      for stage in sort clear+shade; do
        "$BIN/circles" view --offscreen rand1M -s 800x600 --render-size 1024x1024 --quit-after 8 --counters "stage:$stage" \
          > "$OUT/viewer_counters_stage_$stage.log" 2>&1 || status=1
        grep -E "counters:" "$OUT/viewer_counters_stage_$stage.log"
        ncu --cache-control none --clock-control none --nvtx --nvtx-include "renderer: $stage/" \
          --metrics "$m,sm__cycles_active.sum" --csv "$BIN/circles" render rand1M -r cuda-tile-binned -s 1024x1024 \
          -o /tmp/ncu.png > "$OUT/viewer_counters_stage_${stage}_ncu.csv" 2> "$OUT/viewer_counters_stage_${stage}_ncu.err" || status=1
      done
      ncu --cache-control none --clock-control none --metrics "$m,sm__cycles_active.sum" --csv "$BIN/circles" render rand1M -r cuda-tile-binned -s 1024x1024 -o /tmp/ncu.png \
        > "$OUT/viewer_counters_frame_ncu.csv" 2> "$OUT/viewer_counters_frame_ncu.err" || status=1
      ;;
    lab-live)
      echo "== viewer: frame time without and with the Kernels panel running a ladder every frame (L2-sized input)"
      for scene in rand10k rand1M; do
        for kernels in "" "reduce" "scan" "transpose"; do
          extra=(); tag=base
          [ -n "$kernels" ] && { extra=(--kernels "$kernels" --kernels-size l2); tag=$kernels; }
          "$BIN/circles" view --offscreen "$scene" -s 1280x720 --quit-after 300 --play "${extra[@]}" \
            > "$OUT/live_${scene}_$tag.log" 2>&1
          rc=$?; [ "$rc" -eq 0 ] || status=1
          echo "$scene $tag rc=$rc $(grep -E '^  frame ' "$OUT/live_${scene}_$tag.log") $(grep -E 'lab: kernels|host: kernels' "$OUT/live_${scene}_$tag.log" | tr '\n' ' ')"
        done
      done
      echo "== screenshots: the Kernels panel (reduction ladder, HBM input), the transpose view"
      "$BIN/circles" view --offscreen rand10k -s 1400x1500 --quit-after 20000 --play --kernels reduce \
        --screenshot "$OUT/viewer_kernels.png" > "$OUT/viewer_kernels.log" 2>&1 || status=1
      grep -E "kernels:" "$OUT/viewer_kernels.log"
      "$BIN/circles" view --offscreen biglittle -s 1400x1000 --quit-after 3 --transpose-view transpose-best \
        --screenshot "$OUT/viewer_transpose.png" > "$OUT/viewer_transpose.log" 2>&1 || status=1
      grep -E "transpose view:" "$OUT/viewer_transpose.log"
      ;;
    heat)
      echo "== heat maps on biglittle (screenshots), and compute-sanitizer on their kernels"
      for m in blends time circles; do
        "$BIN/circles" view --offscreen biglittle -s 1400x1000 --quit-after 5 --heat $m --screenshot "$OUT/viewer_heat_$m.png" \
          2>&1 | grep -E "heat:"
      done
      : > "$OUT/heat_sanitizer.log"
      for r in cuda-tile-scan cuda-tile-binned; do for m in blends time; do for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 "$BIN/circles" view --offscreen rand10k -r $r -s 640x480 \
          --quit-after 3 --heat $m > /tmp/s.log 2>&1
        rc=$?; echo "$tool $r $m rc=$rc $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/s.log)"; cat /tmp/s.log >> "$OUT/heat_sanitizer.log"
        [ "$rc" -eq 0 ] || status=1
      done; done; done
      ;;
    viewer)
      echo "== viewer: tests with CUDA-GL interop (CIRCLES_REQUIRE_GPU=1)"
      CIRCLES_REQUIRE_GPU=1 CIRCLES_BIN="$BIN/circles" CIRCLES_SOURCE_DIR="$PWD" "$BIN/circles_viewer_tests" \
        --gtest_brief=1 2>&1 | tee "$OUT/viewer_tests.log" | tail -15
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      echo "== viewer: compute-sanitizer memcheck on each present path"
      for present in external surface pbo; do
        compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/circles" view --offscreen rand10k \
          -r cuda-tile-binned -s 640x360 --quit-after 4 --play --present "$present" > /tmp/san.log 2>&1
        rc=$?; echo "memcheck present $present: rc=$rc $(grep 'ERROR SUMMARY' /tmp/san.log)"
        [ "$rc" -eq 0 ] || status=1
      done
      echo "== viewer: frames at 1920x1080 (a 1080x1080 frame) by present path, and their timelines"
      for scene in rand10k rand1M snow; do
        for present in external surface "external --overlap"; do
          tag=$(echo "$present" | tr -d ' -')
          "$BIN/circles" view --offscreen "$scene" -r cuda-tile-binned -s 1920x1080 --quit-after 300 --play \
            --present $present --timeline "$OUT/timeline_${scene}_$tag.json" > "$OUT/viewer_${scene}_$tag.log" 2>&1
          echo "$scene $present: $(grep -E '^  frame ' "$OUT/viewer_${scene}_$tag.log")"
          python3 scripts/plot_timeline.py "$OUT/timeline_${scene}_$tag.json" -o "$OUT/timeline_${scene}_$tag.svg" \
            > "$OUT/timeline_${scene}_$tag.md" || status=1
        done
      done
      echo "== viewer: the host copy at 1080x1080"
      "$BIN/circles" view --offscreen rand10k -r cuda-tile-binned -s 1920x1080 --quit-after 100 --play --no-interop \
        2>&1 | grep -E "copy:|^  frame"
      "$BIN/circles" view --offscreen rand10k -r cpu-mt -s 1920x1080 --quit-after 30 --play 2>&1 | grep -E "copy:|^  frame"
      ;;
    window)
      # The window path on NVIDIA's GL: a GLFW window under Xvfb, with NVIDIA's GLX client library
      # (__GLX_VENDOR_LIBRARY_NAME=nvidia). Xvfb's own GLX extension needs Mesa's DRI driver and
      # LLVM; the GPU machine has none of them, so they are carried as .deb files in .gl-extra
      # (git-ignored, about 45 MB; it has libxml2, libicu and libedit already). Fill it with
      #   apt-get download xvfb xauth xserver-common x11-xkb-utils xkb-data libxfont2 libfontenc1 \
      #     libpixman-1-0 libxkbfile1 libunwind8 libfreetype6 libbrotli1 libpng16-16 libxmuu1 libxau6 \
      #     libxdmcp6 libbsd0 libmd0 libxcvt0 libxshmfence1 libx11-xcb1 libxext6 libxfixes3 libxi6 \
      #     libxinerama1 libxrandr2 libxrender1 libxcursor1 libxxf86vm1 libgl1-mesa-dri libllvm15 \
      #     libz3-4 libglapi-mesa libglx-mesa0 libdrm2 libdrm-common libdrm-amdgpu1 libdrm-intel1 \
      #     libdrm-nouveau2 libdrm-radeon1 libelf1 libpciaccess0 libsensors5 libxcb-dri2-0 \
      #     libxcb-dri3-0 libxcb-present0 libxcb-sync1 libxcb-xfixes0 libxcb-glx0 libxcb-randr0 \
      #     libxcb-shm0 mesa-utils-bin
      # With circles and .gl that is about 63 MB of the 64 MiB a run may carry: carry the viewer
      # tests in a second run on the same machine (what is unpacked stays while it is held).
      echo "== window: Xvfb with NVIDIA's GLX"
      if ! command -v Xvfb > /dev/null; then
        [ -d .gl-extra ] || { echo "gpu-run: window: no Xvfb and no .gl-extra (see the list above)" >&2; exit 2; }
        mkdir -p /tmp/xp && for f in .gl-extra/*.deb; do dpkg -x "$f" /tmp/xp; done
        cp -rn /tmp/xp/usr/* /usr/ 2>/dev/null; cp -rn /tmp/xp/etc/* /etc/ 2>/dev/null; ldconfig
      fi
      (Xvfb :7 -screen 0 1920x1080x24 +extension GLX > "$OUT/xvfb.log" 2>&1 &)
      sleep 2
      DISPLAY=:7 __GLX_VENDOR_LIBRARY_NAME=nvidia glxinfo.x86_64-linux-gnu -B 2>&1 | grep -E "OpenGL (vendor|renderer)"
      for scene in rand10k snow; do
        for present in external surface; do
          DISPLAY=:7 __GLX_VENDOR_LIBRARY_NAME=nvidia "$BIN/circles" view "$scene" -r cuda-tile-binned -s 1920x1080 \
            --quit-after 300 --play --vsync off --present "$present" --check \
            --timeline "$OUT/window_timeline_${scene}_$present.json" > "$OUT/window_${scene}_$present.log" 2>&1
          rc=$?
          echo "window $scene $present: rc=$rc $(grep -E 'present:|check:|^  frame ' "$OUT/window_${scene}_$present.log" | tr '\n' ' ')"
          [ "$rc" -eq 0 ] || status=1
          python3 scripts/plot_timeline.py "$OUT/window_timeline_${scene}_$present.json" \
            -o "$OUT/window_timeline_${scene}_$present.svg" > "$OUT/window_timeline_${scene}_$present.md" || status=1
        done
      done
      pkill Xvfb
      if [ -x "$BIN/circles_viewer_tests" ]; then
        CIRCLES_REQUIRE_GPU=1 CIRCLES_REQUIRE_WINDOW=1 CIRCLES_BIN="$BIN/circles" CIRCLES_SOURCE_DIR="$PWD" \
          "$BIN/circles_viewer_tests" --gtest_filter='*Window*Xvfb*:*WindowOnNvidiaGlx*' 2>&1 |
          tee "$OUT/window_test.log" | tail -6
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      fi
      ;;
  esac
done
if [ "${GPU_RUN_PACK:-0}" = 1 ]; then
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name gpu-run.tar.gz -newer "$stamp" -printf '%P\n' > /tmp/gpu-run.files &&
    tar -czf gpu-run.tar.gz -T /tmp/gpu-run.files && xargs -d '\n' rm -f < /tmp/gpu-run.files) ||
    { echo "gpu-run: packing $OUT failed"; status=1; }
fi
rm -f "$stamp"
exit $status
