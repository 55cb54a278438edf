// The warps' walk (shade_kernel): a block a tile, circles staged in batches, each warp culls a
// batch against its own pixels with a ballot and visits only the circles that touch them.
#pragma once
#include "kernels/renderers/base.cuh"
#include "render/raster.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/primitives/ballot.cuh"
#include "kernels/renderers/binned/plan.h"
#include "kernels/renderers/binned/shade_common.cuh"

namespace circles::binned {

// kRows, the pixels a lane (one column): 2, or 4 in exact frames at tile 32 (direct ones, and
// binned flat ones that compose runs; binned ones that do not take shade_rows8_kernel). Four
// halves the threads, so twice the blocks fit an SM: half the waves of blocks that each wait on
// the same chain of loads and barriers, and half the warps culling each batch. Tile 16 and early
// exit keep two: early exit's extra state would not fit 64 registers.
// kCompose: 0 none, 1 runs of circles covering a warp's box, 2 also runs covering the whole
// tile, pre-composed per group of 32 staged circles. kStep: the frame's animation step fused
// (a.step; direct exact flat frames at four pixels a lane only), in instantiations of its own so
// that the kernels of still frames carry none of its code.
// The blocks an SM each shade kernel is built for, which sets its registers (65,536 / threads /
// blocks): at tile 16 six of 256 threads (80 registers); at tile 32 two of 512 (two pixels a
// lane) or four of 256 (four: 64 registers).
constexpr int shade_blocks_per_sm(int tile, int rows) { return tile != 32 ? 6 : rows; }

// The tile a block of the shade takes: blocks are started in index order, so the image's border
// tiles (cut by its edges, or reaching past them: fewer pairs in scenes spread evenly) go last,
// where the last wave's stragglers decide when the kernel ends; the inner tiles first, row by row.
struct TileXY {
  int x, y;
};
__device__ __forceinline__ TileXY edges_last_tile(int nx, int ny) {
  int l = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
  if (nx < 3 || ny < 3) return {l % nx, l / nx};
  const int inner = (nx - 2) * (ny - 2);
  if (l < inner) return {1 + l % (nx - 2), 1 + l / (nx - 2)};
  l -= inner;
  if (l < nx) return {l, 0};                                // the top row
  l -= nx;
  if (l < nx) return {l, ny - 1};                           // the bottom row
  l -= nx;
  return {l < ny - 2 ? 0 : nx - 1, 1 + l % (ny - 2)};       // the left, then the right column
}

// The tile's pixel centres (s_px, s_py) and its rows' background colours (s_bg), each computed
// once a block by a thread of its own, threads 0 .. 3 TILE - 1 (View's division, the gradient's);
// false for the other threads. Rows below the image (a partial tile) take the last row's
// background, as their pixels never show.
template <int TILE>
__device__ __forceinline__ bool stage_tile_centres(int t, TileXY txy, const FrameParams& f, float* s_px, float* s_py,
                                                   float4* s_bg) {
  const View& v = f.view;
  if (t < TILE) {
    s_px[t] = v.pixel_x(txy.x * TILE + t);
  } else if (t < 2 * TILE) {
    s_py[t - TILE] = v.pixel_y(txy.y * TILE + t - TILE);
  } else if (t < 3 * TILE) {
    const Float4 bg = background_at(f.background, min(txy.y * TILE + t - 2 * TILE, v.height - 1), v.height);
    s_bg[t - 2 * TILE] = make_float4(bg.x, bg.y, bg.z, bg.w);
  } else {
    return false;
  }
  return true;
}

// Shades a tile a block; fast because each warp ballots and visits only circles touching its box.
// A warp takes 8 x 4 kRows pixels, a lane kRows of one column. Circles are staged in shared
// memory in batches; each warp ballots which of a group of 32 touch its box and walks only those,
// in order (backwards for early exit). A lane's pixels share each visit's load and dx, and a
// blend is 3 FMAs and an add.
template <Shading S, int TILE, bool kEarly, bool kCount, int kCompose, int kRows, bool kStep = false,
          bool kGroups = walks_row_groups(S, kRows, kEarly, kCompose)>
__global__ void __launch_bounds__(TILE * TILE / kRows,
                                  shade_blocks_per_sm(TILE, kRows))
    shade_kernel(DeviceCircles c, FrameParams f, ShadeArgs a) {
  constexpr int kThreads = TILE * TILE / kRows;
  constexpr int kWarpsX = TILE / 8;
  constexpr int kBoxH = 4 * kRows;  // the warp box's height in pixels
  static_assert(S == Shading::Flat || !kCompose, "snow's alpha differs per pixel: nothing to compose");
  // Where a box-covering circle goes: folded into a pending run (FullRun) in early exit, blended
  // at once, untested, in exact mode: there a blend is 4 instructions a pixel, while folding costs
  // every visit a predicated fold and a flush and reset after each run.
  constexpr bool kFoldRuns = kCompose && kEarly;
  // Exact direct frames of flat circles at four pixels a lane that compose no runs: each row group
  // of 8 lanes culls the group's circles against its own 8x4 pixels, not the warp's 8x16, and
  // walks only those (a lane's mask is its row group's; a warp's passes over a group are its
  // busiest row group's): a smaller box is touched by fewer circles. The four tests share the x
  // part and take the boxes' rows from the row spacing. Where runs are composed, a circle covering
  // one row group's box and not another's would send the row groups down different paths: those
  // keep the warp's box. kGroups = false keeps it too: the four-pixel walk of binned frames
  // (--binned-rows 4), which the eight-pixel walk replaces by default.
  static_assert(!kGroups || walks_row_groups(S, kRows, kEarly, kCompose), "row groups: exact flat frames, four rows");
  constexpr bool kSubBoxes = kGroups;
  // Exact mode stages batches of 512 circles (4 a thread at tile 16: fewer barriers, the loads
  // overlap); early exit one a thread, so that a tile that settles early staged little it did not
  // need.
  constexpr int kPer = kEarly || kThreads >= 512 ? 1 : 512 / kThreads;
  constexpr int kBatch = kThreads * kPer;
  // Direct frames stage kDirPer circles a thread a batch, fewer batches and barriers: 4 in the
  // four-pixel kernels of still frames (a batch is 1024 circles), 2 in early exit at tile 16 (it
  // fits 80 registers), 1 elsewhere (more would spill). The culling test needs only the position;
  // a kept circle is loaded again (an L1 hit) to stage it (kReload), so that several positions and
  // colours are not held in registers across the scan's barrier, where they would spill.
  constexpr int kDirPer = kRows == 4 && !kStep ? 4 : (kEarly && TILE == 16 ? 2 : 1);
  constexpr bool kReload = kDirPer > 1;
  // Direct exact frames that reload their kept circles stage several batches' survivors before the
  // warps walk them: a batch is culled against the tile, its survivors appended to what is staged,
  // and the warps walk only when the next batch's would not fit, or at the end: a tile that keeps
  // few circles a batch is walked once, not once a batch. A batch that does not fit keeps its
  // flags across the walk and is staged after it.
  constexpr bool kDefer = !kEarly && kReload;
  static_assert(!(kReload && kStep), "a reloaded circle would be the unmoved one");
  // Staging capacity, in circles.
  constexpr int kStage = kThreads * (kDirPer > kPer ? kDirPer : kPer);
  // The staged circles: slot s's geometry at [s], its colour at [kStage + s] (one address, two
  // loads). Geometry: flat x, y, radius^2, 1 - a (the keep factor); snow x, y, z, radius.
  // Colour: flat a*r, a*g, a*b, a (premultiplied); snow r, g, b, a.
  __shared__ float4 s_stage[2 * kStage];
  __shared__ float s_cull[kStage];  // the culling radius^2 (cull_radius_sq)
  // Direct: the batch's per-warp counts (deferred walks: two, by the batch's parity, so that a
  // batch's counts are never rewritten before every thread has read them).
  __shared__ int s_scan_totals[(kDefer ? 2 : 1) * kDirPer * kThreads / 32];
  // Deferred walks: a thread's flags for the batch that waits for a walk (kept here, not in
  // registers across the walk).
  __shared__ unsigned char s_pending[kDefer ? kThreads : 1];
  // compose 2: per group of 32 staged circles (bit k: the group's circle k), those to test (they do
  // not cover the whole tile) and those where a run of tile-covering circles ends (the run's
  // geometry slot holds (0, length, 0, a_mul), its colour the add and alpha); the others are
  // inside a run and skipped. Two masks a group instead of a byte a circle: a lane whose circle
  // covers the tile loads nothing to cull it.
  __shared__ unsigned s_open[kCompose == 2 ? kStage / 32 : 1], s_ends[kCompose == 2 ? kStage / 32 : 1];
  __shared__ float4 s_tile;  // the tile's box of pixel centres, clipped to the image: x0, y0, x1, y1
  __shared__ float s_px[TILE];  // the tile's pixel centres: columns
  __shared__ float s_py[TILE];  // rows
  __shared__ float4 s_bg[TILE];             // its rows' background colour
  auto stage_circle = [&](unsigned slot, const float4& q, const float4& col) {
    if (S == Shading::Flat) {
      s_stage[slot] = make_float4(q.x, q.y, q.w * q.w, 1.f - col.w);
      s_stage[kStage + slot] = make_float4(col.w * col.x, col.w * col.y, col.w * col.z, col.w);
    } else {
      s_stage[slot] = q;
      s_stage[kStage + slot] = col;
    }
    s_cull[slot] = cull_radius_sq(q.w);
  };
  const long long start = clock64();
  // Binned exact frames of flat circles take their tiles border last (edges_last_tile); direct
  // frames (kSubBoxes kernels draw only those), early exit and snow in index order.
  const TileXY txy = S == Shading::Flat && !kEarly && !kStep && !kSubBoxes && a.ranges
                         ? edges_last_tile(static_cast<int>(gridDim.x), static_cast<int>(gridDim.y))
                         : TileXY{static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y)};
  const int tile = txy.y * static_cast<int>(gridDim.x) + txy.x;
  if (kEarly && !a.first && a.settled[tile]) return;  // uniform: this tile stopped in an earlier chunk
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const View& v = f.view;
  const int wi = txy.x * TILE + (warp % kWarpsX) * 8, wj = txy.y * TILE + (warp / kWarpsX) * kBoxH;
  const bool warp_live = wi < v.width && wj < v.height;
  // The tile's pixel centres and its rows' background, each computed once a block by a thread of
  // its own (View's division, the gradient's) rather than by every lane for its own pixels. The
  // same arithmetic, so the same bits.
  static_assert(kThreads >= 3 * TILE + 1, "a thread for each centre, background row and the tile's box");
  {
    const int t = static_cast<int>(threadIdx.x);
    if (!stage_tile_centres<TILE>(t, txy, f, s_px, s_py, s_bg) && t == 3 * TILE)
      s_tile = make_float4(v.pixel_x(txy.x * TILE), v.pixel_y(txy.y * TILE),
                           v.pixel_x(min((txy.x + 1) * TILE, v.width) - 1),
                           v.pixel_y(min((txy.y + 1) * TILE, v.height) - 1));
  }
  __syncthreads();  // s_px, s_py, s_bg and s_tile

  LanePixels<kRows> p;
  const int ly_w = (warp / kWarpsX) * kBoxH;  // the warp box's first row in the tile
  const int lx = (warp % kWarpsX) * 8 + (lane & 7), ly = ly_w + (lane >> 3) * kRows;
  p.i = wi + (lane & 7);
  p.px = s_px[lx];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    p.j[r] = wj + (lane >> 3) * kRows + r;
    p.py[r] = s_py[ly + r];
  }
  // The warp's box of pixel centres, clipped to the image (for the culling ballot): its lanes'
  // own centres, shuffled.
  const int last_x = max(0, min(8, v.width - wi) - 1), last_y = max(0, min(kBoxH, v.height - wj) - 1);
  // The lane's centre in the row that is the box's last: selects with constant indices. (A loop
  // `if (last_y % kRows == r) last_py = p.py[r]` puts the whole LanePixels in local memory.)
  float last_py = p.py[0];
  if (last_y % kRows == 1) last_py = p.py[1];
  if (kRows == 4 && last_y % kRows == 2) last_py = p.py[kRows == 4 ? 2 : 0];
  if (kRows == 4 && last_y % kRows == 3) last_py = p.py[kRows == 4 ? 3 : 0];
  const float bx0 = __shfl_sync(kFullMask, p.px, 0), by0 = __shfl_sync(kFullMask, p.py[0], 0);
  const float bx1 = __shfl_sync(kFullMask, p.px, last_x);
  const float by1 = __shfl_sync(kFullMask, last_py, (last_y / kRows) * 8);
  // kSubBoxes: the rows' spacing, from which the row groups' boxes are computed as they are
  // needed (eight bounds held in registers would spill), and the box's first row less a 64th of
  // a row. Computed so, a bound is a few ulps from View's centre, and the 64th keeps each box a
  // superset of its centres' at every size the CLI takes (a few ulps of |y| are under 1/8 of a
  // 64th of a row up to 16384 rows at any width); the culling radius's own slack (cull_radius_sq:
  // 1e-6 and 1e-4 of the radius) does not cover frames much taller than wide, whose y runs past 1.
  const float row_step = kSubBoxes ? 1.f / v.scale : 0.f;
  const float sub_y = by0 - row_step * (1.f / 64.f);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    p.in[r] = p.i < v.width && p.j[r] < v.height;
    const float4 bg4 = s_bg[ly + r];
    const Float4 bg{bg4.x, bg4.y, bg4.z, bg4.w};
    p.bg_w[r] = bg.w;
    const std::size_t at = p.in[r] ? static_cast<std::size_t>(p.j[r]) * v.width + p.i : 0;
    // The pixel's state: fresh in the frame's first chunk (exact: the background; early exit:
    // nothing composited, all light through), else what the previous chunk left.
    if (a.first) {
      p.c[r] = kEarly ? Float4{0.f, 0.f, 0.f, 0.f} : bg;
      p.t[r] = 1.f;
    } else {
      const float4 q = p.in[r] ? f.image[at] : make_float4(0.f, 0.f, 0.f, 0.f);
      p.c[r] = Float4{q.x, q.y, q.z, q.w};
      p.t[r] = kEarly && p.in[r] ? a.transmittance[at] : 0.f;
    }
    p.done[r] = kEarly && (!p.in[r] || (p.t[r] < kSettledTransmittance && p.bg_w[r] + p.c[r].w >= 1.f));
  }
  unsigned long long tests = 0, blends = 0;
  FullRun run;

  // A visited circle's test and blend at the lane's pixels (q, col: its staged geometry and colour).
  auto shade_pixels = [&](const float4& q, const float4& col) {
    const float dx = p.px - q.x;
    const float dx2 = dx * dx;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      if (S == Shading::Flat) {
        // cpu-ref's coverage test to the bit (covers_dx2: dx*dx once a lane, then the row's limit,
        // one fma, and a compare a pixel).
        const float dy = p.py[r] - q.y;
        const bool covers = covers_dx2(dx2, dy, q.z) && !p.done[r];
        if (kCount) {
          tests += p.in[r] && !p.done[r];
          blends += covers && p.in[r];
        }
        if (covers) {
          if (kEarly) {
            p.c[r].x = __fmaf_rn(p.t[r], col.x, p.c[r].x);
            p.c[r].y = __fmaf_rn(p.t[r], col.y, p.c[r].y);
            p.c[r].z = __fmaf_rn(p.t[r], col.z, p.c[r].z);
            p.c[r].w += col.w;
            p.t[r] *= q.w;  // 1 - a
          } else {
            blend_over(p.c[r], q.w, col);
          }
        }
      } else if (!p.done[r]) {
        // Snow: cpu-ref's own blend (per-pixel alpha from the distance), unchanged.
        if (kCount) tests += p.in[r];
        if (kEarly) {
          Float4 layer{0.f, 0.f, 0.f, 0.f};
          float alpha = 0.f;
          if (blend_circle(S, p.px, p.py[r], q.x, q.y, q.z, q.w, col.x, col.y, col.z, col.w, &layer,
                           &alpha)) {
            // layer = alpha * colour over black: the premultiplied colour.
            if (kCount) blends += p.in[r];
            p.c[r].x = __fmaf_rn(p.t[r], layer.x, p.c[r].x);
            p.c[r].y = __fmaf_rn(p.t[r], layer.y, p.c[r].y);
            p.c[r].z = __fmaf_rn(p.t[r], layer.z, p.c[r].z);
            p.c[r].w += alpha;
            p.t[r] *= 1.f - alpha;
          }
        } else if (blend_circle(S, p.px, p.py[r], q.x, q.y, q.z, q.w, col.x, col.y, col.z, col.w, &p.c[r])) {
          if (kCount) blends += p.in[r];
        }
      }
      if (kEarly && !p.done[r])
        p.done[r] = p.t[r] < kSettledTransmittance && p.bg_w[r] + p.c[r].w >= 1.f;
    }
  };

  // Launched dependent (kernels/cuda/dependent_launch.cuh): everything above overlaps the tail of the
  // kernel before (binned: the scatter or the tile ranges). What it read from device memory, the
  // image, transmittance and settled flags, the previous chunk's shade wrote, and that finished
  // before this chunk's count, an ordinary launch, began. The ranges, ids and circles (which an
  // animation kernel may just have moved) come after the wait.
  wait_for_prior_grid();
  // Direct: a batch is kDirPer circles a thread, culled against the whole tile and compacted in
  // order (a ballot scan) before the warps cull what is left against their own boxes. The kernels
  // that walk per row group (kSubBoxes) draw direct frames only (binned ones take
  // shade_rows8_kernel), so their binned code is left out.
  const bool direct = kSubBoxes || a.ranges == nullptr;
  // The circles this tile walks: [first, end) of ids (binned) or of the circles (direct).
  unsigned first, end;
  if (!direct) {
    const uint2 r = a.ranges[tile];
    first = r.x;
    end = r.y;
  } else {
    first = static_cast<unsigned>(a.lo);
    end = static_cast<unsigned>(a.hi);
  }
  const unsigned n = end > first ? end - first : 0u;
  // The fused step (never snow's, whose noise would cost registers here: the compiler sees
  // `moves` is never Snow, so the snow step is not in this kernel at all).
  static_assert(!kStep || (!kEarly && S == Shading::Flat), "steps fuse into exact flat frames only");
  const Animation moves = !kStep || a.step.kind == Animation::Snow ? Animation::None : a.step.kind;
  if (kStep && direct && moves != Animation::None) {
    // The step's writers: the grid's threads in turn, one per circle (every block moves the
    // circles it stages itself, the same way, so the order of the writes does not matter).
    const unsigned stride = gridDim.x * gridDim.y * kThreads;
    for (unsigned k = first + tile * kThreads + threadIdx.x; k < end; k += stride) {
      const int ki = static_cast<int>(k);
      store_moved(a.step, ki, moved_circle(moves, a.step.seed, a.step.frame, ki, c.pos_rad[k], a.step.velocity[k], c.pos_rad));
    }
  }
  const unsigned step = direct ? kThreads * kDirPer : kBatch;
  const unsigned batches = (n + step - 1) / step;
  bool warp_done = !warp_live || (kEarly && __all_sync(kFullMask, p.all_done()));
  const bool defer = kDefer && direct;  // (kDefer kernels run direct frames only)
  unsigned staged = 0;  // deferred: circles staged and not walked yet
  // A deferred walk's loop has one more pass, after the last batch, to walk what is staged.
  const unsigned passes = batches + (defer ? 1u : 0u);
  for (unsigned b = 0; b < passes; ++b) {
    // Early exit walks the batches from the end.
    const unsigned base = first + (kEarly ? (batches - 1 - b) : b) * step;
    unsigned count = !kDefer || b < batches ? min(end - base, step) : 0u;
    if (direct) {
      bool keep[kDirPer];  // which of the thread's circles touch the tile
      float4 q[kDirPer], col[kDirPer];
#pragma unroll
      for (int u = 0; u < kDirPer; ++u) {
        keep[u] = false;
        q[u] = col[u] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (u * kThreads + threadIdx.x < count) {
          // The batch's loads at once (they hit L2: every block reads the same circles), so it
          // waits for one latency, not one a circle.
          const unsigned k = base + u * kThreads + threadIdx.x;
          q[u] = c.pos_rad[k];
          if (!kReload) col[u] = c.color[k];
          if (kStep && moves != Animation::None) {  // the frame's step: where the circle moves to
            const Motion m =
                moved_circle(moves, a.step.seed, a.step.frame, static_cast<int>(k), q[u], a.step.velocity[k], c.pos_rad);
            q[u] = make_float4(m.x, m.y, m.z, m.radius);
          }
          keep[u] = circle_touches_box(q[u].x, q[u].y, q[u].w, s_tile.x, s_tile.y, s_tile.z, s_tile.w);
        }
      }
      unsigned slot[kDirPer];
      if (defer) {
        int* totals = s_scan_totals + (b & 1u) * (kDirPer * kThreads / 32);
        const unsigned got = b < batches ? ballot_count_flags<kThreads / 32, kDirPer>(keep, totals) : 0u;
        if (b < batches && staged + got <= kStage) {  // uniform: appended, no walk yet
          ballot_slots<kThreads / 32, kDirPer>(keep, slot, totals);
#pragma unroll
          for (int u = 0; u < kDirPer; ++u) {
            if (!keep[u]) continue;
            const unsigned k = base + u * kThreads + threadIdx.x;
            stage_circle(staged + slot[u], c.pos_rad[k], c.color[k]);
          }
          staged += got;
          continue;
        }
        count = staged;  // walk what is staged; this batch's survivors are staged after the walk
        unsigned bits = 0;
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) bits |= keep[u] ? 1u << u : 0u;
        s_pending[threadIdx.x] = static_cast<unsigned char>(bits);
      } else {
        count = ballot_scan_flags<kThreads / 32, kDirPer>(keep, slot, s_scan_totals);
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) {
          if (!keep[u]) continue;
          if (kReload) {  // loaded again (L1) rather than held in registers across the scan
            const unsigned k = base + u * kThreads + threadIdx.x;
            stage_circle(slot[u], c.pos_rad[k], c.color[k]);
          } else {
            stage_circle(slot[u], q[u], col[u]);
          }
        }
      }
    } else {
      // Loaded and staged, kPer circles a thread (tile 16: four), all at once.
      unsigned id[kPer];
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        const unsigned slot = u * kThreads + threadIdx.x;
        id[u] = slot < count ? (a.ids ? a.ids[base + slot] : base + slot) : 0u;
      }
      float4 q[kPer], col[kPer];
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        q[u] = make_float4(0.f, 0.f, 0.f, 0.f);  // a lane past the batch's end: defined, never used
        if (u * kThreads + threadIdx.x < count) {
          q[u] = c.pos_rad[id[u]];
          col[u] = c.color[id[u]];
        }
      }
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        const unsigned slot = u * kThreads + threadIdx.x;
        if (slot < count) stage_circle(slot, q[u], col[u]);
      }
    }
    __syncthreads();
    if (kCompose == 2) {
      // Runs of consecutive circles that cover the whole tile, within each group of 32 staged
      // circles, compose into one affine map (a warp-level segmented scan; the maps compose
      // associatively): its last circle carries the run's map (a bit of s_ends), the others are
      // skipped, so each warp visits a run once instead of every circle of it.
      constexpr int kWarps = kThreads / 32;
      const int groups = static_cast<int>((count + 31) / 32);
      for (int g = warp; g < groups; g += kWarps) {
        const int sl = g * 32 + lane;
        bool full = false;
        float4 q = make_float4(0.f, 0.f, 0.f, 0.f), col = q;
        if (sl < static_cast<int>(count)) {
          q = s_stage[sl];
          col = s_stage[kStage + sl];
          full = circle_covers_box(q.x, q.y, q.z, s_tile.x, s_tile.y, s_tile.z, s_tile.w);
        }
        const bool prev_full = __shfl_up_sync(kFullMask, full, 1) && lane > 0;
        const bool next_full = __shfl_down_sync(kFullMask, full, 1) && lane < 31;
        // Segmented inclusive scan: (a_mul, add, alpha, n) of the run so far, earlier circles first.
        float m = full ? q.w : 1.f;
        float bx = full ? col.x : 0.f, by = full ? col.y : 0.f, bz = full ? col.z : 0.f;
        float sa = full ? col.w : 0.f, nn = full ? 1.f : 0.f;
        bool head = !full || !prev_full;
        // A scan over the group's n circles needs the steps d < n only (a group of 3: two), and
        // none when no circle of the group covers the tile.
        const int n_group = __any_sync(kFullMask, full) ? min(32, static_cast<int>(count) - g * 32) : 0;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
          if (d >= n_group) break;  // uniform
          const float pm = __shfl_up_sync(kFullMask, m, d);
          const float px_ = __shfl_up_sync(kFullMask, bx, d), py_ = __shfl_up_sync(kFullMask, by, d);
          const float pz = __shfl_up_sync(kFullMask, bz, d), ps = __shfl_up_sync(kFullMask, sa, d);
          const float pn = __shfl_up_sync(kFullMask, nn, d);
          const bool ph = __shfl_up_sync(kFullMask, head, d);
          if (lane >= d && !head) {
            bx = __fmaf_rn(m, px_, bx);
            by = __fmaf_rn(m, py_, by);
            bz = __fmaf_rn(m, pz, bz);
            m *= pm;
            sa += ps;
            nn += pn;
            head = ph;
          }
        }
        const unsigned open = __ballot_sync(kFullMask, sl < static_cast<int>(count) && !full);
        const unsigned ends = __ballot_sync(kFullMask, full && !next_full);
        if (lane == 0) {
          s_open[g] = open;
          s_ends[g] = ends;
        }
        if (sl < static_cast<int>(count)) {
          if (full && !next_full) {
            s_stage[sl] = make_float4(0.f, nn, 0.f, m);
            s_stage[kStage + sl] = make_float4(bx, by, bz, sa);
          }
        }
      }
      __syncthreads();
    }
    if (!warp_done) {
      const int groups = static_cast<int>((count + 31) / 32);
      for (int gi = 0; gi < groups && !warp_done; ++gi) {
        const int g = kEarly ? groups - 1 - gi : gi;
        // Lane l ballots the group's circle l (early exit) or 31 - l (exact), so that the next
        // circle in walk order is always the mask's highest bit: one FLO a visit.
        const int s_lane = g * 32 + (kEarly ? lane : 31 - lane);
        // Which of these 32 circles may touch the warp's box, and (compose) which cover all of it
        // (circle_covers_box: blend_circle's own test at the farthest corner).
        // compose 2: the group's circles to test and its run ends, in ballot order (bit l: lane l's
        // circle; exact mode's lanes take the group backwards, so the masks are bit-reversed).
        unsigned open = ~0u, runs = 0u;
        if (kCompose == 2) {
          open = kEarly ? s_open[g] : __brev(s_open[g]);
          runs = kEarly ? s_ends[g] : __brev(s_ends[g]);
        }
        // A lane tests its circle unless it covers the whole tile; such a circle touches and covers
        // the warp's box where a run ends there and is skipped inside a run, with no load or test.
        // Every lane loads and tests (a lane with no circle to test reads the group's first slot,
        // which is staged, and drops the result): no branch and no bool kept across one.
        const bool test = kCompose == 2 ? (open >> lane) & 1u : s_lane < static_cast<int>(count);
        const int t_lane = test ? s_lane : g * 32;
        const float4 tq = s_stage[t_lane];
        unsigned mask, full;
        if (kSubBoxes) {
          // warp_box_touched for each row group's 8x4 box: the x part (the same for all four) once.
          const float cull_rr = s_cull[t_lane];
          const float dx = tq.x - fminf(fmaxf(tq.x, bx0), bx1);
          const float dx2 = dx * dx;
          unsigned m_sub[4];
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            // Rows 4q .. 4q + 3 of the box (clipped to the image), a 64th of a row wider at each
            // end (see sub_y). A box below the image clamps to its last row: a few wasted visits at
            // the frame's edge.
            const float y0 = sub_y + static_cast<float>(4 * q) * row_step;
            const float y1 = fminf(sub_y + (static_cast<float>(4 * q + 3) + 2.f / 64.f) * row_step, by1);
            const float dy = tq.y - fminf(fmaxf(tq.y, y0), y1);
            m_sub[q] = __ballot_sync(kFullMask, test && coverage_d2_dx2(dx2, dy) <= cull_rr);
          }
          // The lane's row group's (lane >> 3): two selects by bit, as a chain of three compares
          // compiles to a divergent branch.
          const unsigned lo = lane & 8 ? m_sub[1] : m_sub[0], hi = lane & 8 ? m_sub[3] : m_sub[2];
          mask = lane & 16 ? hi : lo;
          full = 0u;
        } else {
          bool touch = test && warp_box_touched(tq.x, tq.y, s_cull[t_lane], bx0, by0, bx1, by1);
          bool whole = kCompose && touch && circle_covers_box(tq.x, tq.y, tq.z, bx0, by0, bx1, by1);
          if (kCompose == 2 && !test) touch = whole = (runs >> lane) & 1u;
          mask = __ballot_sync(kFullMask, touch);
          full = kCompose ? __ballot_sync(kFullMask, whole) : 0u;
        }
        // The group's slot of bit 0: the visit's address is one multiply-add from it (in bytes:
        // with a float4 pointer, the compiler took two instructions).
        const char* group = reinterpret_cast<const char*>(s_stage + g * 32 + (kEarly ? 0 : 31));
        while (mask) {
          const int bit = 31 - __clz(mask);
          const unsigned bit_m = bit_mask(bit);
          mask ^= bit_m;
          const float4* staged =
              reinterpret_cast<const float4*>(group + (kEarly ? bit : -bit) * static_cast<int>(sizeof(float4)));
          const float4 q = staged[0], col = staged[kStage];
          if (kCompose && (full & bit_m)) {
            // Covers the warp's whole box: no per-pixel test (a whole run of tile-covering
            // circles at once when it ends here: q.y circles, composed already).
            if (kCount) {  // blended untested
              const float n_run = runs & bit_m ? q.y : 1.f;
              blends += static_cast<unsigned long long>(n_run) * p.open_in_image();
            }
            if (kFoldRuns) {  // folded into the pending run
              run.add(q.w, col);
            } else {  // blended at once, each pixel as a covered one
#pragma unroll
              for (int r = 0; r < kRows; ++r) blend_over(p.c[r], q.w, col);
            }
            continue;
          }
          if (kFoldRuns) run.flush(p);
          shade_pixels(q, col);
        }
        if (kEarly) {
          if (kFoldRuns) run.flush(p);  // so the pixels' transmittance is current for the stop test
          warp_done = __all_sync(kFullMask, p.all_done());
        }
      }
      if (kFoldRuns) run.flush(p);
    }
    // Early exit: the whole tile stops when every warp has; else the next batch overwrites the
    // staging arrays (after the last batch nothing reads them again).
    if (kEarly) {
      if (__syncthreads_and(warp_done)) break;
    } else if (defer) {
      if (b < batches) {  // the batch that did not fit, staged from slot 0 now that the walk is done
        __syncthreads();
        const int* totals = s_scan_totals + (b & 1u) * (kDirPer * kThreads / 32);
        const unsigned bits = s_pending[threadIdx.x];
        bool pending[kDirPer];
        unsigned slot[kDirPer];
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) pending[u] = (bits >> u) & 1u;
        ballot_slots<kThreads / 32, kDirPer>(pending, slot, totals);
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) {
          if (!pending[u]) continue;
          const unsigned k = base + u * kThreads + threadIdx.x;
          stage_circle(slot[u], c.pos_rad[k], c.color[k]);
        }
        staged = 0;
#pragma unroll
        for (int i = 0; i < kDirPer * kThreads / 32; ++i) staged += static_cast<unsigned>(totals[i]);
      }
    } else if (b + 1 < batches) {
      __syncthreads();
    }
  }

  if (kCount) add_work(a, tests, blends);
  bool settled = true;
  if (kEarly) settled = __syncthreads_and(p.all_done());
  record_tile_cycles(f, start);
  // Exact frames that compose runs or cull per row group, not counting: the pixels' places again,
  // from the block and lane indices. The walk does not read them, and holding p.i, p.j and p.in
  // across it would spill the four-pixel kernels and take registers that culling per row group
  // needs. Early exit and counting read them in the walk, so they keep them.
  constexpr bool kRecompute = !kEarly && !kCount && (kCompose != 0 || kSubBoxes);
  const int out_i = kRecompute ? txy.x * TILE + (warp % kWarpsX) * 8 + (lane & 7) : p.i;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int j = kRecompute ? txy.y * TILE + (warp / kWarpsX) * kBoxH + (lane >> 3) * kRows + r
                             : p.j[r];
    if (kRecompute ? out_i >= v.width || j >= v.height : !p.in[r]) continue;
    const std::size_t at = static_cast<std::size_t>(j) * v.width + out_i;
    if (!kEarly) {
      f.image[at] = make_float4(p.c[r].x, p.c[r].y, p.c[r].z, p.c[r].w);
    } else if (settled || a.last) {
      // Final: what came through composited over the background; alpha sums like cpu-ref's.
      const float4 bg = s_bg[j - txy.y * TILE];
      f.image[at] = make_float4(__fmaf_rn(p.t[r], bg.x, p.c[r].x), __fmaf_rn(p.t[r], bg.y, p.c[r].y),
                                __fmaf_rn(p.t[r], bg.z, p.c[r].z), p.c[r].w + bg.w);
    } else {
      f.image[at] = make_float4(p.c[r].x, p.c[r].y, p.c[r].z, p.c[r].w);
      a.transmittance[at] = p.t[r];
    }
  }
  if (kEarly && threadIdx.x == 0) {
    if (settled) a.settled[tile] = 1;
    else if (!a.last) atomicAdd(&a.stats->unsettled, 1ull);
  }
}

}  // namespace circles::binned
