// What a lab variant's launcher receives, and the launchers themselves (one per variant, named in
// app/common/lab_registry.cpp). A launcher enqueues everything its variant needs on `stream` (memsets of
// its own counters included) and checks every CUDA call and launch; it never synchronizes unless
// the algorithm needs it, and never allocates except through `scratch`.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/check.h"
#include "kernels/cuda/raii.h"
#include "kernels/cuda/scratch.h"
#include "kernels/lab/lab.h"

namespace circles::lab {

using circles::Scratch;  // kernels/cuda/scratch.h

struct LaunchArgs {
  const void* in = nullptr;     // shape.n elements of `type` (transpose: height rows of width)
  const int* flags = nullptr;   // segmented_scan: n head flags (nonzero: a segment starts here)
  void* out = nullptr;          // n elements of `type` (bank_read: n uint32; reduce_sum: 1)
  int* count = nullptr;         // find_repeats, compact: where the number of outputs goes
  Shape shape;
  Elem type = Elem::i32;
  int param = 0;                // the variant's knob value (block size, stride or radius)
  Scratch* scratch = nullptr;
  cudaStream_t stream = nullptr;
  // Launch programmatically dependent on the kernel before it in `stream` (kernels/
  // dependent_launch.cuh): its blocks may start while that one finishes and wait for it before
  // reading anything. Only scan-lookback's launcher takes it (the renderer's binning sets it);
  // the other variants launch as usual.
  bool dependent = false;
};

// --- reduce.cu (task reduce_sum; i32 and f32) ---
void reduce_atomic(const LaunchArgs&);
void reduce_serial_chunk(const LaunchArgs&);
void reduce_local_array(const LaunchArgs&);
void reduce_global_divergent(const LaunchArgs&);
void reduce_global_strided(const LaunchArgs&);
void reduce_shared_sequential(const LaunchArgs&);
void reduce_first_add(const LaunchArgs&);
void reduce_warp_unrolled(const LaunchArgs&);
void reduce_complete_unroll(const LaunchArgs&);
void reduce_multi_per_thread(const LaunchArgs&);
void reduce_dynamic_shared(const LaunchArgs&);
void reduce_shuffle(const LaunchArgs&);  // param: threads per block (32..1024)
void reduce_cub(const LaunchArgs&);

// --- scan.cu (exclusive_scan on i32 and f32; the applications as noted) ---
void scan_blelloch_global(const LaunchArgs&);
void scan_hillis_steele(const LaunchArgs&);
void scan_blelloch_shared(const LaunchArgs&);
void scan_blelloch_padded(const LaunchArgs&);
void scan_warp_shuffle(const LaunchArgs&);
void scan_lookback(const LaunchArgs&);
void scan_cub(const LaunchArgs&);
void find_repeats(const LaunchArgs&);    // task find_repeats, i32
void compact_scan(const LaunchArgs&);    // task compact, i32
void compact_cub(const LaunchArgs&);     // task compact, i32
void segmented_scan(const LaunchArgs&);  // task segmented_scan, i32 and f32

// --- transpose.cu (task transpose, f32) ---
void transpose_naive_read(const LaunchArgs&);
void transpose_naive_write(const LaunchArgs&);
void transpose_permuted(const LaunchArgs&);
void transpose_shared16(const LaunchArgs&);
void transpose_shared32(const LaunchArgs&);
void transpose_shared32_padded(const LaunchArgs&);
void transpose_best(const LaunchArgs&);
// transpose_host.cpp: the multithreaded CPU floor (host pointers).
void transpose_cpu_mt(const LaunchArgs&);

// --- banks.cu (task bank_read; param: stride in words, 0 = every lane the same word) ---
void banks_8(const LaunchArgs&);
void banks_16(const LaunchArgs&);
void banks_32(const LaunchArgs&);
void banks_64(const LaunchArgs&);
void banks_128(const LaunchArgs&);

// --- conv.cu (task convolve, f32; param: radius 1..16) ---
void conv_global(const LaunchArgs&);
void conv_shared(const LaunchArgs&);
void conv_shared_regs(const LaunchArgs&);

}  // namespace circles::lab
