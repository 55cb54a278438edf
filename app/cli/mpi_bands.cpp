// --mpi bands (app/cli/mpi_job.h), sort-first: each frame's rows are split into contiguous bands,
// the top one rank 0's, the next rank 1's, and so on; each rank draws its band exactly as cpu-ref
// draws those rows of the whole frame (render/band_renderer.h), every circle that touches it. Once
// every rank has drawn (agreed by a collective, so a failure anywhere stops all before any file is
// begun), rank 0 writes the PNG as a stream (render/png.h): its own rows, then each rank's in turn,
// received in messages of a few MiB and compressed as they arrive, so no rank holds more than its
// band and rank 0 its band and one message. The file goes through a temporary renamed into place,
// only once its last row is in; it is byte for byte the PNG one process writes.
#include <algorithm>
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
#include "render/band_renderer.h"
#include "render/png.h"
#include "render/progress.h"

namespace circles {

namespace {

constexpr int kRowsTag = 1;
constexpr std::size_t kMessageBytes = std::size_t{8} << 20;  // rows of a band sent at once, at most (at least one row)

// Joins the ranks' bands (each `band`: this rank's rows, top first) into the PNG at `path`, written
// by rank 0; every rank calls it. Returns rank 0's failure to write (the others': none). Rank 0
// receives every row even after a failure, so no rank is left waiting on a send.
Failure gather_png(const MpiWorld& world, const std::string& path, int width, int height,
                   const std::vector<std::uint8_t>& band) {
  const int rank = world.rank(), ranks = world.size();
  const std::size_t row_bytes = static_cast<std::size_t>(width) * 4;
  const std::int64_t rows_per_message = std::max<std::int64_t>(1, static_cast<std::int64_t>(kMessageBytes / row_bytes));
  if (rank != 0) {
    const std::int64_t rows = static_cast<std::int64_t>(band.size() / row_bytes);
    for (std::int64_t done = 0; done < rows; done += rows_per_message) {
      const std::int64_t n = std::min(rows_per_message, rows - done);
      mpi_check(MPI_Send(band.data() + done * row_bytes, static_cast<int>(n * row_bytes), MPI_BYTE, 0, kRowsTag,
                         world.comm()),
                "MPI_Send");
    }
    return {};
  }
  Failure failed;
  std::unique_ptr<PngWriter> png;
  // A step of the writing; after a failure, none (the writer is gone, its temporary removed).
  auto attempt = [&](auto step) {
    if (failed.code != 0) return;
    try {
      step();
    } catch (...) {
      failed = failure_of(std::current_exception());
      png.reset();
    }
  };
  attempt([&] {
    png = std::make_unique<PngWriter>(path, width, height);
    png->write_rows(band.data(), static_cast<int>(band.size() / row_bytes));
  });
  std::vector<std::uint8_t> message(static_cast<std::size_t>(std::min<std::int64_t>(rows_per_message, height)) * row_bytes);
  for (int k = 1; k < ranks; ++k) {
    const std::int64_t rows = block_of(0, height, k, ranks).size();
    for (std::int64_t done = 0; done < rows; done += rows_per_message) {
      const std::int64_t n = std::min(rows_per_message, rows - done);
      const int bytes = static_cast<int>(n * row_bytes);
      MPI_Status status;
      mpi_check(MPI_Recv(message.data(), bytes, MPI_BYTE, k, kRowsTag, world.comm(), &status), "MPI_Recv");
      int got = 0;
      mpi_check(MPI_Get_count(&status, MPI_BYTE, &got), "MPI_Get_count");
      if (got != bytes)
        mpi_abort("rank " + std::to_string(k) + " sent " + std::to_string(got) + " bytes of rows where " +
                  std::to_string(bytes) + " were due");
      attempt([&] { png->write_rows(message.data(), static_cast<int>(n)); });
    }
  }
  attempt([&] { png->finish(); });
  return failed;
}

// The image's rows, bottom first (read_rgba8), turned top first (a PNG's order) in place.
void top_first(std::vector<std::uint8_t>* rgba, std::size_t row_bytes) {
  const std::size_t rows = row_bytes ? rgba->size() / row_bytes : 0;
  for (std::size_t a = 0, b = rows; a + 1 < b; ++a, --b)
    std::swap_ranges(rgba->begin() + a * row_bytes, rgba->begin() + (a + 1) * row_bytes,
                     rgba->begin() + (b - 1) * row_bytes);
}

}  // namespace

int render_bands_over_ranks(const MpiWorld& world, const MpiRenderJob& job) {
  const int rank = world.rank(), ranks = world.size();
  const int width = job.width, height = job.height;
  const bool several = job.last - job.first > 1;
  const Block rows = block_of(0, height, rank, ranks);  // this rank's rows, counted from the top
  const std::size_t row_bytes = static_cast<std::size_t>(width) * 4;
  const std::int64_t most = block_of(0, height, 0, ranks).size(), least = block_of(0, height, ranks - 1, ranks).size();
  const std::string band_rows = std::to_string(least) + (most != least ? " or " + std::to_string(most) : "");
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
    const std::string path = frame_path(job.pattern, f, several);
    if (all.code == 0) all = agree(world, gather_png(world, path, width, height, band));
    if (all.code != 0) {
      // Say which frame failed and what became of the others, as one process does.
      if (several) {
        const std::string done = frames_phrase({{job.first, f}}, "written");
        all.message += "; frame " + std::to_string(f) + " failed, " + (done.empty() ? "no frame was written" : done) +
                       ", " + frames_phrase({{f, job.last}}, "not written");
      }
      break;
    }
    if (rank == 0) {
      char line[512];
      std::snprintf(line, sizeof line, "%s: frame %" PRId64 " (%dx%d, %s, bands of %s rows over %d rank%s) -> ",
                    job.label.c_str(), f, width, height, job.renderer.c_str(), band_rows.c_str(), ranks,
                    ranks > 1 ? "s" : "");
      progress->message(line + path);
    }
  }
  return report(world, all);
}

}  // namespace circles
