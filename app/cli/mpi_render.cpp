// `circles render` over MPI ranks (app/cli/mpi_render.h): MPI up, the mode chosen, the job
// resolved on every rank (options, scene, size, output paths, memory), the ranks agreed that it
// can start, then the frames or the bands.
#include "app/cli/mpi_render.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>

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

// The renderers that draw a band of rows (render/band_renderer.h): the CPU ones.
bool draws_bands(const std::string& renderer) { return renderer == "cpu-ref" || renderer == "cpu-mt"; }

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
    if (mode == "bands") {
      if (job.renderer.empty() && !renderer_given) job.renderer = "cpu-mt";
      if (find_renderer(job.renderer) && !draws_bands(job.renderer))
        throw std::invalid_argument(
            std::string("--mpi bands") + (mode_given.empty() ? " (the default for one frame)" : "") +
            " draws with cpu-ref or cpu-mt (a band of rows of the frame, exactly); " + job.renderer +
            " cannot draw a band: use --mpi frames (a rank a frame), or -r cpu-mt");
    }
    job.notes = rank == 0;
    job.host_ranks = world.host_size();
    // The frames this rank writes the files of: under bands rank 0 writes every frame's.
    auto writes = [mode, rank, ranks](std::int64_t f, std::int64_t l) {
      if (mode == "bands") return rank == 0 ? Block{f, l} : Block{f, f};
      return block_of(f, l, rank, ranks);
    };
    if (mode == "bands")
      job.held_pixels = [rank, ranks](int w, int h) {  // a band's rows
        return static_cast<double>(w) * static_cast<double>(block_of(0, h, rank, ranks).size());
      };
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
  return mode == "bands" ? render_bands_over_ranks(world, r) : render_frames_over_ranks(world, r);
}

}  // namespace circles
