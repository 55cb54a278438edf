// --mpi circles (app/cli/mpi_job.h), sort-last: each rank takes a contiguous range of the scene's
// circles in draw order (rank 0 the first, farthest ones), keeps only those, and draws them to a
// layer of the whole frame (render/layer_renderer.h: per pixel C, T and S; rank 0's starts from the
// background). The layers are composited by direct-send (IceT's radix-k with one round of
// k = ranks): the frame's rows are split into `ranks` pieces, the top one rank 0's; every rank sends
// piece j of its layer to rank j, and rank j composites its piece over the ranks' layers in rank
// order (composite_onto: colour fmaf(T, c, C), alpha c + S), receiving them in messages of at most
// 8 MiB. Rank 0 then writes the PNG as a stream from the pieces (app/cli/mpi_gather.h). Once every
// rank has drawn (agreed by a collective) nothing can fail but the writing, which leaves no file.
// The picture is cpu-ref's within one 8-bit step per channel (docs/SCALE.md derives the bound);
// with one rank it is cpu-ref's bytes.
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
#include "render/image.h"
#include "render/layer_renderer.h"
#include "render/progress.h"

namespace circles {

namespace {

constexpr int kLayerTag = 2;
// The most layer pixels a message holds (8 MiB of them).
constexpr std::int64_t kMessagePixels = (std::int64_t{8} << 20) / sizeof(LayerPixel);
constexpr int kListedRanks = 8;  // the plan lists this many ranks' blocks at most, then the last one

// "rank 0 circles 0..2499, rank 1 circles 2500..4999": each rank's block of [0, n), in rank order
// (`unit` a plural: "rank 3 circle 7" for one, "rank 4 no circles" for none); past kListedRanks
// ranks, the first ones and the last.
std::string blocks_text(std::int64_t n, int ranks, const char* unit) {
  std::string text;
  for (int k = 0; k < ranks; ++k) {
    if (k == kListedRanks - 1 && ranks > kListedRanks) {
      text += ", ...";
      k = ranks - 1;
    }
    const Block b = block_of(0, n, k, ranks);
    const std::string units = unit, one = units.substr(0, units.size() - 1);  // "circles", "circle"
    const std::string held = b.size() == 0   ? "no " + units
                             : b.size() == 1 ? one + " " + std::to_string(b.begin)
                                             : units + " " + std::to_string(b.begin) + ".." + std::to_string(b.end - 1);
    text += std::string(k ? ", " : "") + "rank " + std::to_string(k) + " " + held;
  }
  return text;
}

// Rank 0's plan: which rank holds which circles, which rows each composites.
void say_plan(const MpiRenderJob& job, std::int64_t circles, int ranks) {
  const bool several = job.last - job.first > 1;
  if (several)
    std::fprintf(stderr, "%s: %" PRId64 " frames -> %" PRId64 " files, %s ... %s\n", job.label.c_str(),
                 job.last - job.first, job.last - job.first, frame_path(job.pattern, job.first, several).c_str(),
                 frame_path(job.pattern, job.last - 1, several).c_str());
  std::fprintf(stderr, "%s: %" PRId64 " circles in draw order over %d rank%s: %s\n", job.label.c_str(), circles,
               ranks, ranks > 1 ? "s" : "", blocks_text(circles, ranks, "circles").c_str());
  std::fprintf(stderr, "%s: composited rows, top first: %s\n", job.label.c_str(),
               blocks_text(job.height, ranks, "rows").c_str());
}

// This rank's rows of the frame (top rows [b, e)) as pixels of a layer (row 0 = bottom): image
// rows [H - e, H - b), one run of the layer's memory.
struct Piece {
  std::size_t offset = 0;  // the first pixel
  std::int64_t pixels = 0;
};
Piece piece_of(int width, int height, int rank, int ranks) {
  const Block rows = block_of(0, height, rank, ranks);
  return {static_cast<std::size_t>(height - rows.end) * width, rows.size() * width};
}

// What a rank holds to composite its piece and hand it to rank 0, allocated before the first frame
// so that compositing cannot fail.
struct PieceBuffers {
  Image composite;                    // width x the piece's rows, row 0 = bottom
  std::vector<LayerPixel> message;    // one message of another rank's layer
  std::vector<std::uint8_t> rgba;     // the piece in 8 bits, top row first

  void allocate(int width, std::int64_t rows) {
    composite = Image(width, static_cast<int>(rows));
    message.resize(static_cast<std::size_t>(std::min<std::int64_t>(kMessagePixels, rows * width)));
    rgba.resize(composite.pixels.size() * 4);
  }
};

// `count` pixels of rank `from`'s layer onto the composite at `at`: rank 0's start it (their C and S).
void composite_run(Float4* at, const LayerPixel* layer, std::int64_t count, int from) {
  for (std::int64_t p = 0; p < count; ++p) {
    if (from == 0) at[p] = layer[p].c;
    else composite_onto(&at[p], layer[p]);
  }
}

// Direct-send: piece j of this rank's layer to rank j (every j but this one, sent without waiting),
// then this rank's piece of every rank's layer, in rank order, composited as it arrives.
void composite_piece(const MpiWorld& world, const LayerRenderer& layer, PieceBuffers* buf) {
  const int rank = world.rank(), ranks = world.size();
  const int width = layer.width(), height = layer.height();
  std::vector<MPI_Request> sends;
  for (int j = 0; j < ranks; ++j) {
    const Piece p = piece_of(width, height, j, ranks);
    for (std::int64_t done = 0; j != rank && done < p.pixels; done += kMessagePixels) {
      const int bytes = static_cast<int>(std::min(kMessagePixels, p.pixels - done) * sizeof(LayerPixel));
      sends.emplace_back();
      mpi_check(MPI_Isend(layer.pixels().data() + p.offset + done, bytes, MPI_BYTE, j, kLayerTag, world.comm(),
                          &sends.back()),
                "MPI_Isend");
    }
  }
  const Piece mine = piece_of(width, height, rank, ranks);
  Float4* out = buf->composite.pixels.data();
  for (int r = 0; r < ranks; ++r) {
    if (r == rank) {
      composite_run(out, layer.pixels().data() + mine.offset, mine.pixels, r);
      continue;
    }
    for (std::int64_t done = 0; done < mine.pixels; done += kMessagePixels) {
      const std::int64_t n = std::min(kMessagePixels, mine.pixels - done);
      const int bytes = static_cast<int>(n * sizeof(LayerPixel));  // a longer message fails the call (truncated)
      MPI_Status status;
      mpi_check(MPI_Recv(buf->message.data(), bytes, MPI_BYTE, r, kLayerTag, world.comm(), &status), "MPI_Recv");
      int got = 0;
      mpi_check(MPI_Get_count(&status, MPI_BYTE, &got), "MPI_Get_count");
      if (got != bytes)
        mpi_abort("rank " + std::to_string(r) + " sent " + std::to_string(got) + " bytes of its layer where " +
                  std::to_string(bytes) + " were due");
      composite_run(out + done, buf->message.data(), n, r);
    }
  }
  mpi_check(MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

// The largest colour channel of the range's circles (0 for none).
float most_colour(const CircleRange& range) {
  float most = 0.f;
  for (const Circle& c : range.scene.circles) most = std::max({most, c.r, c.g, c.b});
  return most;
}

// Rank 0 says once what a colour above 1 leaves of the promise (every rank calls it).
void note_colours(const MpiWorld& world, const MpiRenderJob& job, float mine) {
  float most = 0.f;
  mpi_check(MPI_Allreduce(&mine, &most, 1, MPI_FLOAT, MPI_MAX, world.comm()), "MPI_Allreduce");
  if (world.rank() != 0 || most <= 1.f || world.size() == 1) return;
  const std::int64_t depth = layered_depth_limit(most, world.size());
  const std::string promise =
      depth > 1 ? "keeps each 8-bit channel within 1 of cpu-ref's only where fewer than " + std::to_string(depth) +
                      " circles cover a pixel"
                : "keeps no bound on 8-bit channels against cpu-ref at that scale";
  std::fprintf(stderr, "circles: note: %s has colours up to %g: --mpi circles %s (docs/SCALE.md); --mpi bands draws "
               "cpu-ref's bytes\n", job.label.c_str(), static_cast<double>(most), promise.c_str());
}

// The layer advanced to `frame` in steps shown on `progress` (rank 0), as seek_frames does.
void seek_layer(LayerRenderer& layer, bool animated, std::int64_t frame, Progress* progress) {
  if (!progress || !animated || frame - layer.frame() <= 1) return layer.seek(frame);
  const std::int64_t from = layer.frame();
  progress->restart("seek to frame " + std::to_string(frame), static_cast<double>(frame - from));
  while (layer.frame() < frame) {
    layer.seek(std::min(frame, layer.frame() + 64));
    progress->update(static_cast<double>(layer.frame() - from), "frame " + std::to_string(layer.frame()));
  }
}

// Everything a rank does before the first frame: its range taken (the rest dropped), its layer
// loaded and advanced to the first frame, its buffers allocated. Returns its largest colour channel.
float prepare(MpiRenderJob& job, int rank, int ranks, LayerRenderer* layer, PieceBuffers* buf, Progress* progress) {
  const bool animated = job.scene.animation != Animation::None;
  const Block mine = block_of(0, static_cast<std::int64_t>(job.scene.circles.size()), rank, ranks);
  CircleRange range = take_circle_range(std::move(job.scene), static_cast<std::size_t>(mine.begin),
                                        static_cast<std::size_t>(mine.end));
  const float most = most_colour(range);
  layer->load(std::move(range), job.width, job.height);
  buf->allocate(job.width, block_of(0, job.height, rank, ranks).size());
  seek_layer(*layer, animated, job.first, progress);
  return most;
}

}  // namespace

int render_circles_over_ranks(const MpiWorld& world, MpiRenderJob&& job) {
  const int rank = world.rank(), ranks = world.size();
  const unsigned threads = job.renderer == "cpu-ref" ? 1 : 0;
  if (rank == 0) say_plan(job, static_cast<std::int64_t>(job.scene.circles.size()), ranks);
  LayerRenderer layer(threads, rank == 0);
  PieceBuffers buf;
  const double frames = static_cast<double>(job.last - job.first);
  std::unique_ptr<Progress> progress;
  if (rank == 0) progress = std::make_unique<Progress>("render " + job.label, frames);
  Failure failed;
  float most = 0.f;
  try {
    most = prepare(job, rank, ranks, &layer, &buf, progress.get());
    if (progress) progress->restart("render " + job.label, frames);
  } catch (...) {
    failed = failure_of(std::current_exception());
  }
  Failure all = agree(world, failed);
  if (all.code == 0) note_colours(world, job, most);
  const std::size_t row_bytes = static_cast<std::size_t>(job.width) * 4;
  const std::string how = "circles over " + std::to_string(ranks) + " rank" + (ranks > 1 ? "s" : "") + ", composited";
  for (std::int64_t f = job.first; f < job.last && all.code == 0; ++f) {
    try {
      if (f > job.first) layer.advance();
      if (progress) progress->update(static_cast<double>(f - job.first), "frame " + std::to_string(f));
      layer.render();
    } catch (...) {
      failed = failure_of(std::current_exception());
    }
    all = agree(world, failed);
    if (all.code == 0) {
      composite_piece(world, layer, &buf);  // MPI calls only: they abort the job or succeed
      try {
        to_rgba8_bottom_up(buf.composite, buf.rgba.data(), threads);  // to_byte per channel, as write_png
        top_first(&buf.rgba, row_bytes);
      } catch (...) {
        failed = failure_of(std::current_exception());
      }
      all = agree(world, failed);
    }
    if (!finish_frame(world, job, f, buf.rgba, how, progress.get(), &all)) break;
  }
  return report(world, all);
}

}  // namespace circles
