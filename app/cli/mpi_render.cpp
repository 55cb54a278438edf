// `circles render` over MPI ranks (app/cli/mpi_render.h): MPI up, the mode chosen, the job
// resolved on every rank (options, scene, size, output paths, memory), the ranks agreed that it
// can start, then the frames, the bands or the circles (docs/SCALE.md).
#include "app/cli/mpi_render.h"

#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>

#include <CLI/CLI.hpp>

#include "app/cli/frame_job.h"
#include "app/cli/mpi_agree.h"
#include "app/cli/mpi_job.h"
#include "app/cli/mpi_launch.h"
#include "app/cli/mpi_split.h"
#include "app/cli/mpi_world.h"
#include "app/common/args.h"
#include "app/common/registry.h"
#include "render/output_file.h"
#if CIRCLES_HAVE_CUDA
#include "kernels/cuda/device.h"
#endif

namespace circles {

bool have_mpi() { return true; }

namespace {

// The renderers that draw a band of rows (render/band_renderer.h) or a layer of circles
// (render/layer_renderer.h): the CPU ones.
bool draws_parts(const std::string& renderer) { return renderer == "cpu-ref" || renderer == "cpu-mt"; }

// --mpi bands or circles with a renderer that cannot draw its part: a command-line mistake.
[[noreturn]] void refuse_renderer(const std::string& mode, bool defaulted, const std::string& renderer) {
  const bool bands = mode == "bands";
  throw std::invalid_argument(
      "--mpi " + mode + (defaulted ? " (the default for one frame)" : "") + " draws with cpu-ref or cpu-mt (" +
      (bands ? "a band of rows of the frame, exactly" : "a layer of a range of the circles") + "); " + renderer +
      " cannot draw " + (bands ? "a band" : "a layer") + ": use --mpi frames (a rank a frame), or -r cpu-mt");
}

// The pixels a rank holds, in render_memory_bytes' units (40 bytes a pixel): a band's rows; or a
// whole frame's layer (20 bytes a pixel) and its piece's composite and 8-bit rows (20 bytes a pixel).
std::function<double(int, int)> held_pixels(const std::string& mode, int rank, int ranks) {
  if (mode == "bands")
    return [rank, ranks](int w, int h) {
      return static_cast<double>(w) * static_cast<double>(block_of(0, h, rank, ranks).size());
    };
  if (mode == "circles")
    return [rank, ranks](int w, int h) {
      return 0.5 * static_cast<double>(w) * h + 0.5 * static_cast<double>(w) * block_of(0, h, rank, ranks).size();
    };
  return nullptr;
}

}  // namespace

int render_over_mpi(FrameJob& job, const std::string& pattern, const std::string& mode_given) {
  std::unique_ptr<MpiWorld> up;
  try {
    up = std::make_unique<MpiWorld>();
  } catch (...) {
    const Failure f = failure_of(std::current_exception());
    if (mpi_launch().rank == 0) std::fprintf(stderr, "%s\n", f.line().c_str());
    return f.code;
  }
  const MpiWorld& world = *up;
  const int rank = world.rank(), ranks = world.size();

  MpiRenderJob r;
  std::string mode = mode_given;
  Failure mine;
  try {
    // --frames as given decides the default mode before the scene is loaded (resolve checks it
    // again, the same way).
    std::int64_t first = 0, last = 1;
    if (!job.frames.empty()) parse_frames(job.frames, &first, &last);
    const bool several = !job.frames.empty() && last - first > 1;
    if (mode.empty()) mode = several ? "frames" : "bands";
    const bool renderer_given = job.renderer_opt && job.renderer_opt->count();
    const bool one_png = mode == "bands" || mode == "circles";  // a frame's parts, one PNG by rank 0
    if (one_png) {
      if (job.renderer.empty() && !renderer_given) job.renderer = "cpu-mt";
      if (find_renderer(job.renderer) && !draws_parts(job.renderer))
        refuse_renderer(mode, mode_given.empty(), job.renderer);
    }
    job.notes = rank == 0;
    job.host_ranks = world.host_size();
    // The frames this rank writes the files of: under bands and circles rank 0 writes every frame's.
    auto writes = [one_png, rank, ranks](std::int64_t f, std::int64_t l) {
      if (one_png) return rank == 0 ? Block{f, l} : Block{f, f};
      return block_of(f, l, rank, ranks);
    };
    job.held_pixels = held_pixels(mode, rank, ranks);
    // Bands only: no process holds more than its band (and rank 0 one message of rows); the
    // other modes hold whole frames.
    job.max_side = mode == "bands" ? kMaxBandsSide : kMaxSide;
    if (mode == "bands") job.beyond_max.clear();
    job.check_outputs = [writes, pattern, range = !job.frames.empty(), last](std::int64_t f, bool many) {
      const Block b = writes(f, range ? last : f + 1);
      if (b.size() > 0) check_output_path(frame_path(pattern, b.begin, many), "-o");
    };
    job.resolve(&r.scene, &r.width, &r.height, &r.first, &r.last);
    // The scene's own frame is known now: this rank's first path, checked again.
    if (const Block b = writes(r.first, r.last); b.size() > 0)
      check_output_path(frame_path(pattern, b.begin, r.last - r.first > 1), "-o");
    r.label = job.scene;
    r.pattern = pattern;
    r.renderer = job.renderer;
    r.settings = job.settings;
#if CIRCLES_HAVE_CUDA
    // One rank per GPU where the host has several.
    const RendererInfo* info = find_renderer(r.renderer);
    if (info && info->needs_gpu) use_device_of_local_rank(world.host_rank());
#endif
  } catch (...) {
    mine = failure_of(std::current_exception());
  }
  const Failure all = agree(world, mine);
  if (all.code != 0) return report(world, all);
  if (mode == "circles") return render_circles_over_ranks(world, std::move(r));
  return mode == "bands" ? render_bands_over_ranks(world, r) : render_frames_over_ranks(world, r);
}

}  // namespace circles
