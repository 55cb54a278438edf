// Transpose ladder (float): in is `height` rows of `width`, out is `width` rows of `height`,
// out[x * height + y] = in[y * width + x]. After NVIDIA's transpose sample. A transpose reads as
// many bytes as it writes, so the target is the device copy: every rung is judged by how close
// its GB/s (read + write) gets to a memcpy.
//   naive-read    one thread per element: reads coalesced, writes scattered (stride height).
//   naive-write   the other way round: writes coalesced, reads scattered.
//   permuted      naive-read with each warp reading its 128-byte segment in a scrambled order.
//   shared16      a 16x16 tile staged in shared memory: reads and writes both coalesced.
//   shared32      a 32x32 tile (1024 threads): full 128-byte rows, 32-way bank conflicts.
//   shared32-pad  the 32x33 tile: the column read hits 32 different banks.
//   best          tall padded tiles (128 rows x 32 columns), 32x16 threads with 8 elements each,
//                 bounds checks only in edge tiles, blocks ordered down the columns of tiles.
// Grids are 2D (a block per tile). gridDim.y is at most 65535, so a grid with more rows of blocks
// is launched in slices; block_y0, the slice's first row of blocks, is added to blockIdx.y.
#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/check.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/primitives/warp.cuh"

namespace circles::lab {

namespace {

constexpr unsigned kMaxGridY = 65535;

// --- 1. naive-read ---------------------------------------------------------------------------

// One thread per element, consecutive lanes read consecutive x (coalesced) and write with stride
// height: every lane's store lands in its own 32-byte sector, so writes waste 7/8 of the bus.
__global__ void transpose_naive_read_kernel(const float* __restrict__ in, float* __restrict__ out,
                                            int width, int height, unsigned block_y0) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>((block_y0 + blockIdx.y) * blockDim.y + threadIdx.y);
  if (x < width && y < height)
    out[static_cast<size_t>(x) * height + y] = in[static_cast<size_t>(y) * width + x];
}

// --- 2. naive-write --------------------------------------------------------------------------

// One thread per output element, consecutive lanes write consecutive addresses (coalesced) and
// read with stride width: scattered reads are cheaper than scattered writes (no partial-sector
// writes, and the unused parts of the fetched sectors stay in L1/L2 for the neighbouring warps).
__global__ void transpose_naive_write_kernel(const float* __restrict__ in, float* __restrict__ out,
                                             int width, int height, unsigned block_y0) {
  const int oy = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);  // column of out: y
  const int ox = static_cast<int>((block_y0 + blockIdx.y) * blockDim.y + threadIdx.y);  // row: x
  if (oy < height && ox < width)
    out[static_cast<size_t>(ox) * height + oy] = in[static_cast<size_t>(oy) * width + ox];
}

// --- 3. permuted -----------------------------------------------------------------------------

// naive-read with lane l reading column base + (l*7+5)%32 of its warp's 128-byte segment: G80
// needed lane k to read word k to coalesce; since GT200 any permutation inside a segment is one
// transaction, so this should time like naive-read (the scattered writes still dominate).
__global__ void transpose_permuted_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          int width, int height, unsigned block_y0) {
  const int lane = static_cast<int>(threadIdx.x);  // blockDim.x == 32
  const int x = static_cast<int>(blockIdx.x) * 32 + ((lane * 7 + 5) & 31);
  const int y = static_cast<int>((block_y0 + blockIdx.y) * blockDim.y + threadIdx.y);
  if (x < width && y < height)
    out[static_cast<size_t>(x) * height + y] = in[static_cast<size_t>(y) * width + x];
}

// --- 4..6. shared-memory tiles, one element per thread -----------------------------------------

// A TILE x TILE block of threads stages a tile: row-wise coalesced read, __syncthreads, then each
// thread writes tile[tx][ty] so the write is coalesced along the output row. PAD = 0 leaves the
// column read tile[tx][ty] with a bank conflict (TILE = 32: all 32 lanes in one bank; TILE = 16:
// a warp is two half-rows, 8-way); PAD = 1 shifts each row by one bank and removes it.
template <int TILE, int PAD>
__device__ __forceinline__ void transpose_tile_one_per_thread(const float* __restrict__ in,
                                                              float* __restrict__ out, int width,
                                                              int height, unsigned block_y0) {
  __shared__ float tile[TILE][TILE + PAD];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int x0 = static_cast<int>(blockIdx.x) * TILE;
  const int y0 = static_cast<int>(block_y0 + blockIdx.y) * TILE;
  {
    const int x = x0 + tx, y = y0 + ty;
    if (x < width && y < height) tile[ty][tx] = in[static_cast<size_t>(y) * width + x];
  }
  __syncthreads();  // every thread of the block reaches it (no early return above)
  {
    const int ox = x0 + ty, oy = y0 + tx;  // out row ox (an x of in), column oy (a y of in)
    if (ox < width && oy < height) out[static_cast<size_t>(ox) * height + oy] = tile[tx][ty];
  }
}

// 16x16 tile in shared memory: both global directions coalesced, but a warp covers two 16-float
// half-rows (64-byte pieces), and reading a tile column is an 8-way bank conflict.
__global__ void transpose_shared16_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          int width, int height, unsigned block_y0) {
  transpose_tile_one_per_thread<16, 0>(in, out, width, height, block_y0);
}

// 32x32 tile, 32x32 = 1024 threads: a warp reads and writes a full 128-byte row, but reading a
// tile column (stride 32 words) puts all 32 lanes in one bank: a 32-way conflict on every store.
__global__ void transpose_shared32_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          int width, int height, unsigned block_y0) {
  transpose_tile_one_per_thread<32, 0>(in, out, width, height, block_y0);
}

// The 32x32 tile padded to 32x33 floats: column words are 33 apart, so the 32 lanes hit 32
// different banks and the shared-memory side stops being the bottleneck.
__global__ void transpose_shared32_padded_kernel(const float* __restrict__ in,
                                                 float* __restrict__ out, int width, int height,
                                                 unsigned block_y0) {
  transpose_tile_one_per_thread<32, 1>(in, out, width, height, block_y0);
}

// --- 7. best ---------------------------------------------------------------------------------

constexpr int kBestTileX = 32;    // tile width: one warp-wide 128-byte run of an input row
constexpr int kBestTileY = 128;   // tile height: a 512-byte run of each output row
constexpr int kBestRows = 16;     // threadIdx.y range: 32 x 16 threads, 8 elements each

// Moves one kBestTileY x kBestTileX tile (rows y0.., columns x0.. of in) with a 32 x kBestRows
// block. EDGE = false: the tile lies wholly inside the matrix and no element is checked;
// EDGE = true: every element is.
template <bool EDGE>
__device__ __forceinline__ void transpose_best_tile(const float* __restrict__ in,
                                                    float* __restrict__ out, int width,
                                                    int height, int x0, int y0,
                                                    float (*tile)[kBestTileX + 1]) {
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  // Read: rows y0+ty+j, column x0+tx. Unrolled, so all 8 loads are in flight before the first
  // shared store has to wait for one.
#pragma unroll
  for (int j = 0; j < kBestTileY; j += kBestRows) {
    const int x = x0 + tx, y = y0 + ty + j;
    if (!EDGE || (x < width && y < height))
      tile[ty + j][tx] = in[static_cast<size_t>(y) * width + x];
  }
  __syncthreads();
  // Write: out rows x0+ty+j (xs of in), columns y0+tx+i (ys of in): each warp writes 4 x 128
  // contiguous bytes of one output row. tile[tx+i][ty+j] is conflict-free: rows are 33 words
  // apart, so lane tx is in bank (tx + const) % 32.
#pragma unroll
  for (int j = 0; j < kBestTileX; j += kBestRows) {
#pragma unroll
    for (int i = 0; i < kBestTileY; i += 32) {
      const int ox = x0 + ty + j, oy = y0 + tx + i;
      if (!EDGE || (ox < width && oy < height))
        out[static_cast<size_t>(ox) * height + oy] = tile[tx + i][ty + j];
    }
  }
}

// Tall padded tiles (128 rows x 32 columns), 32x16 threads with 8 elements each, edge checks only
// in edge tiles, and blockIdx.x walking DOWN the matrix so that blocks running together extend
// the same output rows: writes stream like a copy, and when height is not a multiple of 32 the
// 32-byte sector two tiles share is completed by the neighbour while it is still in L2.
__global__ void __launch_bounds__(32 * kBestRows)
    transpose_best_kernel(const float* __restrict__ in, float* __restrict__ out, int width,
                          int height, unsigned block_y0) {
  __shared__ float tile[kBestTileY][kBestTileX + 1];
  const int y0 = static_cast<int>(blockIdx.x) * kBestTileY;          // x of the grid: tiles down
  const int x0 = static_cast<int>(block_y0 + blockIdx.y) * kBestTileX;   // y of the grid: across
  // The branch is uniform across the block, so the __syncthreads inside is reached by all.
  if (x0 + kBestTileX <= width && y0 + kBestTileY <= height)
    transpose_best_tile<false>(in, out, width, height, x0, y0, tile);
  else
    transpose_best_tile<true>(in, out, width, height, x0, y0, tile);
}

// --- launch helpers --------------------------------------------------------------------------

struct Matrix {
  const float* in;
  float* out;
  int width, height;
};

Matrix matrix_of(const LaunchArgs& a) {
  if (a.type != Elem::f32) throw std::invalid_argument("transpose: float only");
  if (a.shape.width < 0 || a.shape.height < 0) throw std::invalid_argument("transpose: bad shape");
  return {static_cast<const float*>(a.in), static_cast<float*>(a.out), a.shape.width,
          a.shape.height};
}


// Launches kernel over grid_x x grid_y blocks of `block`, slicing grid_y into pieces of at most
// 65535 rows of blocks (each launch is told its first row, block_y0).
using TransposeKernel = void (*)(const float*, float*, int, int, unsigned);
void launch_2d(TransposeKernel kernel, unsigned grid_x, unsigned grid_y, dim3 block,
               const Matrix& m, cudaStream_t stream) {
  if (grid_x == 0 || grid_y == 0) return;  // empty matrix: nothing to move
  for (unsigned block_y0 = 0; block_y0 < grid_y; block_y0 += kMaxGridY) {
    const dim3 grid(grid_x, std::min(kMaxGridY, grid_y - block_y0));
    kernel<<<grid, block, 0, stream>>>(m.in, m.out, m.width, m.height, block_y0);
    CUDA_CHECK_LAUNCH();
  }
}

// A 2D grid with one block per TILE_X x TILE_Y patch of in (the tile kernels and naive-read).
void launch_over_input(TransposeKernel kernel, int tile_x, int tile_y, dim3 block,
                       const LaunchArgs& a) {
  const Matrix m = matrix_of(a);
  launch_2d(kernel, grid_blocks(m.width, tile_x), grid_blocks(m.height, tile_y), block, m, a.stream);
}

}  // namespace

void transpose_naive_read(const LaunchArgs& a) {
  launch_over_input(transpose_naive_read_kernel, 32, 8, dim3(32, 8), a);
}

void transpose_naive_write(const LaunchArgs& a) {
  // The grid covers out: x along out's rows (height of them per row), y over out's width rows.
  const Matrix m = matrix_of(a);
  launch_2d(transpose_naive_write_kernel, grid_blocks(m.height, 32), grid_blocks(m.width, 8),
            dim3(32, 8), m, a.stream);
}

void transpose_permuted(const LaunchArgs& a) {
  launch_over_input(transpose_permuted_kernel, 32, 8, dim3(32, 8), a);
}

void transpose_shared16(const LaunchArgs& a) {
  launch_over_input(transpose_shared16_kernel, 16, 16, dim3(16, 16), a);
}

void transpose_shared32(const LaunchArgs& a) {
  launch_over_input(transpose_shared32_kernel, 32, 32, dim3(32, 32), a);
}

void transpose_shared32_padded(const LaunchArgs& a) {
  launch_over_input(transpose_shared32_padded_kernel, 32, 32, dim3(32, 32), a);
}

void transpose_best(const LaunchArgs& a) {
  // Grid x runs down the tiles of a column (blocks launched together are vertical neighbours),
  // grid y across; the tile columns are the dimension sliced at 65535.
  const Matrix m = matrix_of(a);
  launch_2d(transpose_best_kernel, grid_blocks(m.height, kBestTileY),
            grid_blocks(m.width, kBestTileX), dim3(32, kBestRows), m, a.stream);
}

}  // namespace circles::lab
