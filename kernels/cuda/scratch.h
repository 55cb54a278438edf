// Device scratch that grows on demand and never shrinks, for launchers that need temporaries (the
// device-wide scans, the lab's variants, CUB's temp storage). The lab runs every variant once (the
// checked run) before timing it and the renderers keep theirs across frames, so timed runs
// allocate nothing. Slots are independent buffers; contents are not kept when a slot grows.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/check.h"
#include "kernels/cuda/raii.h"

namespace circles {

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

  // The look-back kernels' words (kernels/primitives/lookback.cuh: a tile counter, then a status
  // word a tile), kept apart from the slots and tagged by launch: each launch takes the next epoch,
  // writes it into every status word it publishes and reads words of any other epoch as empty, and
  // its last tile's block puts the counter back to 0. So no launch clears what the one before left
  // (a memset, a stream boundary of its own, would sit between the look-back and the kernel before
  // it); the words are cleared, on `stream`, only when they grow and when the epoch would pass
  // kMaxEpoch.
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

}  // namespace circles
