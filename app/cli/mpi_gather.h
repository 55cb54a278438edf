// One PNG a frame from rows held by the ranks (--mpi bands and --mpi circles, app/cli/mpi_job.h):
// rank k holds the frame's rows block_of(0, height, k, ranks) counted from the top (app/cli/mpi_split.h),
// and rank 0 writes the PNG as a stream (render/png.h): its own rows, then each rank's in turn,
// received in messages of up to 8 MiB and compressed as they arrive, so no rank holds more than its
// rows and rank 0 its rows and one message. The file goes through a temporary renamed into place
// only once its last row is in: byte for byte the PNG one process writes of the same pixels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/failure.h"
#include "app/cli/mpi_world.h"

namespace circles {

struct MpiRenderJob;
class Progress;

// Joins the ranks' rows (each `rows`: this rank's, 8-bit RGBA, top first) into the PNG at `path`,
// written by rank 0; every rank calls it. Returns rank 0's failure to write (the others': none).
// Rank 0 receives every row even after a failure, so no rank is left waiting on a send.
Failure gather_png(const MpiWorld& world, const std::string& path, int width, int height,
                   const std::vector<std::uint8_t>& rows);

// Rows of `row_bytes` each, bottom first (read_rgba8, to_rgba8_bottom_up), turned top first (a
// PNG's order) in place.
void top_first(std::vector<std::uint8_t>* rgba, std::size_t row_bytes);

// After frame `failed` of [first, last) failed (several frames, one PNG each, every file written
// by rank 0 in turn): appends to `all`'s message which frame failed, which were written, which not.
void say_frames_left(Failure* all, std::int64_t first, std::int64_t failed, std::int64_t last);

// The end of frame `f` of `job` (--mpi bands and --mpi circles), every rank calling it with `all`
// agreed on this frame's drawing: where that holds no failure, the ranks' rows gathered into the
// frame's PNG (gather_png) and the outcome agreed into `all`. Returns whether the frame was
// written, rank 0 then saying so on `progress` with `how` it was drawn ("bands of 7 rows over 3
// ranks"); false after a failure, `all` saying (over several frames) what became of the others.
bool finish_frame(const MpiWorld& world, const MpiRenderJob& job, std::int64_t f, const std::vector<std::uint8_t>& rows,
                  const std::string& how, Progress* progress, Failure* all);

}  // namespace circles
