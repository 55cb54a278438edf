// 1D convolution (a box filter of radius R: out[i] = sum over |j| <= R of in[i+j] / (2R+1), zero
// outside [0, n)), three rungs:
//   conv_global      one thread per output, 2R+1 global loads each (the caches absorb the reuse),
//                    weights in __constant__ memory;
//   conv_shared      a block stages its tile plus a 2R halo in shared memory once, then every
//                    output reads its neighbours from there: one global read per element;
//   conv_shared_regs the radius is a template parameter and the weight a compile-time constant,
//                    each thread makes 8 outputs from float4 loads, so the kernel streams at
//                    nearly copy speed (compute and shared traffic hide under the DRAM time).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda/check.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/primitives/warp.cuh"

namespace circles::lab {

namespace {

constexpr int kConvMaxRadius = 16;
constexpr int kConvMaxTaps = 2 * kConvMaxRadius + 1;
constexpr int kConvBlock = 256;  // threads per block of conv_global and conv_shared

// The filter taps of the first two rungs, indexed j + R for j in [-R, R].
__constant__ float c_conv_weights[kConvMaxRadius + 1][kConvMaxTaps];  // [radius][tap]

int checked_radius(const LaunchArgs& a) {
  if (a.param < 1 || a.param > kConvMaxRadius)
    throw std::invalid_argument("convolve: radius " + std::to_string(a.param) +
                                " out of range (1 .. 16)");
  return a.param;
}


// Enqueues the box weights of every radius into c_conv_weights on `stream`, once per process (the
// harness's checked run), so no timed run pays for a host-to-device copy. The host side is a static
// table, so it outlives the asynchronous copy.
void upload_box_weights(cudaStream_t stream) {
  struct Table {
    float w[kConvMaxRadius + 1][kConvMaxTaps];
    Table() {
      for (int r = 1; r <= kConvMaxRadius; ++r)
        for (int t = 0; t < kConvMaxTaps; ++t) w[r][t] = 1.0f / static_cast<float>(2 * r + 1);
    }
  };
  static const Table table;
  static bool uploaded = false;
  if (uploaded) return;
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_conv_weights, table.w, sizeof table.w, 0, cudaMemcpyHostToDevice, stream));
  uploaded = true;
}

// ---------------------------------------------------------------------------------------------
// Rung 1.

// One thread per output reading its 2R+1 inputs straight from global memory: neighbours re-read each element 2R+1 times, so it leans on L1/L2 hits and issues (2R+1)x the load instructions.
__global__ void __launch_bounds__(kConvBlock) conv_global_kernel(const float* __restrict__ in,
                                                                 float* __restrict__ out,
                                                                 long long n, int radius) {
  const long long i = static_cast<long long>(blockIdx.x) * kConvBlock + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int j = -radius; j <= radius; ++j) {
    const long long k = i + j;
    if (k >= 0 && k < n) acc = fmaf(in[k], c_conv_weights[radius][j + radius], acc);
  }
  out[i] = acc;
}

// ---------------------------------------------------------------------------------------------
// Rung 2.

// Block stages its 256 inputs plus R halo cells per side in shared memory, then convolves from there: one global read per element, the 2R+1-fold reuse served by conflict-free shared loads.
__global__ void __launch_bounds__(kConvBlock) conv_shared_kernel(const float* __restrict__ in,
                                                                 float* __restrict__ out,
                                                                 long long n, int radius) {
  // tile[radius + t] holds in[base + t] for t in [-radius, kConvBlock + radius).
  __shared__ float tile[kConvBlock + 2 * kConvMaxRadius];
  const int tid = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * kConvBlock;
  const long long i = base + tid;
  tile[radius + tid] = i < n ? in[i] : 0.0f;
  if (tid < radius) {  // left halo: in[base - radius + tid] (never >= n, since base < n)
    const long long k = base - radius + tid;
    tile[tid] = k >= 0 ? in[k] : 0.0f;
  } else if (tid < 2 * radius) {  // right halo: in[base + kConvBlock + (tid - radius)]
    const long long k = base + kConvBlock + (tid - radius);
    tile[kConvBlock + tid] = k < n ? in[k] : 0.0f;
  }
  __syncthreads();  // every thread reaches this: nothing returns before it
  if (i >= n) return;
  float acc = 0.0f;
  for (int j = -radius; j <= radius; ++j)
    acc = fmaf(tile[tid + radius + j], c_conv_weights[radius][j + radius], acc);
  out[i] = acc;
}

// ---------------------------------------------------------------------------------------------
// Rung 3.

constexpr int kRegsBlock = 256;                      // threads per block
constexpr int kRegsChunks = 2;                       // float4 chunks (4 outputs each) per thread
constexpr int kRegsTile = kRegsBlock * 4 * kRegsChunks;  // outputs per block (2048)

// Radius as a template: taps unrolled, weight an immediate, each thread makes 8 outputs from float4 global and shared loads, so the halo is a small fraction of the block's tile and DRAM streaming is the limit.
template <int R>
__global__ void __launch_bounds__(kRegsBlock) conv_shared_regs_kernel(const float* __restrict__ in,
                                                                      float* __restrict__ out,
                                                                      long long n, bool aligned) {
  // The halo is padded from R to P (a multiple of 4) cells per side, so the tile's interior and
  // every thread's window start on a 16-byte boundary and can move as float4.
  constexpr int P = (R + 3) / 4 * 4;
  constexpr int kWindow = 4 + 2 * P;  // floats one chunk of 4 outputs reads (>= 4 + 2R)
  constexpr float kWeight = 1.0f / (2 * R + 1);
  // tile[P + t] holds in[base + t] for t in [-P, kRegsTile + P).
  __shared__ __align__(16) float tile[kRegsTile + 2 * P];

  const int tid = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * kRegsTile;
  const bool full = aligned && base + kRegsTile <= n;  // every block but the last, usually

  if (full) {  // two coalesced 16-byte loads per thread
    const float4* src = reinterpret_cast<const float4*>(in + base);
    float4* dst = reinterpret_cast<float4*>(tile + P);
#pragma unroll
    for (int c = 0; c < kRegsChunks; ++c) dst[tid + c * kRegsBlock] = src[tid + c * kRegsBlock];
  } else {  // the ragged last tile (or unaligned buffers): scalar, zero past n
    for (int t = tid; t < kRegsTile; t += kRegsBlock) {
      const long long k = base + t;
      tile[P + t] = k < n ? in[k] : 0.0f;
    }
  }
  if (tid < 2 * P) {  // threads 0..P-1: left halo; P..2P-1: right halo
    const bool left = tid < P;
    const long long k = left ? base - P + tid : base + kRegsTile + (tid - P);
    tile[left ? tid : kRegsTile + tid] = (k >= 0 && k < n) ? in[k] : 0.0f;
  }
  __syncthreads();  // every thread reaches this: nothing returns before it

#pragma unroll
  for (int c = 0; c < kRegsChunks; ++c) {
    // Chunk q: outputs base + 4q .. base + 4q + 3. Its window w[x] = tile[4q + x] = in[base + 4q
    // + x - P]; consecutive lanes read consecutive float4s (conflict-free).
    const int q = tid + c * kRegsBlock;
    const float4* src = reinterpret_cast<const float4*>(tile) + q;
    float w[kWindow];
#pragma unroll
    for (int m = 0; m < kWindow / 4; ++m) {
      const float4 v = src[m];
      w[4 * m] = v.x;
      w[4 * m + 1] = v.y;
      w[4 * m + 2] = v.z;
      w[4 * m + 3] = v.w;
    }
    float r[4];
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      float acc = 0.0f;
#pragma unroll
      for (int j = -R; j <= R; ++j) acc = fmaf(w[P + o + j], kWeight, acc);
      r[o] = acc;
    }
    const long long k = base + 4LL * q;
    if (full) {
      reinterpret_cast<float4*>(out + base)[q] = make_float4(r[0], r[1], r[2], r[3]);
    } else {
#pragma unroll
      for (int o = 0; o < 4; ++o)
        if (k + o < n) out[k + o] = r[o];
    }
  }
}

template <int R>
void launch_conv_shared_regs(const float* in, float* out, long long n, bool aligned,
                             cudaStream_t stream) {
  conv_shared_regs_kernel<R>
      <<<grid_blocks(static_cast<std::size_t>(n), kRegsTile), kRegsBlock, 0, stream>>>(in, out, n,
                                                                                      aligned);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void conv_global(const LaunchArgs& a) {
  const int radius = checked_radius(a);
  const std::size_t n = a.shape.n;
  if (n == 0) return;
  upload_box_weights(a.stream);
  conv_global_kernel<<<grid_blocks(n, kConvBlock), kConvBlock, 0, a.stream>>>(
      static_cast<const float*>(a.in), static_cast<float*>(a.out), static_cast<long long>(n),
      radius);
  CUDA_CHECK_LAUNCH();
}

void conv_shared(const LaunchArgs& a) {
  const int radius = checked_radius(a);
  const std::size_t n = a.shape.n;
  if (n == 0) return;
  upload_box_weights(a.stream);
  conv_shared_kernel<<<grid_blocks(n, kConvBlock), kConvBlock, 0, a.stream>>>(
      static_cast<const float*>(a.in), static_cast<float*>(a.out), static_cast<long long>(n),
      radius);
  CUDA_CHECK_LAUNCH();
}

void conv_shared_regs(const LaunchArgs& a) {
  const int radius = checked_radius(a);
  if (a.shape.n == 0) return;
  const auto* in = static_cast<const float*>(a.in);
  auto* out = static_cast<float*>(a.out);
  const long long n = static_cast<long long>(a.shape.n);
  // float4 paths need 16-byte aligned buffers (cudaMalloc's are); otherwise every tile goes scalar.
  const bool aligned = reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  switch (radius) {
    case 1: launch_conv_shared_regs<1>(in, out, n, aligned, a.stream); break;
    case 2: launch_conv_shared_regs<2>(in, out, n, aligned, a.stream); break;
    case 3: launch_conv_shared_regs<3>(in, out, n, aligned, a.stream); break;
    case 4: launch_conv_shared_regs<4>(in, out, n, aligned, a.stream); break;
    case 5: launch_conv_shared_regs<5>(in, out, n, aligned, a.stream); break;
    case 6: launch_conv_shared_regs<6>(in, out, n, aligned, a.stream); break;
    case 7: launch_conv_shared_regs<7>(in, out, n, aligned, a.stream); break;
    case 8: launch_conv_shared_regs<8>(in, out, n, aligned, a.stream); break;
    case 9: launch_conv_shared_regs<9>(in, out, n, aligned, a.stream); break;
    case 10: launch_conv_shared_regs<10>(in, out, n, aligned, a.stream); break;
    case 11: launch_conv_shared_regs<11>(in, out, n, aligned, a.stream); break;
    case 12: launch_conv_shared_regs<12>(in, out, n, aligned, a.stream); break;
    case 13: launch_conv_shared_regs<13>(in, out, n, aligned, a.stream); break;
    case 14: launch_conv_shared_regs<14>(in, out, n, aligned, a.stream); break;
    case 15: launch_conv_shared_regs<15>(in, out, n, aligned, a.stream); break;
    case 16: launch_conv_shared_regs<16>(in, out, n, aligned, a.stream); break;
    default: break;  // checked_radius already threw
  }
}

}  // namespace circles::lab
