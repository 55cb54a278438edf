// Shared-memory bank conflicts, measured: one kernel, five word widths (1, 2, 4, 8, 16 bytes).
// Every block fills a shared array, then each thread loads kBankIters words at
// (lane * stride + it % 32) and sums them. The knob is the stride between lanes: shared memory has
// 32 banks of 4 bytes, and a warp's load is split into one wavefront per distinct 4-byte word that
// any one bank must deliver. So stride 0 is a broadcast (1 wavefront), odd strides of 4-byte words
// are conflict-free, stride 2 is 2-way, ..., stride 32 is 32-way (32x slower per access).
// Words narrower than 4 bytes let several lanes share one bank word for free; 8- and 16-byte
// words move 256 / 512 bytes per warp load, so they need at least 2 / 4 wavefronts even without
// a conflict, and their conflict degree is counted per half / quarter warp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda/check.h"
#include "kernels/lab/lab_launch.h"

namespace circles::lab {

namespace {

// How a word of each width is built from bank_word() and summed (narrow words zero-extended).
template <class T>
struct BankWord;

template <>
struct BankWord<std::uint8_t> {
  __device__ static std::uint8_t make(unsigned k) {
    return static_cast<std::uint8_t>(bank_word(k, 0));
  }
  __device__ static unsigned sum(std::uint8_t w) { return w; }
};

template <>
struct BankWord<std::uint16_t> {
  __device__ static std::uint16_t make(unsigned k) {
    return static_cast<std::uint16_t>(bank_word(k, 0));
  }
  __device__ static unsigned sum(std::uint16_t w) { return w; }
};

template <>
struct BankWord<std::uint32_t> {
  __device__ static std::uint32_t make(unsigned k) { return bank_word(k, 0); }
  __device__ static unsigned sum(std::uint32_t w) { return w; }
};

template <>
struct BankWord<uint2> {
  __device__ static uint2 make(unsigned k) { return make_uint2(bank_word(k, 0), bank_word(k, 1)); }
  __device__ static unsigned sum(uint2 w) { return w.x + w.y; }
};

template <>
struct BankWord<uint4> {
  __device__ static uint4 make(unsigned k) {
    return make_uint4(bank_word(k, 0), bank_word(k, 1), bank_word(k, 2), bank_word(k, 3));
  }
  __device__ static unsigned sum(uint4 w) { return w.x + w.y + w.z + w.w; }
};

// Each warp reads 32 shared words `stride` apart: bank = (byte address / 4) mod 32, so the conflict degree (wavefronts per load) is the most distinct 4-byte words one bank must serve, e.g. gcd(stride, 32) for 4-byte words.
template <class T>
__global__ void __launch_bounds__(kBankBlock) bank_read_kernel(unsigned* __restrict__ out,
                                                               std::size_t n, int stride) {
  extern __shared__ __align__(16) unsigned char bank_smem[];
  T* const words = reinterpret_cast<T*>(bank_smem);

  // Fill the 32 * stride + 32 words cooperatively; the timed loop below dwarfs this.
  const int count = 32 * stride + 32;
  for (int k = threadIdx.x; k < count; k += blockDim.x)
    words[k] = BankWord<T>::make(static_cast<unsigned>(k));
  __syncthreads();

  // Every thread (also those past n: they keep the warps full) loads kBankIters words, word
  // it % 32 of its row at step `it`. Eight steps at a time: it % 32 is a multiple of 8 there, so
  // the eight loads are p[0..7] with constant offsets (one LDS each, no index arithmetic). The
  // outer loop must stay rolled: unrolled 4x its body would read the same 32 words every time,
  // and the compiler would hoist them and multiply (no loads left to time). One add per 4 bytes
  // loaded keeps the loop bound by shared-memory wavefronts, not by the ALUs.
  constexpr int kUnroll = 8;
  static_assert(kBankIters % kUnroll == 0 && 32 % kUnroll == 0, "steps must tile the row");
  const T* const row = words + (threadIdx.x % 32) * stride;
  unsigned sum = 0;
#pragma unroll 1
  for (int it = 0; it < kBankIters; it += kUnroll) {
    const T* const p = row + it % 32;
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) sum += BankWord<T>::sum(p[j]);
  }

  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < n) out[t] = sum;
}

template <class T>
void launch_bank_read(const LaunchArgs& a) {
  const int stride = a.param;
  const std::size_t smem = (32 * static_cast<std::size_t>(stride) + 32) * sizeof(T);
  if (stride < 0 || smem > 48 * 1024)
    throw std::invalid_argument("bank_read: stride " + std::to_string(stride) +
                                " out of range (0 .. 33)");
  const std::size_t n = a.shape.n;
  if (n == 0) return;
  const std::size_t blocks = (n + kBankBlock - 1) / kBankBlock;
  if (blocks > 0x7fffffffu) throw std::invalid_argument("bank_read: too many threads");
  bank_read_kernel<T><<<static_cast<unsigned>(blocks), kBankBlock, smem, a.stream>>>(
      static_cast<unsigned*>(a.out), n, stride);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void banks_8(const LaunchArgs& a) { launch_bank_read<std::uint8_t>(a); }
void banks_16(const LaunchArgs& a) { launch_bank_read<std::uint16_t>(a); }
void banks_32(const LaunchArgs& a) { launch_bank_read<std::uint32_t>(a); }
void banks_64(const LaunchArgs& a) { launch_bank_read<uint2>(a); }
void banks_128(const LaunchArgs& a) { launch_bank_read<uint4>(a); }

}  // namespace circles::lab
