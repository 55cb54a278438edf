// --mpi bands (app/cli/mpi_job.h), sort-first: each frame's rows are split into contiguous bands,
// the top one rank 0's, the next rank 1's, and so on; each rank draws its band exactly as cpu-ref
// draws those rows of the whole frame (render/band_renderer.h), every circle that touches it. Once
// every rank has drawn (agreed by a collective, so a failure anywhere stops all before any file is
// begun), rank 0 writes the PNG as a stream (app/cli/mpi_gather.h): its own rows, then each rank's
// in turn, received in messages of a few MiB and compressed as they arrive, so no rank holds more
// than its band and rank 0 its band and one message. The file goes through a temporary renamed into
// place, only once its last row is in; it is byte for byte the PNG one process writes.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/failure.h"
#include "app/cli/mpi_agree.h"
#include "app/cli/mpi_gather.h"
#include "app/cli/mpi_job.h"
#include "app/cli/mpi_split.h"
#include "app/common/args.h"
#include "render/band_renderer.h"
#include "render/progress.h"

namespace circles {

int render_bands_over_ranks(const MpiWorld& world, const MpiRenderJob& job) {
  const int rank = world.rank(), ranks = world.size();
  const int width = job.width, height = job.height;
  const bool several = job.last - job.first > 1;
  const Block rows = block_of(0, height, rank, ranks);  // this rank's rows, counted from the top
  const std::size_t row_bytes = static_cast<std::size_t>(width) * 4;
  const std::int64_t most = block_of(0, height, 0, ranks).size(), least = block_of(0, height, ranks - 1, ranks).size();
  const std::string band_rows = std::to_string(least) + (most != least ? " or " + std::to_string(most) : "");
  const std::string how =
      "bands of " + band_rows + " rows over " + std::to_string(ranks) + " rank" + (ranks > 1 ? "s" : "");
  if (rank == 0 && several)
    std::fprintf(stderr, "%s: %" PRId64 " frames -> %" PRId64 " files, %s ... %s\n", job.label.c_str(),
                 job.last - job.first, job.last - job.first, frame_path(job.pattern, job.first, several).c_str(),
                 frame_path(job.pattern, job.last - 1, several).c_str());

  std::unique_ptr<Renderer> r;
  std::vector<std::uint8_t> band;
  std::unique_ptr<Progress> progress;
  if (rank == 0) progress = std::make_unique<Progress>("render " + job.label, static_cast<double>(job.last - job.first));
  Failure failed;
  try {
    // Image rows count from the bottom: the band of top rows [b, e) is image rows [h - e, h - b).
    r = make_band_renderer(static_cast<int>(height - rows.end), static_cast<int>(rows.size()),
                           job.renderer == "cpu-ref" ? 1 : 0);
    band.resize(static_cast<std::size_t>(rows.size()) * row_bytes);
    r->load(job.scene, width, height);
    seek_frames(*r, job.scene, job.first, progress.get());
    if (progress) progress->restart("render " + job.label, static_cast<double>(job.last - job.first));
  } catch (...) {
    failed = failure_of(std::current_exception());
  }
  Failure all = agree(world, failed);
  for (std::int64_t f = job.first; f < job.last && all.code == 0; ++f) {
    try {
      if (f > job.first) r->advance();
      if (progress) progress->update(static_cast<double>(f - job.first), "frame " + std::to_string(f));
      r->render();
      if (!band.empty()) r->read_rgba8(band.data());
      top_first(&band, row_bytes);
    } catch (...) {
      failed = failure_of(std::current_exception());
    }
    all = agree(world, failed);
    if (!finish_frame(world, job, f, band, how, progress.get(), &all)) break;
  }
  return report(world, all);
}

}  // namespace circles
