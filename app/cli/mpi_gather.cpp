// Rank 0's PNG of rows the ranks hold (app/cli/mpi_gather.h).
#include "app/cli/mpi_gather.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <memory>

#include "app/cli/mpi_agree.h"
#include "app/cli/mpi_job.h"
#include "app/cli/mpi_split.h"
#include "app/common/args.h"
#include "render/png.h"
#include "render/progress.h"

namespace circles {

namespace {

constexpr int kRowsTag = 1;
constexpr std::size_t kMessageBytes = std::size_t{8} << 20;  // rows sent at once, at most (at least one row)

// A rank other than 0: its rows to rank 0, in messages of `rows_per_message` rows.
void send_rows(const MpiWorld& world, const std::vector<std::uint8_t>& rows, std::size_t row_bytes,
               std::int64_t rows_per_message) {
  const std::int64_t count = static_cast<std::int64_t>(rows.size() / row_bytes);
  for (std::int64_t done = 0; done < count; done += rows_per_message) {
    const std::int64_t n = std::min(rows_per_message, count - done);
    mpi_check(MPI_Send(rows.data() + done * row_bytes, static_cast<int>(n * row_bytes), MPI_BYTE, 0, kRowsTag,
                       world.comm()),
              "MPI_Send");
  }
}

// Rank 0: one message of `bytes` from rank k into `message`; a message of another length ends the job.
void receive_rows(const MpiWorld& world, int k, std::uint8_t* message, int bytes) {
  MPI_Status status;
  mpi_check(MPI_Recv(message, bytes, MPI_BYTE, k, kRowsTag, world.comm(), &status), "MPI_Recv");
  int got = 0;
  mpi_check(MPI_Get_count(&status, MPI_BYTE, &got), "MPI_Get_count");
  if (got != bytes)
    mpi_abort("rank " + std::to_string(k) + " sent " + std::to_string(got) + " bytes of rows where " +
              std::to_string(bytes) + " were due");
}

}  // namespace

Failure gather_png(const MpiWorld& world, const std::string& path, int width, int height,
                   const std::vector<std::uint8_t>& rows) {
  const int ranks = world.size();
  const std::size_t row_bytes = static_cast<std::size_t>(width) * 4;
  const std::int64_t rows_per_message = std::max<std::int64_t>(1, static_cast<std::int64_t>(kMessageBytes / row_bytes));
  if (world.rank() != 0) {
    send_rows(world, rows, row_bytes, rows_per_message);
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
    png->write_rows(rows.data(), static_cast<int>(rows.size() / row_bytes));
  });
  std::vector<std::uint8_t> message(static_cast<std::size_t>(std::min<std::int64_t>(rows_per_message, height)) * row_bytes);
  for (int k = 1; k < ranks; ++k) {
    const std::int64_t count = block_of(0, height, k, ranks).size();
    for (std::int64_t done = 0; done < count; done += rows_per_message) {
      const std::int64_t n = std::min(rows_per_message, count - done);
      receive_rows(world, k, message.data(), static_cast<int>(n * row_bytes));
      attempt([&] { png->write_rows(message.data(), static_cast<int>(n)); });
    }
  }
  attempt([&] { png->finish(); });
  return failed;
}

void top_first(std::vector<std::uint8_t>* rgba, std::size_t row_bytes) {
  const std::size_t rows = row_bytes ? rgba->size() / row_bytes : 0;
  for (std::size_t a = 0, b = rows; a + 1 < b; ++a, --b)
    std::swap_ranges(rgba->begin() + a * row_bytes, rgba->begin() + (a + 1) * row_bytes,
                     rgba->begin() + (b - 1) * row_bytes);
}

void say_frames_left(Failure* all, std::int64_t first, std::int64_t failed, std::int64_t last) {
  const std::string done = frames_phrase({{first, failed}}, "written");
  all->message += "; frame " + std::to_string(failed) + " failed, " + (done.empty() ? "no frame was written" : done) +
                  ", " + frames_phrase({{failed, last}}, "not written");
}

bool finish_frame(const MpiWorld& world, const MpiRenderJob& job, std::int64_t f, const std::vector<std::uint8_t>& rows,
                  const std::string& how, Progress* progress, Failure* all) {
  const bool several = job.last - job.first > 1;
  const std::string path = frame_path(job.pattern, f, several);
  if (all->code == 0) *all = agree(world, gather_png(world, path, job.width, job.height, rows));
  if (all->code != 0) {
    // Say which frame failed and what became of the others, as one process does.
    if (several) say_frames_left(all, job.first, f, job.last);
    return false;
  }
  if (world.rank() == 0) {
    char line[512];
    std::snprintf(line, sizeof line, "%s: frame %" PRId64 " (%dx%d, %s, %s) -> ", job.label.c_str(), f, job.width,
                  job.height, job.renderer.c_str(), how.c_str());
    progress->message(line + path);
  }
  return true;
}

}  // namespace circles
