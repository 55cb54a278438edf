// What a lab variant's launcher receives, and the launchers themselves (one per variant, named in
// app/common/lab_registry.cpp). A launcher enqueues everything its variant needs on `stream` (memsets of
// its own counters included) and checks every CUDA call and launch; it never synchronizes unless
// the algorithm needs it, and never allocates except through `scratch`.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/check.h"
#include "kernels/cuda/raii.h"
#include "kernels/lab/lab.h"

namespace circles::lab {

// Device scratch that grows on demand and never shrinks: the harness runs every variant once
// (the checked run) before timing it, so timed runs allocate nothing. Slots are independent
// buffers; contents are not kept when a slot grows.
class Scratch {
 public:
  static constexpr int kSlots = 4;
  void* get(std::size_t bytes, int slot = 0) {
    buf_[slot].reserve(bytes ? bytes : 1);
    return buf_[slot].get();
  }
  template <class T>
  T* get_as(std::size_t count, int slot = 0) {
    return static_cast<T*>(get(count * sizeof(T), slot));
  }

  // The look-back kernels' words (scan.cu: a tile counter, then a status word a tile), kept apart
  // from the slots and tagged by launch: each launch takes the next epoch, writes it into every
  // status word it publishes and reads words of any other epoch as empty, and its last tile's
  // block puts the counter back to 0. So no launch clears what the one before left (a memset, a
  // stream boundary of its own, would sit between the look-back and the kernel before it); the
  // words are cleared, on `stream`, only when they grow and when the epoch would pass kMaxEpoch.
  static constexpr unsigned kMaxEpoch = (1u << 24) - 1;  // the status word's top 24 bits
  struct Lookback {
    unsigned long long* words;
    unsigned epoch;  // 1 .. kMaxEpoch
  };
  Lookback lookback(std::size_t words, cudaStream_t stream) {
    if (words > lookback_.size() || epoch_ >= kMaxEpoch) {
      lookback_.reserve(words);
      CUDA_CHECK(cudaMemsetAsync(lookback_.get(), 0, lookback_.size() * sizeof(unsigned long long), stream));
      epoch_ = 0;
    }
    return {lookback_.get(), ++epoch_};
  }
  // The epoch the next look-back launch follows (tests: to run one across the wrap).
  unsigned lookback_epoch() const { return epoch_; }
  void set_lookback_epoch(unsigned e) { epoch_ = e; }

 private:
  DeviceBuffer<unsigned char> buf_[kSlots];
  DeviceBuffer<unsigned long long> lookback_;
  unsigned epoch_ = 0;
};

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
