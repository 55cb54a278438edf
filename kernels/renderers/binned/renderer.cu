// cuda-tile-binned: the fast renderer, the pipeline and its plan. Two strategies, chosen per
// frame (binned_strategy() in kernels/renderers/config.h says which and why):
//  - direct (few circles, or in early exit a few big flat ones): one shade kernel; each block
//    walks all N circles and its warps cull them against their own pixels. No binning, so none
//    of its stages' fixed cost.
//  - binned: circles are binned into tiles (32x32 by default) before shading, so each tile reads
//    only the circles that touch it. Per chunk of circles (all of them unless their pairs exceed
//    the pair budget; then halved until they fit, so scratch memory is bounded):
//      by counting, where it fits (count_path.cuh): count each block of circles' tiles into a
//      tile x block matrix -> exclusive scan of the matrix -> scatter each block's ids, sorted by
//      tile, to their slots, and the tile ranges -> shade;
//      else by sorting (sort_path.cuh): count each circle's tiles (64-bit total, read by the
//      host) -> exclusive scan -> duplicate (tile, circle) pairs -> CUB's stable radix sort by
//      tile -> tile ranges -> shade.
//    A frame's first chunk binned by counting goes ahead of its count: the scatter checks the
//    count on the device and the host reads it after the shade, so the frame does not wait for
//    the host unless the chunk did not fit.
// The shade (a block a tile): the warps' walk (shade_walk.cuh), the eight-pixel walk for binned
// exact frames of small flat circles (shade_rows8.cuh), or tiny circles' masks (shade_tiny.cuh);
// shade_common.cuh holds what they share, shade_table.cu lists every kernel by the variant a
// frame's plan asks for (plan.h's ShadeVariant). Every exact frame blends each circle in order with
// cpu-ref's test and blend (one FMA a channel), so it is cpu-ref's picture to the bit.
// Early exit (--early-exit) walks the chunks from the last circle back (each twice the one
// before), composites front to back, and stops a pixel once what lies below can move no 8-bit
// channel, a tile once its pixels have, binning the next chunk only into the tiles still open.
// The scan is one of the device-wide exclusive scans of kernels/primitives/device_scan.h
// (`--scan`; the decoupled look-back by default), the same the kernel lab's scan ladder times.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/renderers/config.h"
#include "kernels/renderers/base.cuh"
#include "kernels/renderers/cuda_renderers.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/scratch.h"
#include "kernels/primitives/device_scan.h"
#include "kernels/primitives/warp.cuh"
#include "kernels/renderers/tile_common.cuh"
#include "kernels/renderers/binned/geometry.cuh"
#include "kernels/renderers/binned/chunks.h"
#include "kernels/renderers/binned/plan.h"
#include "kernels/renderers/binned/sort_path.cuh"
#include "kernels/renderers/binned/count_path.cuh"
#include "kernels/renderers/binned/shade_common.cuh"
#include "kernels/renderers/binned/shade_table.cuh"
#include "render/modes.h"
#include "render/progress.h"
#include "render/renderer.h"

namespace circles {

using namespace binned;  // the stages' kernels and their arguments

namespace {

// The pairs estimate_pairs counts on the host, for circles that are only on the device: each
// circle's bounding-box tiles, grid-stride over the circles, summed per block, one atomic a block
// (an atomic a warp, 31K on one address for 1M circles, took longer than the reads).
constexpr int kEstimateThreads = 256;
__global__ void __launch_bounds__(kEstimateThreads)
    estimate_pairs_kernel(const float4* pos, int n, View v, int tile_shift, unsigned long long* sum) {
  __shared__ unsigned long long s_warp[kEstimateThreads / 32];
  unsigned long long pairs = 0;
  for (int k = blockIdx.x * kEstimateThreads + threadIdx.x; k < n; k += gridDim.x * kEstimateThreads) {
    const float4 p = pos[k];
    const TileRect t = tile_rect(p.x, p.y, p.w, v, tile_shift);
    if (t.x1 >= t.x0) pairs += static_cast<unsigned long long>(t.x1 - t.x0 + 1) * (t.y1 - t.y0 + 1);
  }
  for (int o = 16; o > 0; o /= 2) pairs += __shfl_down_sync(kFullMask, pairs, o);
  if ((threadIdx.x & 31) == 0) s_warp[threadIdx.x >> 5] = pairs;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block = 0;
    for (int w = 0; w < kEstimateThreads / 32; ++w) block += s_warp[w];
    if (block) atomicAdd(sum, block);
  }
}

class CudaTileBinnedRenderer final : public CudaRenderer {
 public:
  CudaTileBinnedRenderer(int tile, DeviceScan scan, bool early, bool half_colour, const BinnedChoices& forced)
      : tile_(tile), scan_(scan), asked_{tile, early, half_colour, forced} {
    if (tile_ != kSmallTile && tile_ != kLargeTile)  // the registry lets only these through
      throw std::invalid_argument("cuda-tile-binned: tile " + std::to_string(tile_) + ", not 16 or 32");
    host_stats_buf_.reserve(1);
    host_stats_ = host_stats_buf_.get();
    *host_stats_ = ChunkStats{0, 0};
    // Choices forced (RendererSettings::binned; tests and experiments), each checked by the
    // registry's resolve_settings.
    if (forced.max_pairs) limit_ = forced.max_pairs;  // a smaller pair budget forces chunking
    sort_forced_ = forced.sort;
    if (forced.block) {  // a power of two from 32 to 1024, rounded down, as the count's shift needs
      forced_block_ = 32;
      while (forced_block_ < kBinMaxCircles && 2 * forced_block_ <= forced.block) forced_block_ *= 2;
    }
    forced_few_ = forced.few_scatter;
  }
  void load(const Scene& scene, int width, int height) override {
    const std::size_t n = scene.circles.size();
    facts_ = scene_facts(scene, width, height);
    const unsigned long long estimate = estimate_pairs(scene, width, height);
    const LoadPlan plan = plan_and_check(n, estimate, width, height);
    CudaRenderer::load_unchecked(scene, width, height);
    finish_load(plan, n, estimate);
  }

  // Circles on the GPU already: gathered and checked there (the memory for the circles checked
  // first), the plan's facts and the pairs estimated from them there, then the rest checked.
  bool load_device(const Scene& settings, const CircleArrays& arrays, const void* stream, int width,
                   int height) override {
    const std::size_t n = circle_count(arrays);
    check_device_memory(n, width, height, 0, "cuda-tile-binned/" + std::to_string(tile_), "its circles", 0);
    // One wait: for the gather and the pair estimate behind it (which reads zeros for a bad
    // circle, and is not used then).
    begin_gather_device(arrays, n, settings.shading, stream, radius_sample_step(n));
    begin_estimate_pairs_device(n, width, height);
    DeviceInputFacts d = end_gather_device(arrays);
    facts_ = scene_facts(settings, n, std::move(d.radius_sample), d.modes, width, height);
    const unsigned long long estimate = n ? *pair_sum_host_.get() : 0;
    const LoadPlan plan = plan_and_check(n, estimate, width, height);
    CudaRenderer::load_settings(settings, n, width, height);
    finish_load(plan, n, estimate);
    return true;
  }

  // The plan of this scene's frames (plan.h): the mode, and the kernels' choices that depend on
  // the circles' size only; returned once the memory check has passed.
  LoadPlan plan_and_check(std::size_t n, unsigned long long estimate, int width, int height) {
    const LoadPlan plan = plan_load(facts_, width, height, asked_);
    const double tiles = std::ceil(width / double(tile_)) * std::ceil(height / double(tile_));
    const double held = 4.0 * (keys_.size() + ids_.size() + keys_alt_.size() + ids_alt_.size()) +
                        2.0 * (keys16_.size() + keys16_alt_.size()) +
                        4.0 * (counts_.size() + offsets_.size() + matrix_.size() + matrix_offsets_.size()) +
                        8.0 * ranges_.size() + temp_.size() +
                        4.0 * transmittance_.size() + settled_.size();
    // The pair budget (never fewer than one circle's worst case, every tile): per pair the keys
    // and ids, double-buffered for the sort, and the sort's temporaries, about 20 bytes.
    budget_ = static_cast<unsigned long long>(std::max(tiles, static_cast<double>(pair_budget(estimate, held))));
    const double pairs_bytes = kPairBytes * static_cast<double>(std::min<unsigned long long>(budget_, estimate));
    // Binning by counting: a matrix of tiles x blocks of circles and its scan.
    const double matrix_bytes =
        tiles <= kBinMaxTiles ? 8.0 * std::min<double>(kBinMaxMatrix, tiles * std::ceil(n / 32.0)) : 0.0;
    // Per circle a count and an offset (8 B) and at most 4 B of the scan's temporaries; per tile
    // a range (8 B) and a settled flag; early exit a transmittance per pixel.
    const double extra =
        pairs_bytes + matrix_bytes + 12.0 * n + 9.0 * (tiles + 1) +
        (plan.early ? 4.0 * width * height : 0.0);
    check_device_memory(n, width, height, extra, "cuda-tile-binned/" + std::to_string(tile_),
                        "pair budget " + std::to_string(budget_), held);
    return plan;
  }

  void finish_load(const LoadPlan& plan, std::size_t n, unsigned long long estimate) {
    reset_device_memory_peak();
    load_ = plan;
    chunk_ = static_cast<int>(n);
    // Binning by counting sizes its blocks of circles from the pairs a circle has (the bounding
    // boxes' tiles, an upper bound, until a frame has counted them).
    pairs_per_circle_ = n ? static_cast<double>(estimate) / static_cast<double>(n) : 0.0;
  }

  std::string plan() const override { return plan_; }
  Mode mode() const override { return frame_.mode; }
  bool count_work(bool on) override {
    counting_ = on;
    return true;
  }
  bool work(Workload* out) override {
    if (!have_work_) return false;
    unsigned long long w[2] = {0, 0};
    CUDA_CHECK(cudaMemcpyAsync(w, work_.get(), sizeof w, cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    *out = last_work_;
    out->pixel_tests = w[0];
    out->blends = w[1];
    return true;
  }
  std::uint64_t device_memory_peak() const override { return circles::device_memory_peak(); }

 private:
  // The chunks' pair budget when nothing smaller is asked for: 2^26 pairs (~1.3 GB of scratch),
  // which any GPU that holds such a scene has room for, and up to 2^28 (~5.4 GB) where half the
  // free memory holds them, so that 100M circles bin in one chunk (fewer counts, sorts and
  // passes of the shade over the image).
  static constexpr unsigned long long kMaxChunkPairs = 1ull << 26;
  static constexpr unsigned long long kMaxChunkPairsRoomy = 1ull << 28;
  static constexpr double kPairBytes = 20.0;

  // The pair budget of a scene whose first frame has at most `estimate` pairs, the renderer
  // holding `held` bytes of scratch already: the driver is asked for its free memory only when
  // the budget would pass kMaxChunkPairs.
  unsigned long long pair_budget(unsigned long long estimate, double held) const {
    const unsigned long long asked = std::min(limit_, kMaxChunkPairsRoomy);
    if (std::min(asked, estimate) <= kMaxChunkPairs) return std::min(asked, kMaxChunkPairs);
    const double room = 0.5 * available_device_memory(held) / kPairBytes;
    return std::max(kMaxChunkPairs, std::min(asked, static_cast<unsigned long long>(room)));
  }

  // The pairs of the first frame's circles (the host's walk; for the memory check only).
  unsigned long long estimate_pairs(const Scene& scene, int width, int height) const {
    const View v = make_view(width, height);
    unsigned long long pairs = 0;
    for (const Circle& c : scene.circles) {
      const TileRect t = tile_rect(c.x, c.y, c.radius, v, tile_shift());
      if (t.x1 >= t.x0) pairs += static_cast<unsigned long long>(t.x1 - t.x0 + 1) * (t.y1 - t.y0 + 1);
    }
    return pairs;
  }

  // estimate_pairs of the circles gathered on the GPU (the same tile_rect on the same floats),
  // enqueued behind the gather; the sum lands in pair_sum_host_ once the stream has got there.
  void begin_estimate_pairs_device(std::size_t n, int width, int height) {
    if (n == 0) return;
    pair_sum_.reserve(1);
    pair_sum_host_.reserve(1);
    CUDA_CHECK(cudaMemsetAsync(pair_sum_.get(), 0, sizeof(unsigned long long), stream()));
    const std::size_t blocks = std::min<std::size_t>((n + kEstimateThreads - 1) / kEstimateThreads, 8 * sm_count());
    estimate_pairs_kernel<<<static_cast<unsigned>(blocks), kEstimateThreads, 0, stream()>>>(
        circles().pos_rad, static_cast<int>(n), make_view(width, height), tile_shift(), pair_sum_.get());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(pair_sum_host_.get(), pair_sum_.get(), sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, stream()));
  }

  // The shade of a direct frame or a binned chunk: the variant the frame's plan asks for, looked
  // up in the shade table (shade_table.cu), launched dependent on the kernel before it.
  void shade(dim3 grid, const FrameParams& f, const ShadeArgs& a) {
    const ShadeVariant v = shade_variant(frame_, load_, shading(), tile_, counting_, a.ranges != nullptr,
                                         a.step.kind != Animation::None);
    if (!shade_ || !(shade_->variant == v)) shade_ = &shade_kernel_for(v);  // the last frame's, mostly
    launch_dependent(shade_->kernel, grid, shade_->threads, 0, stream(), circles(), f, a);
  }

  // A frame: its plan, then either one shade over every circle (direct) or, chunk by chunk,
  // count -> bin (by counting, or by sorting) -> shade. Each stage below is one member function,
  // each launch in its stage's file (sort_path.cuh, count_path.cuh, shade_table.cu).
  void draw() override {
    Frame fr = begin_frame();
    frame_ = plan_frame(load_, facts_, asked_, fr.tiles, counting_, animation());
    if (frame_.direct) return draw_direct(fr);
    // The animation step: in the first count when that walks every circle (exact frames whose
    // pairs fit one chunk), else a kernel of its own now.
    FusedStep step;
    if (!load_.early && chunk_ >= fr.c.count) step = take_step(true);
    else flush_step();
    const bool step_fused = step.kind != Animation::None;
    if (load_.early) CUDA_CHECK(cudaMemsetAsync(settled_.get(), 0, fr.tiles, stream()));
    // The chunks (ChunkWalk, chunks.h): exact mode walks the circles forward, early exit backward
    // from the last; a chunk whose pairs exceed the budget is halved until they fit (chunk_
    // remembers the size that fit for the next frame).
    const int n = fr.c.count;
    ChunkWalk walk(n, load_.early, load_.early ? load_.first_early_chunk : chunk_, fr.tiles);
    Tally tally;
    while (walk.next()) {
      // Between chunks a long frame can be stopped (any animation step is done by now, in place).
      if (walk.passes() > 1) stop_if_interrupted();
      const ChunkArgs k = chunk_args(fr, walk, step);
      const int per_block = count_chunk(k);
      step = FusedStep{};  // done: a count again (a halved chunk) must not move the circles twice
      // The frame's first chunk binned by counting goes ahead of its count where the ids buffer
      // the last frames grew is there; the others wait for their count.
      const bool ahead = per_block && walk.first() && walk.passes() == 1 && ids_.size() > 0;
      const Binned b = ahead ? bin_ahead(fr, k, walk, per_block) : bin_waiting(fr, k, walk, per_block, &tally);
      if (b.next == Next::Again) continue;
      if (b.next == Next::Stop) break;
      tally.add(b, per_block, k.hi - k.lo);
      walk.done();
      // A frame of many chunks (100M deep circles) takes seconds: its share done, on the
      // progress line where there is one (render/progress.h; a no-op otherwise).
      if (n > 0) progress_within(static_cast<double>(load_.early ? n - k.lo : k.hi) / n);
      if (b.ahead && load_.early && host_stats_->unsettled == 0) break;  // read after the shade: all stopped
    }
    last_work_.circles_binned = tally.circles;
    last_work_.pairs = tally.pairs;
    last_work_.chunks = static_cast<std::uint64_t>(tally.chunks);
    last_work_.pair_budget = budget_;
    plan_ = binned_plan_text(tally, step_fused);
  }

  // What every stage of one frame takes.
  struct Frame {
    DeviceCircles c;
    FrameParams f;
    int tiles_x = 0;
    unsigned tiles = 0;
    dim3 grid;
    ShadeArgs a;  // the shade's arguments; a binned chunk's ranges and ids are added per chunk
  };
  // How a chunk's binning ended: binned (shade done) with `total` pairs, again (the same chunk,
  // counted anew), or stop (every tile settled).
  enum class Next { Binned, Again, Stop };
  struct Binned {
    Next next = Next::Binned;
    unsigned long long total = 0;
    bool counting = false;  // binned by counting (else sorted)
    bool ahead = false;     // went ahead of its count
  };
  // The binned frame so far, for the plan's text and the counted work.
  struct Tally {
    int chunks = 0;
    unsigned long long pairs = 0;
    std::uint64_t circles = 0;
    std::string sort_why;    // why a chunk that could bin by counting was sorted
    int blocks = 0;          // circles a block where chunks were binned by counting
    bool sorted = false;     // whether any chunk was sorted
    bool ahead = false;      // whether the first chunk went ahead of its count
    void add(const Binned& b, int per_block, int circles_in_chunk) {
      if (b.counting) blocks = per_block;
      else sorted = true;
      ahead = ahead || b.ahead;
      ++chunks;
      circles += static_cast<std::uint64_t>(circles_in_chunk);
      pairs += b.total;
    }
  };

  // The frame's grid of tiles, the work counters and early exit's buffers.
  Frame begin_frame() {
    Frame fr;
    fr.c = circles();
    fr.f = frame_params();
    fr.tiles_x = (fr.f.view.width + tile_ - 1) / tile_;
    const int tiles_y = (fr.f.view.height + tile_ - 1) / tile_;
    fr.tiles = static_cast<unsigned>(fr.tiles_x * tiles_y);
    fr.grid = dim3(fr.tiles_x, tiles_y);
    last_work_ = Workload{};
    last_work_.circles = static_cast<std::uint64_t>(fr.c.count);
    if (counting_) {
      work_.reserve(2);
      CUDA_CHECK(cudaMemsetAsync(work_.get(), 0, 2 * sizeof(unsigned long long), stream()));
      fr.a.work = work_.get();
    }
    have_work_ = counting_;
    if (load_.early) {
      transmittance_.reserve(static_cast<std::size_t>(fr.f.view.width) * fr.f.view.height);
      settled_.reserve(fr.tiles);
      fr.a.transmittance = transmittance_.get();
      fr.a.settled = settled_.get();
    }
    stats_.reserve(1);
    fr.a.stats = stats_.get();
    return fr;
  }

  // A direct frame: one shade kernel walks every circle in every tile.
  void draw_direct(Frame& fr) {
    stage_begin("clear+shade");
    fr.a.lo = 0;
    fr.a.hi = fr.c.count;
    // The shade kernel moves the circles where it has a kernel for it (it reads the old state
    // and writes the new aside); elsewhere the step takes a kernel of its own.
    if (frame_.fused_step) fr.a.step = take_step(false);
    else flush_step();
    shade(fr.grid, fr.f, fr.a);
    stage("clear+shade");
    plan_ = load_.early_note + "direct: " + frame_.why + frame_.kernels_text(load_, asked_) +
            (fr.a.step.kind != Animation::None ? "; the animation step done in the shade kernel" : "");
  }

  ChunkArgs chunk_args(const Frame& fr, const ChunkWalk& walk, const FusedStep& step) {
    ChunkArgs k;
    k.c = fr.c;
    k.lo = walk.lo();
    k.hi = walk.hi();
    k.v = fr.f.view;
    k.tile = tile_;
    k.tiles_x = fr.tiles_x;
    k.tiles = static_cast<int>(fr.tiles);
    counts_.reserve(std::max(k.hi - k.lo, 1));
    k.counts = counts_.get();
    k.stats = stats_.get();
    k.settled = load_.early && !walk.first() ? settled_.get() : nullptr;
    k.step = step;
    return k;
  }

  // The "count" stage: binning by counting where its matrix and blocks fit (returns the circles a
  // block), else each circle's tiles for the sort (returns 0).
  int count_chunk(const ChunkArgs& k) {
    stage_begin("count");
    CUDA_CHECK(cudaMemsetAsync(stats_.get(), 0, offsetof(ChunkStats, unsettled), stream()));
    const int per_block = k.hi > k.lo ? bin_block_size(k.hi - k.lo, static_cast<unsigned>(k.tiles)) : 0;
    if (per_block) {
      matrix_.reserve(static_cast<std::size_t>((k.hi - k.lo + per_block - 1) / per_block) * k.tiles);
      launch_count_tile_blocks(k, per_block, sm_count(), matrix_.get(), stream());
    } else if (k.hi > k.lo) {
      launch_count_tiles(k, sm_count(), stream());
    }
    return per_block;
  }

  // Ahead: the frame's first chunk, binned by counting into the ids buffer the last frames grew,
  // goes on to its scan, scatter and shade without waiting for the count; the scatter checks the
  // count on the device (too many pairs for the buffer, or a block's for the scatter: it bins
  // nothing), and the host reads it once, after the shade, and does the chunk again the waiting
  // way if it did not fit. No wait inside the frame.
  Binned bin_ahead(Frame& fr, const ChunkArgs& k, const ChunkWalk& walk, int per_block) {
    stage("count", true);
    bin_by_counting(k, per_block);
    fr.a.first = true;
    fr.a.last = walk.last();
    shade_chunk(fr);
    read_stats();
    Binned b;
    b.total = host_stats_->total;
    b.counting = true;
    const unsigned long long worst = host_stats_->max_block;
    pairs_per_circle_ = static_cast<double>(worst) / std::min(per_block, k.hi - k.lo);
    if (b.total > ids_.size() || worst > static_cast<unsigned long long>(scatter_capacity_)) {
      if (load_.early) CUDA_CHECK(cudaMemsetAsync(settled_.get(), 0, fr.tiles, stream()));
      // The heat map's cycles so far are that shade's, which drew nothing: the frame's count
      // starts again with the chunk (render() cleared them for this frame).
      if (fr.f.tile_cycles)
        CUDA_CHECK(cudaMemsetAsync(fr.f.tile_cycles, 0, fr.tiles * sizeof *fr.f.tile_cycles, stream()));
      b.next = Next::Again;  // did not fit: the same chunk again, waiting for its count
      return b;
    }
    b.ahead = true;
    return b;
  }

  // The one wait of a chunk: the host reads the count (the sort needs its exact size), the chunk
  // walk decides, and the chunk is binned (by counting where its worst block fits the scatter,
  // else sorted) and shaded.
  Binned bin_waiting(Frame& fr, const ChunkArgs& k, ChunkWalk& walk, int per_block, Tally* tally) {
    read_stats();
    stage("count");
    Binned b;
    b.total = host_stats_->total;
    b.counting = per_block > 0;
    // Early exit's open tiles are those after the last shade.
    const ChunkWalk::Verdict verdict = walk.counted(b.total, budget_, host_stats_->unsettled);
    if (verdict == ChunkWalk::Verdict::Stop) b.next = Next::Stop;  // every tile has stopped
    if (verdict == ChunkWalk::Verdict::Halved && !load_.early) chunk_ = walk.size();
    if (verdict == ChunkWalk::Verdict::Halved || verdict == ChunkWalk::Verdict::Widened) b.next = Next::Again;
    if (b.next != Next::Binned) return b;  // stopped, or halved or widened: count it again
    const int n = k.hi - k.lo;
    if (b.counting) {
      // The most pairs of a block of circles: over the scatter's capacity, this chunk takes the
      // sort (its per-circle counts are there too) and later frames smaller blocks.
      const unsigned long long worst = host_stats_->max_block;
      if (walk.first()) pairs_per_circle_ = static_cast<double>(worst) / std::min(per_block, n);
      if (worst > static_cast<unsigned long long>(kBinCapacity)) {
        b.counting = false;
        char w[160];
        std::snprintf(w, sizeof w,
                      "; a block of %d circles had %llu pairs, over the %d that binning by counting takes: sorted",
                      per_block, worst, kBinCapacity);
        tally->sort_why = w;
      }
    } else if (walk.first() && n > 0) {
      // The mean, not the worst block: never lowered here, so a scene whose worst blocks did not
      // fit does not try again every other frame.
      pairs_per_circle_ = std::max(pairs_per_circle_, static_cast<double>(b.total) / n);
    }
    if (b.total > 0) {
      // Room for a few more pairs next frame, so that its first chunk can go ahead.
      ids_.reserve(std::min<unsigned long long>(budget_, b.total + b.total / 8));
      if (b.counting) bin_by_counting(k, per_block, host_stats_->max_block);
      else bin_by_sorting(k, static_cast<unsigned>(b.total));
    }
    fr.a.first = walk.first();
    fr.a.last = walk.last();
    if (b.total > 0 || walk.first() || walk.last()) shade_chunk(fr, b.total == 0);
    return b;
  }

  // The chunk's stats on the host (a wait for the stream).
  void read_stats() {
    CUDA_CHECK(cudaMemcpyAsync(host_stats_, stats_.get(), sizeof *host_stats_, cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  // The binned frame's plan text: chunks, pairs, how they were binned, the kernels.
  std::string binned_plan_text(const Tally& t, bool step_fused) const {
    char buf[200];
    std::snprintf(buf, sizeof buf, "binned%s: %s; %d chunk%s, %llu pairs", load_.early ? " (early exit)" : "",
                  frame_.why.c_str(), t.chunks, t.chunks == 1 ? "" : "s", t.pairs);
    std::string binning = t.sort_why;
    if (t.blocks)
      binning = "; binned by counting (blocks of " + std::to_string(t.blocks) + " circles, a block's pairs sorted in " +
                std::to_string(scatter_capacity_) + " slots)" + binning;
    else if (binning.empty() && t.sorted) binning = "; sorted by tile (CUB radix sort)";
    if (t.ahead) binning += "; the first chunk shaded without waiting for its count";
    return load_.early_note + buf + binning + frame_.kernels_text(load_, asked_) +
           (step_fused ? "; the animation step done in the first count" : "");
  }

  // The shade of a binned chunk (`empty`: no pairs, so no ranges were written).
  void shade_chunk(Frame& fr, bool empty = false) {
    stage_begin("clear+shade");
    ranges_.reserve(fr.tiles);
    if (empty) CUDA_CHECK(cudaMemsetAsync(ranges_.get(), 0, fr.tiles * sizeof(uint2), stream()));
    fr.a.ranges = ranges_.get();
    fr.a.ids = ids_sorted_;
    // The unsettled tiles the host reads with the next chunk's total are this shade's.
    if (load_.early) CUDA_CHECK(cudaMemsetAsync(&stats_.get()->unsettled, 0, sizeof(unsigned long long), stream()));
    shade(fr.grid, fr.f, fr.a);
    stage("clear+shade");
  }

  // Circles a block for binning a chunk of `circles` by counting, or 0 where it does not fit
  // (too many tiles for the shared histogram, a matrix over kBinMaxMatrix, circles with too many
  // pairs even 32 to a block) or --binned-sort. As many as keep a block's pairs
  // (pairs_per_circle_, the worst block's last time) within three quarters of the scatter's
  // capacity and leave two blocks an SM.
  int bin_block_size(int circles, unsigned tiles) const {
    constexpr double fill = 0.75 * kBinCapacity;
    if (sort_forced_ || tiles > static_cast<unsigned>(kBinMaxTiles)) return 0;
    if (forced_block_) return static_cast<long long>((circles + forced_block_ - 1) / forced_block_) * tiles <= kBinMaxMatrix ? forced_block_ : 0;
    if (32 * pairs_per_circle_ > fill) return 0;
    int per = kBinMaxCircles;
    while (per > 32 && (per * pairs_per_circle_ > fill || (circles + per - 1) / per < 2 * sm_count())) per /= 2;
    const long long blocks = (circles + per - 1) / per;
    return blocks * tiles <= kBinMaxMatrix ? per : 0;
  }

  // The "scan" stage: the exclusive scan of n counts that the count kernel just wrote (`--scan`,
  // launched dependent on that kernel: the look-back scan overlaps its tail) into out.
  void scan(const DeviceBuffer<int>& in, DeviceBuffer<int>& out, std::size_t n) {
    stage_begin("scan");
    out.reserve(std::max<std::size_t>(n, 1));
    device_exclusive_sum(scan_, in.get(), out.get(), n, scratch_, stream(), /*dependent=*/true);
    stage("scan", true);
  }

  // Binning by counting for the chunk counted in blocks of per_block circles: the scan over its
  // matrix, then the scatter of its pairs' ids (into ids_, as they fit: the scatter checks the
  // count's total against its size) and the tile ranges.
  // `worst`: the chunk's worst block's pairs where the host has read them (0 where it went ahead).
  void bin_by_counting(const ChunkArgs& k, int per_block, unsigned long long worst = 0) {
    const int n = k.hi - k.lo, blocks = (n + per_block - 1) / per_block;
    scan(matrix_, matrix_offsets_, static_cast<std::size_t>(blocks) * k.tiles);
    stage_begin("scatter");
    ranges_.reserve(k.tiles);
    // The smaller sort where the worst block's pairs fit it: known, or expected from the last
    // frame's worst block with a tenth to spare (a block over it makes the chunk go again, the
    // waiting way, with the sort that fits).
    const double expect = worst ? static_cast<double>(worst) : pairs_per_circle_ * std::min(per_block, n);
    const bool few = worst ? expect <= kBinCapacityFew : forced_few_ || expect <= 0.9 * kBinCapacityFew;
    scatter_capacity_ = few ? kBinCapacityFew : kBinCapacity;
    launch_scatter(k, per_block, few, matrix_offsets_.get(), ids_.size(), ids_.get(), ranges_.get(), stream());
    ids_sorted_ = ids_.get();
    stage("scatter", true);
  }

  // Binning by sorting the chunk's `total` pairs (they fit the budget): scan, duplicate, sort,
  // ranges. Tile keys fit 16 bits up to 65,536 tiles (4096x4096 at tile 16): the sort then moves
  // 6 bytes a pair each pass instead of 8.
  void bin_by_sorting(const ChunkArgs& k, unsigned total) {
    scan(counts_, offsets_, static_cast<std::size_t>(k.hi - k.lo));
    if (k.tiles <= 65536) sort_pairs(k, total, keys16_, keys16_alt_);
    else sort_pairs(k, total, keys_, keys_alt_);
  }

  // Duplicate, sort and ranges with tile keys of type Key.
  template <class Key>
  void sort_pairs(const ChunkArgs& k, unsigned total, DeviceBuffer<Key>& keys_buf, DeviceBuffer<Key>& keys_alt_buf) {
    stage_begin("duplicate");
    keys_buf.reserve(total);
    ids_.reserve(total);
    keys_alt_buf.reserve(total);
    ids_alt_.reserve(total);
    launch_duplicate(k, offsets_.get(), total, keys_buf.get(), ids_.get(), stream());
    stage("duplicate", true);
    stage_begin("sort");
    cub::DoubleBuffer<Key> keys(keys_buf.get(), keys_alt_buf.get());
    cub::DoubleBuffer<unsigned> ids(ids_.get(), ids_alt_.get());
    sort_by_tile(keys, ids, total, static_cast<unsigned>(k.tiles), temp_, stream());
    stage("sort", true);
    stage_begin("ranges");
    ranges_.reserve(k.tiles);
    launch_tile_ranges(keys.Current(), total, static_cast<unsigned>(k.tiles), ranges_.get(), stream());
    ids_sorted_ = ids.Current();
    stage("ranges", true);
  }

  int shade_tile() const override { return tile_; }
  // Each frame's animation step runs inside the direct shade kernel or the first count.
  bool fuses_steps() const override { return true; }
  const int tile_;
  int tile_shift() const { return tile_ == kLargeTile ? 5 : 4; }  // tile_rect's: tile_ == 1 << tile_shift()
  const DeviceScan scan_;  // `--scan`
  // The plan (plan.h): what was asked for, the loaded scene's facts, the load's and the last
  // frame's decisions.
  const Asked asked_;
  SceneFacts facts_;
  DeviceBuffer<unsigned long long> pair_sum_;  // begin_estimate_pairs_device's sum
  PinnedBuffer<unsigned long long> pair_sum_host_;
  LoadPlan load_;
  FramePlan frame_;
  const ShadeKernel* shade_ = nullptr;  // the shade table's entry the last shade took
  Scratch scratch_;      // the scan's temporaries; grow to the largest chunk, then stay
  unsigned long long limit_ = ~0ull;
  unsigned long long budget_ = kMaxChunkPairs;
  int chunk_ = 0;  // exact mode: circles per chunk that fit the budget last time
  std::string plan_;
  bool counting_ = false, have_work_ = false;
  Workload last_work_;
  DeviceBuffer<unsigned long long> work_;
  DeviceBuffer<unsigned> keys_, ids_, keys_alt_, ids_alt_;
  DeviceBuffer<unsigned short> keys16_, keys16_alt_;  // the keys when the tiles fit 16 bits
  const unsigned* ids_sorted_ = nullptr;
  DeviceBuffer<int> counts_, offsets_;
  DeviceBuffer<int> matrix_, matrix_offsets_;  // binning by counting: tiles x blocks, and scanned
  double pairs_per_circle_ = 0;  // the worst block's last time (binning by counting sizes blocks by it)
  int scatter_capacity_ = kBinCapacity;  // the last scatter's pairs a block (its sort's slots)
  bool forced_few_ = false;               // BinnedChoices::few_scatter
  bool sort_forced_ = false;     // BinnedChoices::sort
  int forced_block_ = 0;         // BinnedChoices::block
  DeviceBuffer<ChunkStats> stats_;
  DeviceBuffer<uint2> ranges_;
  DeviceBuffer<unsigned char> temp_, settled_;
  DeviceBuffer<float> transmittance_;
  PinnedBuffer<ChunkStats> host_stats_buf_;
  ChunkStats* host_stats_ = nullptr;  // host_stats_buf_'s one element
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_tile_binned_renderer(const RendererSettings& s) {
  DeviceScan scan = kDeviceScans.front();  // the look-back
  if (!s.scan.empty() && !parse_device_scan(s.scan, &scan))
    throw std::invalid_argument("cuda-tile-binned: '" + s.scan + "' is not a device-wide scan");
  return std::make_unique<CudaTileBinnedRenderer>(s.tile_size, scan, s.early_exit, s.half_colour, s.binned);
}

}  // namespace circles
