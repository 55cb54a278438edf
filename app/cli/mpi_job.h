// What the MPI render paths share (app/cli/mpi_render.cpp resolves it on every rank; the modes
// take it): the scene at its frame, the frame size and range, the output pattern and the renderer.
// The three ways (docs/SCALE.md): frames, bands (sort-first) and circles (sort-last).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/mpi_split.h"
#include "app/cli/mpi_world.h"
#include "render/renderer.h"
#include "render/scene.h"

namespace circles {

struct MpiRenderJob {
  Scene scene;
  std::string label;  // the scene as given (a name or a path), for messages
  int width = 0, height = 0;
  std::int64_t first = 0, last = 1;  // frames [first, last)
  std::string pattern;               // -o
  std::string renderer;
  RendererSettings settings;
};

// "frame 3 was WHAT", "frames 0..2, 5..7 were WHAT": the frames in `blocks` (in order, empty ones
// skipped); "" where they hold none.
std::string frames_phrase(const std::vector<Block>& blocks, const char* what);

// Each rank a contiguous block of the frames, each frame's file written by its rank (mpi_frames.cpp).
int render_frames_over_ranks(const MpiWorld& world, const MpiRenderJob& job);
// Each frame's rows in bands, one a rank, one PNG written by rank 0 (mpi_bands.cpp).
int render_bands_over_ranks(const MpiWorld& world, const MpiRenderJob& job);
// Each rank a contiguous range of the circles drawn to a layer, the layers composited by rows in
// rank order, one PNG written by rank 0 (mpi_circles.cpp). Takes the job's scene: each rank keeps
// its range only.
int render_circles_over_ranks(const MpiWorld& world, MpiRenderJob&& job);

}  // namespace circles
