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

int bits_for(unsigned n) {
  int b = 0;
  while (b < 32 && (1ull << b) < n) ++b;
  return b;
}

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
    const ShadeKernel& k = shade_kernel_for(v);
    launch_dependent(k.kernel, grid, k.threads, 0, stream(), circles(), f, a);
  }

  void draw() override {
    const DeviceCircles c = circles();
    const FrameParams f = frame_params();
    const int tiles_x = (f.view.width + tile_ - 1) / tile_;
    const int tiles_y = (f.view.height + tile_ - 1) / tile_;
    const unsigned tiles = static_cast<unsigned>(tiles_x * tiles_y);
    const dim3 grid(tiles_x, tiles_y);
    const int n = c.count;
    last_work_ = Workload{};
    last_work_.circles = static_cast<std::uint64_t>(n);
    ShadeArgs a;
    if (counting_) {
      work_.reserve(2);
      CUDA_CHECK(cudaMemsetAsync(work_.get(), 0, 2 * sizeof(unsigned long long), stream()));
      a.work = work_.get();
    }
    have_work_ = counting_;
    if (load_.early) {
      transmittance_.reserve(static_cast<std::size_t>(f.view.width) * f.view.height);
      settled_.reserve(tiles);
      a.transmittance = transmittance_.get();
      a.settled = settled_.get();
    }
    stats_.reserve(1);
    a.stats = stats_.get();

    // The frame's plan (plan.h): direct or binned, which shade kernel, its mode.
    frame_ = plan_frame(load_, facts_, asked_, tiles, counting_, animation());
    const bool direct = frame_.direct;
    if (direct) {
      stage_begin("clear+shade");
      a.lo = 0;
      a.hi = n;
      // The shade kernel moves the circles where it has a kernel for it (it reads the old state
      // and writes the new aside); elsewhere the step takes a kernel of its own.
      if (frame_.fused_step) a.step = take_step(false);
      else flush_step();
      shade(grid, f, a);
      stage("clear+shade");
      plan_ = load_.early_note + "direct: " + frame_.why + frame_.kernels_text(load_, asked_) +
              (a.step.kind != Animation::None ? "; the animation step done in the shade kernel" : "");
      return;
    }
    // The animation step: in the first count when that walks every circle (exact frames whose
    // pairs fit one chunk), else a kernel of its own now.
    FusedStep step;
    if (!load_.early && chunk_ >= n) step = take_step(true);
    else flush_step();
    const bool step_fused = step.kind != Animation::None;

    if (load_.early) CUDA_CHECK(cudaMemsetAsync(settled_.get(), 0, tiles, stream()));
    // The chunks (ChunkWalk, chunks.h): exact mode walks the circles forward, early exit backward
    // from the last; a chunk whose pairs exceed the budget is halved until they fit (chunk_
    // remembers the size that fit for the next frame).
    ChunkWalk walk(n, load_.early, load_.early ? load_.first_early_chunk : chunk_, tiles);
    int chunks = 0;
    unsigned long long pairs = 0;
    std::string binning;     // why a chunk that could bin by counting was sorted
    int binning_blocks = 0;  // circles a block where chunks were binned by counting
    bool sorted = false;     // whether any chunk was sorted
    bool ahead = false;      // whether the first chunk went ahead of its count (below)
    while (walk.next()) {
      // Between chunks a long frame can be stopped (any animation step is done by now, in place).
      if (walk.passes() > 1) stop_if_interrupted();
      const int lo = walk.lo(), hi = walk.hi();
      const bool first = walk.first(), last = walk.last();
      stage_begin("count");
      CUDA_CHECK(cudaMemsetAsync(stats_.get(), 0, offsetof(ChunkStats, unsettled), stream()));
      counts_.reserve(std::max(hi - lo, 1));
      const unsigned char* settled = load_.early && !first ? settled_.get() : nullptr;
      // Binning by counting where its matrix and blocks fit (circles a block; 0: the sort).
      const int per_block = hi > lo ? bin_block_size(hi - lo, tiles) : 0;
      if (per_block) {
        const int blocks = (hi - lo + per_block - 1) / per_block;
        matrix_.reserve(static_cast<std::size_t>(blocks) * tiles);
        // Up to eight matrix columns a count block, as many as the histograms' shared memory
        // takes, and no fewer blocks than SMs.
        const int columns = std::max(
            1, std::min({kBinMaxColumns, kBinHistInts / static_cast<int>(tiles), blocks / sm_count()}));
        count_tile_blocks_kernel<<<(blocks + columns - 1) / columns, kBinCountThreads, columns * tiles * sizeof(int),
                                   stream()>>>(c, lo, hi, per_block, columns, blocks, f.view, tile_, tiles_x,
                                               static_cast<int>(tiles), settled, counts_.get(), matrix_.get(),
                                               stats_.get(), step);
        CUDA_CHECK_LAUNCH();
      } else if (hi > lo) {
        const int blocks = std::min(std::max(1, (hi - lo + kCountThreads - 1) / kCountThreads), sm_count() * 8);
        count_tiles_kernel<<<blocks, kCountThreads, 0, stream()>>>(c, lo, hi, f.view, tile_, tiles_x, settled,
                                                                   counts_.get(), stats_.get(), step);
        CUDA_CHECK_LAUNCH();
      }
      step = FusedStep{};  // done: a count again (a halved chunk) must not move the circles twice
      unsigned long long total = 0;
      bool counting = per_block > 0;
      if (counting && first && walk.passes() == 1 && ids_.size() > 0) {
        // Ahead: the frame's first chunk, binned by counting into the ids buffer the last frames
        // grew, goes on to its scan, scatter and shade without waiting for the count; the
        // scatter checks the count on the device (too many pairs for the buffer, or a block's
        // for the scatter: it bins nothing), and the host reads it once, after the shade, and
        // does the chunk again the waiting way if it did not fit. No wait inside the frame.
        stage("count", true);
        bin_by_counting(c, f, lo, hi, per_block, tiles_x, tiles, settled);
        a.first = true;
        a.last = last;
        shade_chunk(grid, f, a, tiles);
        CUDA_CHECK(cudaMemcpyAsync(host_stats_, stats_.get(), sizeof *host_stats_, cudaMemcpyDeviceToHost, stream()));
        CUDA_CHECK(cudaStreamSynchronize(stream()));
        total = host_stats_->total;
        const unsigned long long worst = host_stats_->max_block;
        pairs_per_circle_ = static_cast<double>(worst) / std::min(per_block, hi - lo);
        if (total > ids_.size() || worst > static_cast<unsigned long long>(scatter_capacity_)) {
          if (load_.early) CUDA_CHECK(cudaMemsetAsync(settled_.get(), 0, tiles, stream()));
          // The heat map's cycles so far are that shade's, which drew nothing: the frame's count
          // starts again with the chunk (render() cleared them for this frame).
          if (f.tile_cycles) CUDA_CHECK(cudaMemsetAsync(f.tile_cycles, 0, tiles * sizeof *f.tile_cycles, stream()));
          continue;  // did not fit: the same chunk again, waiting for its count
        }
        ahead = true;
      } else {
        // The one wait of a chunk: the sort needs its exact size on the host.
        CUDA_CHECK(cudaMemcpyAsync(host_stats_, stats_.get(), sizeof *host_stats_, cudaMemcpyDeviceToHost, stream()));
        CUDA_CHECK(cudaStreamSynchronize(stream()));
        stage("count");
        total = host_stats_->total;
        // Early exit's open tiles are those after the last shade.
        const ChunkWalk::Verdict verdict = walk.counted(total, budget_, host_stats_->unsettled);
        if (verdict == ChunkWalk::Verdict::Stop) break;  // every tile has stopped
        if (verdict == ChunkWalk::Verdict::Halved && !load_.early) chunk_ = walk.size();
        if (verdict != ChunkWalk::Verdict::Bin) continue;  // halved or widened: count it again
        // The most pairs of a block of circles: over the scatter's capacity, this chunk takes the
        // sort (its per-circle counts are there too) and later frames smaller blocks.
        if (counting) {
          const unsigned long long worst = host_stats_->max_block;
          if (first) pairs_per_circle_ = static_cast<double>(worst) / std::min(per_block, hi - lo);
          if (worst > static_cast<unsigned long long>(kBinCapacity)) {
            counting = false;
            char w[160];
            std::snprintf(w, sizeof w,
                          "; a block of %d circles had %llu pairs, over the %d that binning by counting takes: sorted",
                          per_block, worst, kBinCapacity);
            binning = w;
          }
        } else if (first && hi > lo) {
          // The mean, not the worst block: never lowered here, so a scene whose worst blocks did
          // not fit does not try again every other frame.
          pairs_per_circle_ = std::max(pairs_per_circle_, static_cast<double>(total) / (hi - lo));
        }
        if (total > 0) {
          // Room for a few more pairs next frame, so that its first chunk can go ahead.
          ids_.reserve(std::min<unsigned long long>(budget_, total + total / 8));
          if (counting) bin_by_counting(c, f, lo, hi, per_block, tiles_x, tiles, settled, host_stats_->max_block);
          else bin(c, f, lo, hi, tiles_x, tiles, static_cast<unsigned>(total), first);
        }
        a.first = first;
        a.last = last;
        if (total > 0 || first || last) shade_chunk(grid, f, a, tiles, total == 0);
      }
      if (counting) binning_blocks = per_block;
      else sorted = true;
      ++chunks;
      last_work_.circles_binned += static_cast<std::uint64_t>(hi - lo);
      pairs += total;
      walk.done();
      // A frame of many chunks (100M deep circles) takes seconds: its share done, on the
      // progress line where there is one (render/progress.h; a no-op otherwise).
      if (n > 0) progress_within(static_cast<double>(load_.early ? n - lo : hi) / n);
      if (ahead && load_.early && host_stats_->unsettled == 0) break;  // read after the shade: every tile has stopped
    }
    last_work_.pairs = pairs;
    last_work_.chunks = static_cast<std::uint64_t>(chunks);
    last_work_.pair_budget = budget_;
    char buf[200];
    std::snprintf(buf, sizeof buf, "binned%s: %s; %d chunk%s, %llu pairs", load_.early ? " (early exit)" : "",
                  frame_.why.c_str(), chunks,
                  chunks == 1 ? "" : "s", pairs);
    if (binning_blocks)
      binning = "; binned by counting (blocks of " + std::to_string(binning_blocks) + " circles, a block's pairs sorted in " +
                std::to_string(scatter_capacity_) + " slots)" + binning;
    else if (binning.empty() && sorted) binning = "; sorted by tile (CUB radix sort)";
    if (ahead) binning += "; the first chunk shaded without waiting for its count";
    plan_ = load_.early_note + buf + binning + frame_.kernels_text(load_, asked_) +
            (step_fused ? "; the animation step done in the first count" : "");
  }

  // The shade of a binned chunk (`empty`: no pairs, so no ranges were written).
  void shade_chunk(dim3 grid, const FrameParams& f, ShadeArgs& a, unsigned tiles, bool empty = false) {
    stage_begin("clear+shade");
    ranges_.reserve(tiles);
    if (empty) CUDA_CHECK(cudaMemsetAsync(ranges_.get(), 0, tiles * sizeof(uint2), stream()));
    a.ranges = ranges_.get();
    a.ids = ids_sorted_;
    // The unsettled tiles the host reads with the next chunk's total are this shade's.
    if (load_.early) CUDA_CHECK(cudaMemsetAsync(&stats_.get()->unsettled, 0, sizeof(unsigned long long), stream()));
    shade(grid, f, a);
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

  // Binning by counting for the chunk [lo, hi) counted in blocks of per_block circles: the scan
  // over its matrix, then the scatter of its pairs' ids (into ids_, as they fit: the scatter
  // checks the count's total against its size) and the tile ranges.
  // `worst`: the chunk's worst block's pairs where the host has read them (0 where it went ahead).
  void bin_by_counting(const DeviceCircles& c, const FrameParams& f, int lo, int hi, int per_block, int tiles_x,
                       unsigned tiles, const unsigned char* settled, unsigned long long worst = 0) {
    const int blocks = (hi - lo + per_block - 1) / per_block;
    const std::size_t cells = static_cast<std::size_t>(blocks) * tiles;
    scan(matrix_, matrix_offsets_, cells);
    stage_begin("scatter");
    ranges_.reserve(tiles);
    // The smaller sort where the worst block's pairs fit it: known, or expected from the last
    // frame's worst block with a tenth to spare (a block over it makes the chunk go again, the
    // waiting way, with the sort that fits).
    const double expect = worst ? static_cast<double>(worst) : pairs_per_circle_ * std::min(per_block, hi - lo);
    const bool few = worst ? expect <= kBinCapacityFew : forced_few_ || expect <= 0.9 * kBinCapacityFew;
    scatter_capacity_ = few ? kBinCapacityFew : kBinCapacity;
    auto scatter = few ? scatter_tile_blocks_kernel<kBinItemsFew> : scatter_tile_blocks_kernel<kBinItems>;
    launch_dependent(scatter, blocks, kBinThreads, tiles * sizeof(int), stream(), c, lo, hi, per_block, f.view, tile_,
                     tiles_x, static_cast<int>(tiles), std::max(1, bits_for(tiles)), settled, counts_.get(),
                     matrix_offsets_.get(), stats_.get(), ids_.size(), ids_.get(), ranges_.get());
    ids_sorted_ = ids_.get();
    stage("scatter", true);
  }

  // Scan, duplicate, sort and ranges for the chunk [lo, hi), whose `total` pairs fit the budget.
  void bin(const DeviceCircles& c, const FrameParams& f, int lo, int hi, int tiles_x, unsigned tiles,
           unsigned total, bool first) {
    scan(counts_, offsets_, static_cast<std::size_t>(hi - lo));
    // Tile keys fit 16 bits up to 65,536 tiles (4096x4096 at tile 16): the sort then moves 6
    // bytes a pair each pass instead of 8.
    if (tiles <= 65536u) sort_pairs(c, f, lo, hi, tiles_x, tiles, total, first, keys16_, keys16_alt_);
    else sort_pairs(c, f, lo, hi, tiles_x, tiles, total, first, keys_, keys_alt_);
  }

  // Duplicate, sort and ranges with tile keys of type Key.
  template <class Key>
  void sort_pairs(const DeviceCircles& c, const FrameParams& f, int lo, int hi, int tiles_x, unsigned tiles,
                  unsigned total, bool first, DeviceBuffer<Key>& keys_buf, DeviceBuffer<Key>& keys_alt_buf) {
    stage_begin("duplicate");
    keys_buf.reserve(total);
    ids_.reserve(total);
    keys_alt_buf.reserve(total);
    ids_alt_.reserve(total);
    // Staged in shared memory where the circles have more than two pairs each on average.
    const bool in_shared = total > 2ull * static_cast<unsigned long long>(hi - lo);
    const std::size_t stage_bytes = in_shared ? kDupStage * (sizeof(unsigned) + sizeof(Key)) : 0;
    duplicate_pairs_kernel<Key><<<(hi - lo + kDupThreads - 1) / kDupThreads, kDupThreads, stage_bytes, stream()>>>(
        c, lo, hi, f.view, tile_, tiles_x, load_.early && !first ? settled_.get() : nullptr, counts_.get(), offsets_.get(),
        total, in_shared, keys_buf.get(), ids_.get());
    CUDA_CHECK_LAUNCH();
    stage("duplicate", true);
    stage_begin("sort");
    cub::DoubleBuffer<Key> keys(keys_buf.get(), keys_alt_buf.get());
    cub::DoubleBuffer<unsigned> ids(ids_.get(), ids_alt_.get());
    const int end_bit = std::max(1, bits_for(tiles));
    std::size_t sort_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, ids, static_cast<int>(total), 0, end_bit,
                                               stream()));
    temp_.reserve(sort_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), sort_bytes, keys, ids, static_cast<int>(total), 0,
                                               end_bit, stream()));
    stage("sort", true);
    stage_begin("ranges");
    ranges_.reserve(tiles);
    CUDA_CHECK(cudaMemsetAsync(ranges_.get(), 0, tiles * sizeof(uint2), stream()));
    constexpr unsigned per_block = kRangesThreads * kRangesPer;
    tile_ranges_kernel<Key><<<(total + per_block - 1) / per_block, kRangesThreads, 0, stream()>>>(
        keys.Current(), total, ranges_.get());
    CUDA_CHECK_LAUNCH();
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
