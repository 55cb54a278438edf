// What the shade kernels share: box culling tests, the exact blend (one FMA a channel, cpu-ref's),
// half-precision pixels, a chunk's arguments (ShadeArgs) and a lane's pixels.
#pragma once
#include <cuda_fp16.h>

#include "kernels/renderers/base.cuh"
#include "render/raster.h"
#include "kernels/primitives/warp.cuh"
#include "kernels/renderers/binned/chunks.h"  // ChunkStats

namespace circles::binned {

// circle_touches_box_sq (render/raster.h) with its clamp as fminf/fmaxf: two min/max
// instructions an axis instead of four comparisons, the same result for every finite centre (a
// NaN one is culled either way). Used by the warps' culling only (the binning kernels and the
// direct frames' tile culling keep clampf: there this form spills). The distance is fused as coverage_d2's; the
// culling radius's slack is many ulps wide, so it never drops a circle the pixels' test would draw.
__device__ __forceinline__ bool warp_box_touched(float cx, float cy, float cull_rr, float x0, float y0, float x1,
                                                 float y1) {
  const float dx = cx - fminf(fmaxf(cx, x0), x1);
  const float dy = cy - fminf(fmaxf(cy, y0), y1);
  return coverage_d2(dx, dy) <= cull_rr;
}

// The 8x4-pixel boxes of a 32x32 tile that a circle may touch, one bit each: bit 8c + b for
// columns 8c .. 8c + 7, rows 4b .. 4b + 3. Per column of boxes: the x distance to the nearest
// pixel centre (cx0[c] .. cx1[c]), the circle's half-height h there, and the boxes it reaches:
// box b is touched when 4b + 3 >= ty - h and 4b <= ty + h (ty: the circle's centre in tile rows
// from the first row's centre), with a 64th of a row of slack at each end. Boxes lo .. hi1 - 1
// are bmsk(8c, hi1) without bmsk(8c, lo), lo clamped to 0 and hi1 to 0 .. `boxes` (the tile's
// boxes in the image) first, so an empty range gives no bits. A missed column has h2 < 0, and
// h2 * rsqrt(1e-30) is a huge negative half-height: an empty range, no branch. Conservative:
// every pixel cpu-ref's test covers lies in a set box (the culling radius's slack, 1e-4 of the
// radius, covers the rounding of dx, h2 and the rsqrt; the 64th covers the rows' centres being a
// few ulps off y0 + t / scale, up to 16384 rows).
__device__ __forceinline__ unsigned row_box_bits(float qx, float ty, float cull_rr, const float4& cx0,
                                                 const float4& cx1, float quarter_scale, float boxes) {
  constexpr float kRowSlack = 1.f / 64.f;
  // In boxes, for h = 0: the first box that may hold a row >= ty - h, and one past the last that
  // may hold a row <= ty + h.
  const float lo0 = (ty - 3.f - kRowSlack) * 0.25f, hi0 = (ty + kRowSlack) * 0.25f + 1.f;
  const float x0[4] = {cx0.x, cx0.y, cx0.z, cx0.w}, x1[4] = {cx1.x, cx1.y, cx1.z, cx1.w};
  unsigned bits = 0u;
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const float dx = qx - fminf(fmaxf(qx, x0[c]), x1[c]);
    const float h2 = __fmaf_rn(-dx, dx, cull_rr);
    float rs;  // 1 / sqrt, approximate (the slack covers it); h2 = 0 gives a half-height of 0
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rs) : "f"(fmaxf(h2, 1e-30f)));
    const float h = h2 * rs;
    const int lo = __float2int_ru(fmaxf(__fmaf_rn(h, -quarter_scale, lo0), 0.f));
    const int hi1 = __float2int_rd(fminf(fmaxf(__fmaf_rn(h, quarter_scale, hi0), 0.f), boxes));
    unsigned below_hi, below_lo;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(below_hi) : "r"(8 * c), "r"(hi1));
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(below_lo) : "r"(8 * c), "r"(lo));
    bits |= below_hi & ~below_lo;
  }
  return bits;
}

// The 32x32 bit matrix of a warp transposed: lane l holds row l (bit b: column b) and gets
// column l (bit b: row b's bit l). Five exchanges of half-blocks (the recursive transpose).
__device__ __forceinline__ unsigned transpose_bits(unsigned x, int lane) {
#pragma unroll
  for (int s = 16; s > 0; s >>= 1) {
    const unsigned m = s == 16 ? 0x0000ffffu : s == 8 ? 0x00ff00ffu : s == 4 ? 0x0f0f0f0fu : s == 2 ? 0x33333333u : 0x55555555u;
    const unsigned y = __shfl_xor_sync(kFullMask, x, s);
    x = lane & s ? (x & ~m) | ((y >> s) & m) : (x & m) | ((y << s) & ~m);
  }
  return x;
}

// Shared-memory loads at a 32-bit shared address (shared_address): a loop can carry such an
// address in one register instead of rebuilding it from a pointer each pass. Volatile, so they
// stay after the barrier that publishes what they read.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ unsigned lds_u32(unsigned at) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at));
  return v;
}
__device__ __forceinline__ float2 lds_f2(unsigned at) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(at));
  return v;
}
__device__ __forceinline__ float4 lds_f4(unsigned at) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(at));
  return v;
}

// 1 << bit in one instruction (PTX bmsk, a 1-bit mask at `bit`): a shift needs the constant 1 in a
// register, which a kernel at its register cap may reload every pass.
__device__ __forceinline__ unsigned bit_mask(int bit) {
  unsigned m;
  asm("bmsk.clamp.b32 %0, %1, 1;" : "=r"(m) : "r"(bit));
  return m;
}

// Exact mode's blend of one circle over a pixel: c = keep * c + colour (premultiplied; keep =
// 1 - a), alpha summed as cpu-ref sums it. One FMA a channel, so every kernel that uses it gives
// cpu-ref's bits.
__device__ __forceinline__ void blend_over(Float4& c, float keep, const float4& col) {
  c.x = __fmaf_rn(keep, c.x, col.x);
  c.y = __fmaf_rn(keep, c.y, col.y);
  c.z = __fmaf_rn(keep, c.z, col.z);
  c.w += col.w;
}

// The eight-pixel walk's pixel in half precision (shade_rows8_kernel<kHalf>): R and G in one
// half2, B and the batch's alpha sum in another, so a blend is two HFMA2 (colour by keep, alpha
// by 1) instead of four float FMAs. The float alpha sum takes each batch's (at most 128 alphas,
// multiples of 1/16 from 1/2 to 1: exact in half, so the same sum as cpu-ref's). Used only where
// every colour and the background lie in [0, 1] and every alpha is such a multiple (checked at
// load): each blend then rounds by at most 2^-12 for the colour and 2^-12 for its premultiplied
// colour, and with keep <= 1/2 the error stays under 2^-11 / (1 - keep) = 2^-10 (9.8e-4) of
// cpu-ref's float channels.
struct HalfPixel {
  __half2 rg, ba;  // (r, g); (b, the batch's alpha)
  float a;         // the alpha's sum before this batch
};
__device__ __forceinline__ void pixel_set(Float4& p, const float4& c) { p = Float4{c.x, c.y, c.z, c.w}; }
__device__ __forceinline__ void pixel_set(HalfPixel& p, const float4& c) {
  p.rg = __floats2half2_rn(c.x, c.y);
  p.ba = __floats2half2_rn(c.z, 0.f);
  p.a = c.w;
}
__device__ __forceinline__ float4 pixel_get(const Float4& p) { return make_float4(p.x, p.y, p.z, p.w); }
// (After pixel_end_batch, or before any blend: the batch's alpha is 0, p.a the whole sum.)
__device__ __forceinline__ float4 pixel_get(const HalfPixel& p) {
  return make_float4(__low2float(p.rg), __high2float(p.rg), __low2float(p.ba), p.a);
}
// The batch's alpha into the float sum (half pixels; after each batch).
__device__ __forceinline__ void pixel_end_batch(HalfPixel& p) {
  p.a += __high2float(p.ba);
  p.ba = __halves2half2(__low2half(p.ba), __float2half_rn(0.f));
}
__device__ __forceinline__ unsigned half2_bits(float x, float y) {
  const __half2 h = __floats2half2_rn(x, y);
  return *reinterpret_cast<const unsigned*>(&h);
}
__device__ __forceinline__ __half2 bits_half2(float v) {
  const unsigned u = __float_as_uint(v);
  return *reinterpret_cast<const __half2*>(&u);
}

// A pixel stops (early exit) once the light still coming through it (its transmittance) is
// under half an 8-bit step: whatever lies below can then move no channel by half a step.
constexpr float kSettledTransmittance = 0.5f / 255.f;

// What the shade kernel reads besides the circles and the frame.
struct ShadeArgs {
  const uint2* ranges = nullptr;  // binned: per tile [begin, end) into ids; nullptr: direct
  const unsigned* ids = nullptr;
  int lo = 0, hi = 0;             // direct: the circles [lo, hi)
  bool first = true, last = true;  // this chunk's place in the frame's order
  float* transmittance = nullptr;  // early exit: per pixel, between chunks
  unsigned char* settled = nullptr;  // early exit: per tile, 1 once every pixel stopped
  ChunkStats* stats = nullptr;       // early exit: unsettled tiles are counted here
  unsigned long long* work = nullptr;  // counting: [0] pixel tests, [1] blends
  // Direct frames: the frame's animation step, done on the way (the circles are read as they
  // were, each block moves those it stages, and block-strided threads write the new state).
  FusedStep step;
};

// Counting kernels: a warp's pixel tests and blends summed (shuffles) and added to a.work by its
// first lane.
__device__ __forceinline__ void add_work(const ShadeArgs& a, unsigned long long tests, unsigned long long blends) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    tests += __shfl_down_sync(kFullMask, tests, d);
    blends += __shfl_down_sync(kFullMask, blends, d);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&a.work[0], tests);
    atomicAdd(&a.work[1], blends);
  }
}

// One lane's R pixels (one column, R rows) and their state: exact mode keeps the colour (rgb,
// alpha sum); early exit the colour composited so far (premultiplied rgb, alpha sum) and the
// transmittance.
template <int R>
struct LanePixels {
  static constexpr int kRows = R;
  int i, j[R];
  float px, py[R];
  bool in[R];  // inside the image
  Float4 c[R];
  float t[R];
  float bg_w[R];  // early exit: the background's alpha (the stop test); its colour is re-read at the end
  bool done[R];
  __device__ __forceinline__ bool all_done() const {
    bool d = true;
#pragma unroll
    for (int r = 0; r < R; ++r) d = d && done[r];
    return d;
  }
  __device__ __forceinline__ int open_in_image() const {  // pixels still blending
    int n = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) n += in[r] && !done[r];
    return n;
  }
};

// Early exit: a run of consecutive circles that each cover a warp's whole box (flat shading):
// their blends compose into one affine map per channel, the same for every pixel of the box,
// applied front to back (acc += t * add, t *= a_mul) when a circle that needs the per-pixel test
// comes, or at the end, with the stop test once a run instead of once a circle. Every lane keeps
// the same copy (warp-uniform work); the reassociation moves the result by float rounding only.
// (Exact mode blends such circles at once: see kFoldRuns.)
struct FullRun {
  float a_mul = 1.f;
  float add_x = 0.f, add_y = 0.f, add_z = 0.f, alpha = 0.f;
  // Adds the map (keep, col) below what is pending: one circle (keep = 1 - a) or a run composed
  // already.
  __device__ __forceinline__ void add(float keep, const float4& col) {
    add_x = __fmaf_rn(a_mul, col.x, add_x);
    add_y = __fmaf_rn(a_mul, col.y, add_y);
    add_z = __fmaf_rn(a_mul, col.z, add_z);
    a_mul *= keep;
    alpha += col.w;
  }
  template <class Pixels>
  __device__ __forceinline__ void flush(Pixels& p) {
    // Nothing to apply: alphas are in [0, 1], so a run whose alphas sum to 0 is the identity map
    // (every keep factor 1, every premultiplied colour 0); no counter to keep a circle.
    if (alpha == 0.f) return;  // uniform
#pragma unroll
    for (int r = 0; r < Pixels::kRows; ++r) {
      if (p.done[r]) continue;
      p.c[r].x = __fmaf_rn(p.t[r], add_x, p.c[r].x);
      p.c[r].y = __fmaf_rn(p.t[r], add_y, p.c[r].y);
      p.c[r].z = __fmaf_rn(p.t[r], add_z, p.c[r].z);
      p.t[r] *= a_mul;
      p.c[r].w += alpha;
      p.done[r] = p.t[r] < kSettledTransmittance && p.bg_w[r] + p.c[r].w >= 1.f;
    }
    *this = FullRun{};
  }
};

}  // namespace circles::binned
