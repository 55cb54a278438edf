// --mpi frames (app/cli/mpi_job.h): each rank takes a contiguous block of the frames (it seeks
// once, to its first, then steps frame by frame: an animation is never replayed further than one
// process replays it), renders them with its own renderer and writes each frame's file, atomically,
// as one process writes it. Where a rank fails, the others finish their blocks; rank 0 then says
// the first failure once and which frames were written (each file whole) and which were not.
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/failure.h"
#include "app/cli/mpi_agree.h"
#include "app/cli/mpi_job.h"
#include "app/cli/mpi_split.h"
#include "app/common/args.h"
#include "app/common/registry.h"
#include "render/png.h"
#include "render/progress.h"

namespace circles {

std::string frames_phrase(const std::vector<Block>& blocks, const char* what) {
  std::vector<Block> merged;
  std::int64_t count = 0;
  for (const Block& b : blocks) {
    if (b.size() <= 0) continue;
    count += b.size();
    if (!merged.empty() && merged.back().end == b.begin) merged.back().end = b.end;
    else merged.push_back(b);
  }
  if (count == 0) return "";
  std::string list;
  for (const Block& b : merged)
    list += (list.empty() ? "" : ", ") + std::to_string(b.begin) +
            (b.size() > 1 ? ".." + std::to_string(b.end - 1) : std::string());
  return (count == 1 ? "frame " : "frames ") + list + (count == 1 ? " was " : " were ") + what;
}

int render_frames_over_ranks(const MpiWorld& world, const MpiRenderJob& job) {
  const int rank = world.rank(), ranks = world.size();
  const bool several = job.last - job.first > 1;
  const Block mine = block_of(job.first, job.last, rank, ranks);
  if (rank == 0) {
    const std::int64_t most = block_of(job.first, job.last, 0, ranks).size();
    const std::int64_t least = block_of(job.first, job.last, ranks - 1, ranks).size();
    const std::string each = std::to_string(least) + (most != least ? " or " + std::to_string(most) : "");
    std::fprintf(stderr, "%s: %" PRId64 " frame%s -> %s%s%s over %d rank%s, %s frame%s each, in order\n",
                 job.label.c_str(), job.last - job.first, several ? "s" : "",
                 frame_path(job.pattern, job.first, several).c_str(), several ? " ... " : "",
                 several ? frame_path(job.pattern, job.last - 1, several).c_str() : "", ranks, ranks > 1 ? "s" : "",
                 each.c_str(), most == 1 ? "" : "s");
  }
  std::int64_t written = 0;
  Failure failed;
  try {
    if (mine.size() > 0) {
      std::unique_ptr<Renderer> r = make_renderer(job.renderer, job.settings);
      std::unique_ptr<Progress> progress;
      if (rank == 0) progress = std::make_unique<Progress>("render " + job.label, static_cast<double>(mine.size()));
      Image img;
      run_frames(*r, job.scene, job.width, job.height, mine.begin, mine.end, [&](std::int64_t f) {
        r->read_image(&img);
        const std::string path = frame_path(job.pattern, f, several);
        write_png(path, img);
        ++written;
        char line[512];
        std::snprintf(line, sizeof line, "%s: frame %" PRId64 " (%dx%d, %s, rank %d of %d) -> ", job.label.c_str(), f,
                      job.width, job.height, job.renderer.c_str(), rank, ranks);
        if (progress) progress->message(line + path);
        else std::fprintf(stderr, "%s%s\n", line, path.c_str());
      }, progress.get(), "render " + job.label);
    }
  } catch (...) {
    failed = failure_of(std::current_exception());
  }
  // What each rank wrote (the first `written` frames of its block), for the message.
  const std::vector<std::int64_t> done = world.gather_at_root(written);
  Failure all = agree(world, failed);
  if (all.code != 0 && rank == 0 && several) {
    std::vector<Block> yes, no;
    for (int k = 0; k < ranks; ++k) {
      const Block b = block_of(job.first, job.last, k, ranks);
      yes.push_back({b.begin, b.begin + done[k]});
      no.push_back({b.begin + done[k], b.end});
    }
    const std::string y = frames_phrase(yes, "written (each file whole)");
    const std::string n = frames_phrase(no, "not");
    all.message += "; " + (y.empty() ? std::string("no frame was written") : y) + (n.empty() ? "" : ", " + n);
  }
  return report(world, all);
}

}  // namespace circles
