// What every binning stage of a chunk takes (ChunkArgs), handed to each stage's launcher (the
// count, duplicate and tile ranges of binning by sorting in sort_path.cuh; the count and scatter
// of binning by counting in count_path.cuh), so that a call names only what differs. The
// launchers pass the kernels their positional parameters: a kernel taking the struct itself
// compiled to other code (ptxas: other register counts) and timed up to 2x slower in the count.
#pragma once
#include "kernels/renderers/base.cuh"
#include "kernels/renderers/binned/chunks.h"
#include "render/raster.h"

namespace circles::binned {

struct ChunkArgs {
  DeviceCircles c;                        // the scene's circles; the chunk is [lo, hi)
  int lo = 0, hi = 0;
  View v;
  int tile = 0, tiles_x = 0, tiles = 0;   // tile side in pixels, tiles a row, tiles in all
  const unsigned char* settled = nullptr; // early exit's settled tiles after the first chunk, else none
  int* counts = nullptr;                  // a count a circle of the chunk
  ChunkStats* stats = nullptr;            // the chunk's totals, read by the host
  FusedStep step{};                       // the animation step the frame's first count takes
};

// Bits of a tile index (the sort's end bit and the scatter's keys): at least 1.
inline int tile_bits(unsigned tiles) {
  int b = 0;
  while (b < 32 && (1ull << b) < tiles) ++b;
  return b > 0 ? b : 1;
}

}  // namespace circles::binned
