// The eight-pixel walk (shade_rows8_kernel), for binned exact frames of small flat circles.
#pragma once
#include <cuda_fp16.h>

#include "kernels/renderers/base.cuh"
#include "render/raster.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/renderers/binned/shade_common.cuh"
#include "kernels/renderers/binned/shade_walk.cuh"  // edges_last_tile, stage_tile_centres

namespace circles::binned {

constexpr int kRows8Threads = 128;
constexpr int kRows8Stage = kRows8Threads;  // circles a batch
// Blends a 32x32 tile's circles, eight pixels a lane: fast because a batch is culled once a block
// as it is staged, and a visit's loads and test serve eight pixels.
// For binned exact frames of flat circles that compose no runs. A block per tile, 128 threads; the
// tile's 4 x 8 boxes of 8x4 pixels belong to row groups of four lanes (a lane: two adjacent
// columns, four rows), eight row groups a warp. Staging culls each circle to the boxes it may
// touch, one mask of circles per box; each row group then walks its box's mask. A pixel's test is
// one compare of dx*dx with its row's limit (cpu-ref's test, bit for bit), its blend one FMA a
// channel. At 64 registers (eight blocks an SM) it spills nothing. kHalf: the colour in half
// precision (HalfPixel: two HFMA2 a blend) where --half-colour asks for it and the scene allows it.
template <bool kCount, bool kHalf>
__global__ void __launch_bounds__(kRows8Threads, 8) shade_rows8_kernel(DeviceCircles c, FrameParams f, ShadeArgs a) {
  constexpr int TILE = kLargeTile;
  constexpr int kStage = kRows8Stage;
  // Slot s: x, a*r, a*g, a*b at [s]; y, radius^2, 1 - a, a at [kStage + s] (a visit loads the
  // first and the second's last two; the limits' staging reads y and radius^2). kHalf: x, half2
  // (a*r, a*g), half2 (a*b, a), half2 (1 - a, 1 - a) at [s]; y, radius^2, half2 (1 - a, 1) at
  // [kStage + s] (a visit loads the first and the second's third).
  __shared__ float4 s_stage[2 * kStage];
  __shared__ unsigned s_rows[kStage];                    // group g's mask of box k at [g * 32 + k]
  __shared__ __align__(16) float s_lim[kStage * TILE];   // [slot * 32 + row]
  __shared__ float s_px[TILE];
  __shared__ __align__(16) float s_py[TILE];
  __shared__ float4 s_box_cols[2];  // each column of boxes' first ([0]) and last ([1]) pixel centre
  __shared__ float4 s_bg[TILE];     // the rows' background
  const long long start = clock64();
  const TileXY txy = edges_last_tile(static_cast<int>(gridDim.x), static_cast<int>(gridDim.y));
  const int tile = txy.y * static_cast<int>(gridDim.x) + txy.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const View& v = f.view;
  static_assert(kRows8Threads >= 3 * TILE + 8, "a thread for each centre, background row and box column bound");
  {
    const int t = static_cast<int>(threadIdx.x);
    if (!stage_tile_centres<TILE>(t, txy, f, s_px, s_py, s_bg) && t < 3 * TILE + 8) {
      const int k = t - 3 * TILE, last = min(TILE, v.width - txy.x * TILE) - 1;
      reinterpret_cast<float*>(s_box_cols)[k] = v.pixel_x(txy.x * TILE + min(8 * (k % 4) + (k / 4) * 7, last));
    }
  }
  __syncthreads();
  // The lane's row group (lane >> 2): box column bc and row br of the tile's 4 x 8 boxes; its two
  // columns lx, lx + 1 and four rows ly .. ly + 3.
  const int rg = lane >> 2;
  const int bc = 2 * (warp & 1) + (rg & 1), br = 4 * (warp >> 1) + (rg >> 1);
  const int lx = 8 * bc + 2 * (lane & 3), ly = 4 * br;
  const float px0 = s_px[lx], px1 = s_px[lx + 1];
  using Pixel = std::conditional_t<kHalf, HalfPixel, Float4>;
  Pixel c0[4], c1[4];
  unsigned long long tests = 0, blends = 0;  // kCount
  unsigned in_bits = 0u;                     // kCount: bit 2r + k, the lane's pixel (column k, row r) in the image
  {
    const int i = txy.x * TILE + lx;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      pixel_set(c0[r], s_bg[ly + r]);
      c1[r] = c0[r];
      const int j = txy.y * TILE + ly + r;
      if (kCount && j < v.height) in_bits |= (i < v.width ? 1u : 0u) << (2 * r) | (i + 1 < v.width ? 2u : 0u) << (2 * r);
      if (!a.first && j < v.height) {  // what the previous chunk left
        const std::size_t at = static_cast<std::size_t>(j) * v.width + i;
        const float4 q0 = i < v.width ? f.image[at] : make_float4(0.f, 0.f, 0.f, 0.f);
        const float4 q1 = i + 1 < v.width ? f.image[at + 1] : make_float4(0.f, 0.f, 0.f, 0.f);
        pixel_set(c0[r], q0);
        pixel_set(c1[r], q1);
      }
    }
  }
  wait_for_prior_grid();  // (launched dependent: the ranges, ids and circles after it)
  const uint2 range = a.ranges[tile];
  const unsigned first = range.x, end = range.y, n = end > first ? end - first : 0u;
  const unsigned batches = (n + kStage - 1) / kStage;
  // The next batch's id and position are loaded before this batch is walked, so that staging
  // waits on the colour's load only, not on the chain of id then position.
  unsigned ahead_id = 0u;
  float4 ahead_q = make_float4(0.f, 0.f, 0.f, 0.f);
  if (threadIdx.x < n) {
    ahead_id = a.ids[first + threadIdx.x];
    ahead_q = c.pos_rad[ahead_id];
  }
  for (unsigned b = 0; b < batches; ++b) {
    const unsigned base = first + b * kStage;
    const unsigned count = min(end - base, static_cast<unsigned>(kStage));
    const unsigned slot = threadIdx.x;
    float4 q = make_float4(0.f, 0.f, 0.f, 0.f);
    if (slot < count) {
      q = ahead_q;
      const float4 col = c.color[ahead_id];
      const float keep = 1.f - col.w;
      if constexpr (kHalf) {
        s_stage[slot] = make_float4(q.x, __uint_as_float(half2_bits(col.w * col.x, col.w * col.y)),
                                    __uint_as_float(half2_bits(col.w * col.z, col.w)),
                                    __uint_as_float(half2_bits(keep, keep)));
        s_stage[kStage + slot] = make_float4(q.y, q.w * q.w, __uint_as_float(half2_bits(keep, 1.f)), 0.f);
      } else {
        s_stage[slot] = make_float4(q.x, col.w * col.x, col.w * col.y, col.w * col.z);
        s_stage[kStage + slot] = make_float4(q.y, q.w * q.w, keep, col.w);
      }
    }
    if (b + 1 < batches && base + kStage + threadIdx.x < end) {
      ahead_id = a.ids[base + kStage + threadIdx.x];
      ahead_q = c.pos_rad[ahead_id];
    }
    // The boxes its circle may touch (32 bits, row_box_bits). The bounds are recomputed each
    // batch: held across the walk they would take registers it needs.
    unsigned bits = 0u;
    if (slot < count) {
      const unsigned cols_in = 0xffffffffu >> (32 - 8 * ((min(TILE, v.width - txy.x * TILE) + 7) / 8));
      const float boxes = static_cast<float>((min(TILE, v.height - txy.y * TILE) + 3) / 4);
      bits = row_box_bits(q.x, (q.y - s_py[0]) * v.scale, cull_radius_sq(q.w), s_box_cols[0], s_box_cols[1],
                          0.25f * v.scale, boxes) & cols_in;
    }
    // The warp's 32 circles' bits become its 32 boxes' masks; lane k writes box k's, bit-reversed
    // so that the next circle of the walk is the highest bit.
    s_rows[slot] = __brev(transpose_bits(bits, lane));
    __syncwarp();  // the group's geometry, staged by its lanes
    // Each circle's coverage limit (coverage_limit: radius^2 - dy^2) at the tile's 32 rows: a
    // lane takes four rows of one of four circles a step (an 8-byte load, one 16-byte store).
    {
      const int quad = lane & 7;
      const float4 py4 = reinterpret_cast<const float4*>(s_py)[quad];
      const float4* geo = s_stage + kStage + warp * 32;
      float* lim = s_lim + (warp * 32) * TILE + 4 * quad;
#pragma unroll
      for (int k0 = 0; k0 < 32; k0 += 4) {
        const int k = k0 + (lane >> 3);
        const float2 yr = *reinterpret_cast<const float2*>(geo + k);
        *reinterpret_cast<float4*>(lim + k * TILE) =
            make_float4(coverage_limit(py4.x - yr.x, yr.y), coverage_limit(py4.y - yr.x, yr.y),
                        coverage_limit(py4.z - yr.x, yr.y), coverage_limit(py4.w - yr.x, yr.y));
      }
    }
    __syncthreads();  // the masks, stage and limits of every warp
    // The walk: a visit loads the circle's x and colour (16 bytes), keep factor and alpha (8) and
    // its limits at the row group's four rows (16), shared by the lane's eight pixels. The three
    // addresses are 32-bit shared addresses carried from group to group, so they stay in
    // registers; they start at slot 31, as bit b of a reversed mask is slot 31 - b.
    {
      const int groups = static_cast<int>((count + 31) / 32);
      unsigned rows_at = shared_address(s_rows + 8 * bc + br), group_at = shared_address(s_stage + 31),
               lims_at = shared_address(s_lim + 31 * TILE + ly);
      for (int g = 0; g < groups; ++g) {
        unsigned mask = lds_u32(rows_at);
        while (mask) {
          const int bit = 31 - __clz(mask);
          mask ^= bit_mask(bit);
          const unsigned off = static_cast<unsigned>(bit) * static_cast<unsigned>(sizeof(float4));
          const float4 qv = lds_f4(group_at - off);                                                    // x, a*rgb
          // 1 - a, a (kHalf: half2 (1 - a, 1), and nothing)
          const float2 ka = kHalf ? make_float2(__uint_as_float(lds_u32(group_at - off + kStage * sizeof(float4) + 2 * sizeof(float))), 0.f)
                                  : lds_f2(group_at - off + kStage * sizeof(float4) + 2 * sizeof(float));
          const float4 lim = lds_f4(lims_at - off * (TILE / 4));  // a slot's limits: TILE floats
          const float dx0 = px0 - qv.x, dx1 = px1 - qv.x;
          const float d0 = dx0 * dx0, d1 = dx1 * dx1;
          const float l[4] = {lim.x, lim.y, lim.z, lim.w};
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            if constexpr (kHalf) {
              const __half2 crg = bits_half2(qv.y), cba = bits_half2(qv.z), krg = bits_half2(qv.w),
                            kba = bits_half2(ka.x);
              if (d0 <= l[r]) {
                c0[r].rg = __hfma2(c0[r].rg, krg, crg);
                c0[r].ba = __hfma2(c0[r].ba, kba, cba);
              }
              if (d1 <= l[r]) {
                c1[r].rg = __hfma2(c1[r].rg, krg, crg);
                c1[r].ba = __hfma2(c1[r].ba, kba, cba);
              }
            } else {
              const float4 col = make_float4(qv.y, qv.z, qv.w, ka.y);
              if (d0 <= l[r]) blend_over(c0[r], ka.x, col);
              if (d1 <= l[r]) blend_over(c1[r], ka.x, col);
            }
            if (kCount) blends += (d0 <= l[r] && (in_bits >> (2 * r) & 1u)) + (d1 <= l[r] && (in_bits >> (2 * r) & 2u));
          }
          if (kCount) tests += __popc(in_bits);
        }
        rows_at += 32 * sizeof(unsigned);
        group_at += 32 * sizeof(float4);
        lims_at += 32 * TILE * sizeof(float);
      }
    }
    if constexpr (kHalf) {  // the batch's alpha into the float sum
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        pixel_end_batch(c0[r]);
        pixel_end_batch(c1[r]);
      }
    }
    if (b + 1 < batches) __syncthreads();  // the next batch overwrites the staging arrays
  }
  if (kCount) add_work(a, tests, blends);
  record_tile_cycles(f, start);
  const int i = txy.x * TILE + lx;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int j = txy.y * TILE + ly + r;
    if (j >= v.height) continue;
    const std::size_t at = static_cast<std::size_t>(j) * v.width + i;
    if (i < v.width) f.image[at] = pixel_get(c0[r]);
    if (i + 1 < v.width) f.image[at + 1] = pixel_get(c1[r]);
  }
}

}  // namespace circles::binned
