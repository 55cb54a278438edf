// The reduction ladder (task reduce_sum: out[0] = sum of in[0..n), int or float), after Mark
// Harris's "Optimizing Parallel Reduction in CUDA" (reduce0..reduce7) with naive rungs before it
// and a shuffle rung and CUB after it. Each rung changes one idea:
//   1 atomic           every thread atomicAdd's its element into out (all hit one address)
//   2 serial_chunk     one thread per contiguous chunk, summed in a loop (uncoalesced loads)
//   3 local_array      coalesced loads into a thread-local array reduced by a dynamic index
//                      (the array lives in local memory)
//   4 global_divergent tree in global memory, interleaved addressing with tid % (2s) (divergent)
//   5 global_strided   same tree, index = 2*s*tid (no modulo, whole warps idle instead)
//   6 shared_sequential the tree in shared memory, sequential addressing (conflict-free)
//   7 first_add        each thread adds two elements while loading (half the blocks)
//   8 warp_unrolled    the last warp unrolled (with __syncwarp: correct on Volta and later)
//   9 complete_unroll  block size a template parameter: every level unrolled at compile time
//  10 multi_per_thread grid-stride loop over many elements per thread, grid sized to the SMs
//  11 dynamic_shared   as 10 with the shared array extern, sized at launch
//  12 shuffle          vector loads + warp shuffles, block size from the knob (a.param)
//  13 cub              cub::DeviceReduce::Sum, the reference line
// How block partials become out[0]: rungs 1-3 atomicAdd into out after a memset to 0 (float
// results then depend on the atomic order); rungs 4-12 write one partial per block to scratch
// slot 1 and a single-block pass (reduce_partials_kernel) sums them in a fixed order, so their
// float results are reproducible. Rungs 4-5 copy the input to scratch slot 0 (the tree
// overwrites its buffer and a.in is const).
#include <cuda_runtime.h>

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <stdexcept>
#include <string>

#include "kernels/cuda/check.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/primitives/warp.cuh"

namespace circles::lab {
namespace {

constexpr unsigned kBlock = 256;           // threads per block of rungs 1-11
constexpr int kLocalCount = 16;            // rung 3: elements per thread-local array
constexpr unsigned kPartialsBlock = 1024;  // threads of the single-block follow-up pass

// ---------------------------------------------------------------------------------------------
// Host helpers.

// Blocks for a grid-stride kernel: `per_sm` blocks on every SM, but never more than the work
// needs (`items` elements, `per_block` of them per block per pass).
unsigned stride_grid(std::size_t items, std::size_t per_block, int per_sm) {
  const std::size_t want = (items + per_block - 1) / per_block;
  const std::size_t full = static_cast<std::size_t>(sm_count()) * static_cast<std::size_t>(per_sm);
  return static_cast<unsigned>(want < full ? (want ? want : 1) : full);
}

// ---------------------------------------------------------------------------------------------
// Device helpers.

// Sum of v over the 32 lanes of a warp, valid in lane 0 (every lane must call it).
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(kFullMask, v, off);
  return v;
}

// The last six levels of a shared tree, run by warp 0 alone (tid < 32) once sdata[0..64) holds
// the block's values. Each lane keeps its running sum in a register; __syncwarp() separates every
// read of a neighbour's slot from the write that replaces it. Returns the block sum in lane 0.
template <class T>
__device__ __forceinline__ T warp_tail(T* sdata, unsigned tid) {
  T v = sdata[tid];
  v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
  v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
  v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
  v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
  v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
  v += sdata[tid + 1];
  return v;
}

// The shared tree with every level unrolled at compile time (kThreads a power of two >= 64).
// sdata[0..kThreads) must be filled and a __syncthreads() passed; returns the sum in thread 0.
template <unsigned kThreads, class T>
__device__ __forceinline__ T block_tree_unrolled(T* sdata, unsigned tid) {
  static_assert(kThreads >= 64 && kThreads <= 1024 && (kThreads & (kThreads - 1)) == 0,
                "block size must be a power of two in [64, 1024]");
  if (kThreads >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
  if (kThreads >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
  if (kThreads >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
  if (kThreads >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
  T v = T(0);
  if (tid < 32) v = warp_tail(sdata, tid);
  return v;
}

template <class T> struct Vec4;
template <> struct Vec4<int> { using type = int4; };
template <> struct Vec4<float> { using type = float4; };

template <class V>
__device__ __forceinline__ auto hsum(const V& v) -> decltype(v.x) { return (v.x + v.y) + (v.z + v.w); }

// ---------------------------------------------------------------------------------------------
// Kernels.

// Follow-up pass, one block: sums the block partials in a fixed order and writes out[0] (reproducible floats).
template <class T>
__global__ void reduce_partials_kernel(const T* __restrict__ partials, std::size_t count,
                                       T* __restrict__ out) {
  __shared__ T warp_sums[32];
  const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  T sum = T(0);
#pragma unroll 4
  for (std::size_t i = tid; i < count; i += blockDim.x) sum += partials[i];
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    T v = lane < blockDim.x / 32 ? warp_sums[lane] : T(0);
    v = warp_sum(v);
    if (lane == 0) out[0] = v;
  }
}

// One atomicAdd per element, all on out[0]: serialized at L2 (int: the compiler merges a warp's 32 adds into one; float cannot).
template <class T>
__global__ void reduce_atomic_kernel(const T* __restrict__ in, std::size_t n, T* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}

// One thread per contiguous chunk summed in a loop: lanes read `chunk` elements apart, so a warp load hits 32 lines (uncoalesced).
template <class T>
__global__ void reduce_serial_chunk_kernel(const T* __restrict__ in, std::size_t n,
                                           std::size_t chunk, T* out) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t begin = t * chunk;
  if (begin >= n) return;
  const std::size_t end = begin + chunk < n ? begin + chunk : n;
  T sum = T(0);
  for (std::size_t i = begin; i < end; ++i) sum += in[i];
  atomicAdd(out, sum);
}

// Coalesced loads into T v[16] halved with a runtime bound: indexed dynamically, the array is in LOCAL memory (slow round trips).
template <class T>
__global__ void reduce_local_array_kernel(const T* __restrict__ in, std::size_t n, int count,
                                          T* out) {
  T v[kLocalCount];
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T sum = T(0);
  for (std::size_t base = 0; base < n; base += static_cast<std::size_t>(count) * threads) {
    // Element k of this thread's array: lane-consecutive, so each warp load is one transaction.
    for (int k = 0; k < count; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * threads + t;
      v[k] = i < n ? in[i] : T(0);
    }
    for (int s = count / 2; s > 0; s >>= 1)
      for (int j = 0; j < s; ++j) v[j] += v[j + s];
    sum += v[0];
  }
  if (t < n) atomicAdd(out, sum);
}

// Tree in GLOBAL memory, interleaved addressing: tid % (2s) makes warps diverge at every level; each level is a global round trip.
template <class T>
__global__ void reduce_global_divergent_kernel(const T* __restrict__ in, std::size_t n,
                                               T* scratch, T* partials) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  T* g = scratch + static_cast<std::size_t>(blockIdx.x) * blockDim.x;  // this block's segment
  g[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) g[tid] += g[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = g[0];
}

// Global tree with index = 2*s*tid: no modulo, active threads packed into the first warps (no early divergence); still global traffic.
template <class T>
__global__ void reduce_global_strided_kernel(const T* __restrict__ in, std::size_t n, T* scratch,
                                             T* partials) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  T* g = scratch + static_cast<std::size_t>(blockIdx.x) * blockDim.x;
  g[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) g[index] += g[index + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = g[0];
}

// Tree in SHARED memory, sequential addressing (tid < s adds sdata[tid + s]): conflict-free, no divergence until s < 32.
template <class T>
__global__ void reduce_shared_sequential_kernel(const T* __restrict__ in, std::size_t n,
                                                T* partials) {
  __shared__ T sdata[kBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// As 6, but each thread adds in[i] and in[i + blockDim] while loading: half the blocks, no thread idle at the first level.
template <class T>
__global__ void reduce_first_add_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  __shared__ T sdata[kBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
  T v = i < n ? in[i] : T(0);
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// As 7, last warp unrolled with __syncwarp(): volatile alone is unsafe since Volta (lanes need not run in lockstep, so a lane may read sdata[tid + 16] before it is written).
template <class T>
__global__ void reduce_warp_unrolled_kernel(const T* __restrict__ in, std::size_t n,
                                            T* partials) {
  __shared__ T sdata[kBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
  T v = i < n ? in[i] : T(0);
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    v = warp_tail(sdata, tid);
    if (tid == 0) partials[blockIdx.x] = v;
  }
}

// As 8 with the block size a template parameter: every tree level unrolled at compile time (no loop counter, compare or branch on s).
template <unsigned kThreads, class T>
__global__ void reduce_complete_unroll_kernel(const T* __restrict__ in, std::size_t n,
                                              T* partials) {
  __shared__ T sdata[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * kThreads) + tid;
  T v = i < n ? in[i] : T(0);
  if (i + kThreads < n) v += in[i + kThreads];
  sdata[tid] = v;
  __syncthreads();
  v = block_tree_unrolled<kThreads>(sdata, tid);
  if (tid == 0) partials[blockIdx.x] = v;
}

// Each thread sums many elements in a grid-stride loop (grid sized to the SMs) before one tree: its cost is paid once per hundreds of elements.
template <unsigned kThreads, class T>
__global__ void reduce_multi_per_thread_kernel(const T* __restrict__ in, std::size_t n,
                                               T* partials) {
  __shared__ T sdata[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t grid_size = static_cast<std::size_t>(2 * kThreads) * gridDim.x;
  T v = T(0);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * kThreads) + tid; i < n;
       i += grid_size) {
    v += in[i];
    if (i + kThreads < n) v += in[i + kThreads];
  }
  sdata[tid] = v;
  __syncthreads();
  v = block_tree_unrolled<kThreads>(sdata, tid);
  if (tid == 0) partials[blockIdx.x] = v;
}

// Dynamic shared memory is one untyped array per kernel; each instantiation views it as its T.
extern __shared__ __align__(16) unsigned char reduce_dynamic_smem[];

// As 10 with the shared array extern __shared__, sized by the launch's third parameter: same speed, size chosen at run time.
template <unsigned kThreads, class T>
__global__ void reduce_dynamic_shared_kernel(const T* __restrict__ in, std::size_t n,
                                             T* partials) {
  T* sdata = reinterpret_cast<T*>(reduce_dynamic_smem);
  const unsigned tid = threadIdx.x;
  const std::size_t grid_size = static_cast<std::size_t>(2 * kThreads) * gridDim.x;
  T v = T(0);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * kThreads) + tid; i < n;
       i += grid_size) {
    v += in[i];
    if (i + kThreads < n) v += in[i + kThreads];
  }
  sdata[tid] = v;
  __syncthreads();
  v = block_tree_unrolled<kThreads>(sdata, tid);
  if (tid == 0) partials[blockIdx.x] = v;
}

// 16-byte vector loads, 4 in flight per thread per step, then __shfl_down_sync per warp and one shared slot per warp: memory-bound.
template <class T>
__global__ void reduce_shuffle_kernel(const T* __restrict__ in, std::size_t head,
                                      const typename Vec4<T>::type* __restrict__ body,
                                      std::size_t n_vec, const T* __restrict__ tail,
                                      std::size_t n_tail, T* __restrict__ partials) {
  __shared__ T warp_sums[32];
  const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  T sum = T(0);
  // Scalars before the first 16-byte boundary and after the last whole vector (3 at most each).
  if (t < head) sum += in[t];
  if (t < n_tail) sum += tail[t];
  std::size_t i = t;
  for (; i + 3 * stride < n_vec; i += 4 * stride) {
    const auto a = body[i], b = body[i + stride], c = body[i + 2 * stride],
               d = body[i + 3 * stride];
    sum += (hsum(a) + hsum(b)) + (hsum(c) + hsum(d));
  }
  for (; i < n_vec; i += stride) sum += hsum(body[i]);
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    T v = lane < blockDim.x / 32 ? warp_sums[lane] : T(0);
    v = warp_sum(v);
    if (lane == 0) partials[blockIdx.x] = v;
  }
}

// ---------------------------------------------------------------------------------------------
// Launchers (templated on the element type; the public functions dispatch on a.type).

template <class T>
void finish_partials(const LaunchArgs& a, const T* partials, std::size_t count) {
  reduce_partials_kernel<T><<<1, kPartialsBlock, 0, a.stream>>>(partials, count,
                                                                static_cast<T*>(a.out));
  CUDA_CHECK_LAUNCH();
}

template <class T>
void run_atomic(const LaunchArgs& a) {
  const std::size_t n = a.shape.n;
  CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), a.stream));
  if (n == 0) return;
  reduce_atomic_kernel<T><<<grid_blocks(n, kBlock), kBlock, 0, a.stream>>>(
      static_cast<const T*>(a.in), n, static_cast<T*>(a.out));
  CUDA_CHECK_LAUNCH();
}

template <class T>
void run_serial_chunk(const LaunchArgs& a) {
  const std::size_t n = a.shape.n;
  CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), a.stream));
  if (n == 0) return;
  // Eight blocks of 256 per SM (a full H100 SM); the chunk spreads n over all their threads.
  const unsigned blocks = stride_grid(n, kBlock, 8);
  const std::size_t threads = static_cast<std::size_t>(blocks) * kBlock;
  const std::size_t chunk = (n + threads - 1) / threads;
  reduce_serial_chunk_kernel<T><<<blocks, kBlock, 0, a.stream>>>(static_cast<const T*>(a.in), n,
                                                                 chunk, static_cast<T*>(a.out));
  CUDA_CHECK_LAUNCH();
}

template <class T>
void run_local_array(const LaunchArgs& a) {
  const std::size_t n = a.shape.n;
  CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), a.stream));
  if (n == 0) return;
  // Same threads as rung 2; each pass of the loop covers kLocalCount elements per thread.
  const unsigned blocks = stride_grid(n, static_cast<std::size_t>(kBlock) * kLocalCount, 8);
  reduce_local_array_kernel<T><<<blocks, kBlock, 0, a.stream>>>(
      static_cast<const T*>(a.in), n, kLocalCount, static_cast<T*>(a.out));
  CUDA_CHECK_LAUNCH();
}

// Rungs 4-5: one block per 256 elements, working in a copy padded to whole blocks.
template <class T, class Kernel>
void run_global_tree(const LaunchArgs& a, Kernel kernel) {
  const std::size_t n = a.shape.n;
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), a.stream));
    return;
  }
  const unsigned blocks = grid_blocks(n, kBlock);
  T* copy = a.scratch->get_as<T>(static_cast<std::size_t>(blocks) * kBlock, 0);
  T* partials = a.scratch->get_as<T>(blocks, 1);
  kernel<<<blocks, kBlock, 0, a.stream>>>(static_cast<const T*>(a.in), n, copy, partials);
  CUDA_CHECK_LAUNCH();
  finish_partials<T>(a, partials, blocks);
}

// Rungs 6-11: `blocks` blocks of kBlock threads, one partial each, then the follow-up pass.
template <class T, class Kernel>
void run_shared_tree(const LaunchArgs& a, Kernel kernel, unsigned blocks,
                     std::size_t dynamic_smem = 0) {
  T* partials = a.scratch->get_as<T>(blocks, 1);
  kernel<<<blocks, kBlock, dynamic_smem, a.stream>>>(static_cast<const T*>(a.in), a.shape.n,
                                                     partials);
  CUDA_CHECK_LAUNCH();
  finish_partials<T>(a, partials, blocks);
}

// Resident blocks per SM of reduce_shuffle_kernel<T> at `threads` per block, queried once per
// (type, block size). Benign race: concurrent first calls compute the same value.
template <class T>
int shuffle_blocks_per_sm(unsigned threads) {
  static std::atomic<int> cache[11];  // index log2(threads), 32..1024
  int log2 = 0;
  while ((1u << log2) < threads) ++log2;
  int v = cache[log2].load(std::memory_order_relaxed);
  if (v == 0) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, reduce_shuffle_kernel<T>,
                                                             static_cast<int>(threads), 0));
    if (v < 1) v = 1;
    cache[log2].store(v, std::memory_order_relaxed);
  }
  return v;
}

template <class T>
void run_shuffle(const LaunchArgs& a) {
  const std::size_t n = a.shape.n;
  const unsigned threads = a.param == 0 ? 256u : static_cast<unsigned>(a.param);
  if (a.param < 0 || threads < 32 || threads > 1024 || (threads & (threads - 1)) != 0)
    throw std::invalid_argument("reduce_shuffle: block size must be a power of two in [32, 1024], got " +
                                std::to_string(a.param));
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), a.stream));
    return;
  }
  // Split the input into a scalar head up to the first 16-byte boundary (empty for cudaMalloc'd
  // buffers), a body of whole 4-element vectors and a scalar tail of n_tail < 4 elements.
  const T* in = static_cast<const T*>(a.in);
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  std::size_t head = misalign ? (16 - misalign) / sizeof(T) : 0;
  if (head > n) head = n;
  const std::size_t n_vec = (n - head) / 4;
  const std::size_t n_tail = n - head - 4 * n_vec;
  const auto* body = reinterpret_cast<const typename Vec4<T>::type*>(in + head);
  const T* tail = in + head + 4 * n_vec;
  // Fill every SM once; each thread takes four vectors per step, so small inputs get fewer blocks.
  const unsigned blocks = stride_grid(n_vec ? n_vec : 1, static_cast<std::size_t>(threads) * 4,
                                      shuffle_blocks_per_sm<T>(threads));
  T* partials = a.scratch->get_as<T>(blocks, 1);
  reduce_shuffle_kernel<T><<<blocks, threads, 0, a.stream>>>(in, head, body, n_vec, tail, n_tail,
                                                             partials);
  CUDA_CHECK_LAUNCH();
  finish_partials<T>(a, partials, blocks);
}

template <class T>
void run_cub(const LaunchArgs& a) {
  if (a.shape.n > static_cast<std::size_t>(INT_MAX))
    throw std::length_error("reduce_cub: n exceeds INT_MAX");
  const int n = static_cast<int>(a.shape.n);
  const T* in = static_cast<const T*>(a.in);
  T* out = static_cast<T*>(a.out);
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n, a.stream));
  void* temp = a.scratch->get(bytes, 0);
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in, out, n, a.stream));
}

template <class T>
void run_global_divergent(const LaunchArgs& a) {
  run_global_tree<T>(a, reduce_global_divergent_kernel<T>);
}
template <class T>
void run_global_strided(const LaunchArgs& a) {
  run_global_tree<T>(a, reduce_global_strided_kernel<T>);
}
template <class T>
void run_shared_sequential(const LaunchArgs& a) {
  run_shared_tree<T>(a, reduce_shared_sequential_kernel<T>, grid_blocks(a.shape.n, kBlock));
}
template <class T>
void run_first_add(const LaunchArgs& a) {
  run_shared_tree<T>(a, reduce_first_add_kernel<T>, grid_blocks(a.shape.n, 2 * kBlock));
}
template <class T>
void run_warp_unrolled(const LaunchArgs& a) {
  run_shared_tree<T>(a, reduce_warp_unrolled_kernel<T>, grid_blocks(a.shape.n, 2 * kBlock));
}
template <class T>
void run_complete_unroll(const LaunchArgs& a) {
  run_shared_tree<T>(a, reduce_complete_unroll_kernel<kBlock, T>, grid_blocks(a.shape.n, 2 * kBlock));
}
template <class T>
void run_multi_per_thread(const LaunchArgs& a) {
  // Eight resident blocks of 256 per SM, each pass of the loop covering 2 * 256 elements.
  run_shared_tree<T>(a, reduce_multi_per_thread_kernel<kBlock, T>,
                     stride_grid(a.shape.n, 2 * kBlock, 8));
}
template <class T>
void run_dynamic_shared(const LaunchArgs& a) {
  run_shared_tree<T>(a, reduce_dynamic_shared_kernel<kBlock, T>,
                     stride_grid(a.shape.n, 2 * kBlock, 8), kBlock * sizeof(T));
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Public launchers: dispatch on the element type.

#define CIRCLES_REDUCE_DISPATCH(run)       \
  do {                                     \
    if (a.type == Elem::f32)               \
      run<float>(a);                       \
    else                                   \
      run<int>(a);                         \
  } while (0)

void reduce_atomic(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_atomic); }
void reduce_serial_chunk(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_serial_chunk); }
void reduce_local_array(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_local_array); }
void reduce_global_divergent(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_global_divergent); }
void reduce_global_strided(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_global_strided); }
void reduce_shared_sequential(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_shared_sequential); }
void reduce_first_add(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_first_add); }
void reduce_warp_unrolled(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_warp_unrolled); }
void reduce_complete_unroll(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_complete_unroll); }
void reduce_multi_per_thread(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_multi_per_thread); }
void reduce_dynamic_shared(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_dynamic_shared); }
void reduce_shuffle(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_shuffle); }
void reduce_cub(const LaunchArgs& a) { CIRCLES_REDUCE_DISPATCH(run_cub); }

#undef CIRCLES_REDUCE_DISPATCH

}  // namespace circles::lab
