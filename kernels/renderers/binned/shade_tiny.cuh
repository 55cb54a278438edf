// Tiny circles (tiny_shade_kernel): each circle of a batch marks the pixels it covers in
// per-pixel masks, then each pixel blends its circles in order.
#pragma once
#include <cuda_pipeline.h>

#include "kernels/renderers/base.cuh"
#include "render/raster.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/renderers/binned/shade_common.cuh"

namespace circles::binned {

constexpr int kTinyThreads = 256;
// Where word w of pixel p's mask sits: w ^ tiny_swizzle(p), the pixel's bits above those that
// p * kWords already spreads over the 32 banks (the bank of p's first word, over kWords).
template <int kWords>
__device__ __forceinline__ int tiny_swizzle(int p) {
  static_assert(kWords >= 1 && kWords <= 32 && (kWords & (kWords - 1)) == 0, "a power of two");
  return static_cast<int>(static_cast<unsigned>(p) / (32u / kWords)) & (kWords - 1);
}
// Blends a tile's tiny circles (a few pixels each): fast because each circle goes to the pixels
// it covers, so the work is per covered pixel, not per pixel of a box the circle touches.
// For binned exact frames of tiny flat circles. A block per tile, 256 threads, TILE * TILE / 256
// pixels a thread; the tile's circles in batches of 256, one a thread. Each thread tests its
// circle at the pixel centres of its window (cpu-ref's test, to the bit) and sets the circle's
// bit in each covered pixel's 256-bit mask in shared memory; then each thread walks its pixels'
// masks in circle order and blends with blend_over (the same bits). A big circle tests its whole
// window: still exact, but slow. The kernel is latency-bound (two barriers a batch), so the next
// batch's positions and colours (cp.async) are fetched while this one is tested and walked.
template <int TILE, bool kCount>
__global__ void __launch_bounds__(kTinyThreads, 4) tiny_shade_kernel(DeviceCircles c, FrameParams f, ShadeArgs a) {
  constexpr int kPixels = TILE * TILE, kPer = kPixels / kTinyThreads, kWords = kTinyThreads / 32;
  static_assert(kPer * kTinyThreads == kPixels && kWords % 4 == 0, "whole pixels a thread, whole uint4 masks");
  __shared__ uint4 s_cover[kPixels][kWords / 4];  // per pixel: which of the batch's circles cover it
  __shared__ unsigned s_words[kPixels];            // per pixel: which of those words have a bit set
  // The batches' colours as stored (r, g, b, a), this batch's and the next's: a thread's own
  // slot copied a batch ahead (cp.async), premultiplied where it is blended.
  __shared__ float4 s_col[2][kTinyThreads];
  __shared__ float s_px[TILE], s_py[TILE];        // the tile's pixel centres (View's divisions, once)
  const long long start = clock64();
  const View& v = f.view;
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;
  const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  const int x1 = min(x0 + TILE, v.width) - 1, y1 = min(y0 + TILE, v.height) - 1;  // the tile's last pixels
  if (threadIdx.x < TILE) s_px[threadIdx.x] = v.pixel_x(x0 + threadIdx.x);
  else if (threadIdx.x < 2 * TILE) s_py[threadIdx.x - TILE] = v.pixel_y(y0 + threadIdx.x - TILE);
  // The thread's pixels: local index p = threadIdx.x + k * 256 (row-major in the tile).
  Float4 px[kPer];
#pragma unroll
  for (int k = 0; k < kPer; ++k) {
    const int p = threadIdx.x + k * kTinyThreads, i = x0 + p % TILE, j = y0 + p / TILE;
    px[k] = Float4{0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int h = 0; h < kWords / 4; ++h) s_cover[p][h] = make_uint4(0u, 0u, 0u, 0u);
    s_words[p] = 0u;
    if (i < v.width && j < v.height) {
      if (a.first) {
        px[k] = background_at(f.background, j, v.height);
      } else {
        const float4 q = f.image[static_cast<std::size_t>(j) * v.width + i];
        px[k] = Float4{q.x, q.y, q.z, q.w};
      }
    }
  }
  // Launched dependent, as shade_kernel is: the ranges and ids the scatter (or the tile ranges)
  // wrote are read after the wait; the image above, the previous chunk's shade wrote.
  wait_for_prior_grid();
  const uint2 range = a.ranges[tile];
  const unsigned first = range.x, end = range.y > range.x ? range.y : range.x;
  unsigned long long tests = 0, blends = 0;
  // This batch's circle (one a thread): its position loaded a batch ahead and its id two (so
  // the position's load never waits for the id's); its colour, needed last, when it is staged
  // (fewer registers held across the walk).
  unsigned id = 0, id_next = 0;
  float4 q = make_float4(0.f, 0.f, 0.f, 0.f);
  if (first + threadIdx.x < end) {
    id = a.ids[first + threadIdx.x];
    q = c.pos_rad[id];
    __pipeline_memcpy_async(&s_col[0][threadIdx.x], c.color + id, sizeof(float4));
  }
  __pipeline_commit();
  if (first + kTinyThreads + threadIdx.x < end) id_next = a.ids[first + kTinyThreads + threadIdx.x];
  int buf = 0;  // s_col's half of this batch
  // The thread's circle is slot threadIdx.x of its batch; its bit in a pixel's mask is reversed
  // (word 7 - slot / 32, bit 31 - slot % 32), so that the walk takes the highest set bit first
  // (one FLO) and meets the batch's circles in order.
  // A pixel's words are stored swizzled (word w of pixel p at w ^ tiny_swizzle(p)): a warp's 32
  // circles set bits in one word of up to 32 pixels, and unswizzled those words fall in only
  // 32 / kWords banks (p * kWords), a bank conflict on each shared atomic; swizzled by the pixel's
  // next bits they spread over all 32.
  unsigned* const cover = reinterpret_cast<unsigned*>(&s_cover[0][0]);
  const unsigned my_word = kWords - 1 - threadIdx.x / 32;
  const unsigned bit = 1u << (31 - threadIdx.x % 32), word_bit = 1u << my_word;
  __syncthreads();  // s_px, s_py and the cleared masks
  for (unsigned base = first; base < end; base += kTinyThreads) {
    const bool mine = base + threadIdx.x < end;
    const float4 cq = q;
    if (base + kTinyThreads + threadIdx.x < end) {  // the next batches' circles, in flight meanwhile
      id = id_next;
      q = c.pos_rad[id];
      // Its colour copied into shared memory a batch ahead: no register held, and the copy's
      // wait for device memory overlaps this batch's tests and walk.
      __pipeline_memcpy_async(&s_col[buf ^ 1][threadIdx.x], c.color + id, sizeof(float4));
      // The id two batches ahead, loaded whether or not there is one (clamped to the range's last
      // id, never used past the end): a conditional load would keep the old value by a predicated
      // move right after it, which would wait for the load there.
      id_next = a.ids[min(base + 2 * kTinyThreads + threadIdx.x, end - 1)];
    }
    __pipeline_commit();
    if (mine) {
      // The pixels whose centres the circle may cover: cpu-ref's covered centres lie within the
      // radius plus a few float roundings of it (8 ulps of |c| + r, in pixels, and 1/256 of a
      // pixel besides); clipped to the tile in float before any conversion to int.
      const float rr = cq.w * cq.w;
      const float sx = 8.f * (fabsf(cq.x) + cq.w) * v.scale * 1.1920929e-7f + 1.f / 256.f;
      const float sy = 8.f * (fabsf(cq.y) + cq.w) * v.scale * 1.1920929e-7f + 1.f / 256.f;
      const float cx = cq.x * v.scale + v.off_x - 0.5f, cy = cq.y * v.scale + v.off_y - 0.5f, cr = cq.w * v.scale;
      const float fi0 = fmaxf(ceilf(cx - cr - sx), static_cast<float>(x0));
      const float fi1 = fminf(floorf(cx + cr + sx), static_cast<float>(x1));
      const float fj0 = fmaxf(ceilf(cy - cr - sy), static_cast<float>(y0));
      const float fj1 = fminf(floorf(cy + cr + sy), static_cast<float>(y1));
      if (fi0 <= fi1 && fj0 <= fj1) {
        const int i0 = static_cast<int>(fi0) - x0, i1 = static_cast<int>(fi1) - x0;
        const int j0 = static_cast<int>(fj0) - y0, j1 = static_cast<int>(fj1) - y0;
        // One pixel centre: cpu-ref's coverage test to the bit (covers_dx2, with dx*dx given); a
        // covered one gets the circle's bit.
        auto test = [&](int li, int lj, float dx2, float dy) {
          const bool covers = covers_dx2(dx2, dy, rr);
          if (kCount) {
            ++tests;
            blends += covers;
          }
          if (covers) {
            const int pix = lj * TILE + li;
            atomicOr(cover + pix * kWords + (my_word ^ tiny_swizzle<kWords>(pix)), bit);
            atomicOr(&s_words[pix], word_bit);
          }
        };
        if (i1 - i0 <= 2 && j1 - j0 <= 2) {
          // A window of at most 3x3 (every tiny circle's): its centres loaded at once and the
          // nine tests unrolled, predicated, so the warp's lanes stay together.
          float wdx2[3], wdy[3];  // the window's columns' dx*dx and rows' dy
#pragma unroll
          for (int u = 0; u < 3; ++u) {
            const float dx = s_px[min(i0 + u, i1)] - cq.x;
            wdx2[u] = dx * dx;
            wdy[u] = s_py[min(j0 + u, j1)] - cq.y;
          }
#pragma unroll
          for (int r = 0; r < 3; ++r) {
#pragma unroll
            for (int u = 0; u < 3; ++u)
              if (j0 + r <= j1 && i0 + u <= i1) test(i0 + u, j0 + r, wdx2[u], wdy[r]);
          }
        } else {
          for (int lj = j0; lj <= j1; ++lj) {
            const float dy = s_py[lj] - cq.y;
            for (int li = i0; li <= i1; ++li) {
              const float dx = s_px[li] - cq.x;
              test(li, lj, dx * dx, dy);
            }
          }
        }
      }
    }
    __pipeline_wait_prior(1);  // this batch's colour copy (the next one's may still be in flight)
    __syncthreads();           // the batch's masks and colours
    // Each pixel's circles in order: the nonzero words of its mask (s_words), then each word's
    // bits, highest first (the reversed slots: circle order), in one loop with a pass per circle
    // (nested loops over words and bits would take a warp through every word any lane has bits
    // in). Both are cleared on the way for the next batch (only this thread reads them).
#pragma unroll
    for (int k = 0; k < kPer; ++k) {
      const int p = threadIdx.x + k * kTinyThreads;
      unsigned* words = reinterpret_cast<unsigned*>(&s_cover[p][0]);
      unsigned nonzero = s_words[p];
      if (nonzero) s_words[p] = 0u;
      unsigned m = 0;
      int w = 0;
      while (m || nonzero) {
        if (m == 0) {  // the next nonzero word, cleared for the next batch
          w = 31 - __clz(nonzero);
          nonzero ^= 1u << w;
          const int ws = w ^ tiny_swizzle<kWords>(p);
          m = words[ws];
          words[ws] = 0u;
        }
        const int b = 31 - __clz(m);
        m ^= 1u << b;
        const int s = (kTinyThreads - 1) - (w * 32 + b);  // the circle's slot
        const float4 col = s_col[buf][s];  // premultiplied as the other kernels stage it: the same bits
        blend_over(px[k], 1.f - col.w, make_float4(col.w * col.x, col.w * col.y, col.w * col.z, col.w));
      }
    }
    __syncthreads();  // before the next batch's colours are copied over these and bits are set
    buf ^= 1;
  }
  if (kCount) add_work(a, tests, blends);
  record_tile_cycles(f, start);
#pragma unroll
  for (int k = 0; k < kPer; ++k) {
    const int p = threadIdx.x + k * kTinyThreads, i = x0 + p % TILE, j = y0 + p / TILE;
    if (i < v.width && j < v.height)
      f.image[static_cast<std::size_t>(j) * v.width + i] = make_float4(px[k].x, px[k].y, px[k].z, px[k].w);
  }
}

}  // namespace circles::binned
