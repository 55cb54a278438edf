// A band of rows of a frame, drawn on the CPU exactly as cpu-ref draws those rows of the whole
// frame: the pixel centres are the whole frame's (its View, render/raster.h), each row's
// background is the whole frame's row's, and every pixel blends the circles that cover it in
// order with the same blend_circle. So the band's floats are cpu-ref's (and cpu-mt's) to the bit,
// and the rows of an MPI render split into bands (docs/SCALE.md) join into the one-process image.
#pragma once
#include <memory>

#include "render/renderer.h"

namespace circles {

// Rows [first_row, first_row + rows) (row 0 = bottom) of the width x height frame that load()
// is given. The renderer's image is width x rows, its row 0 the frame's first_row; rows may be 0
// (an empty band: nothing to draw). threads: 1 draws circle by circle in one thread, as cpu-ref
// does; 0 (all cores) or more splits the band into stripes of rows shaded in parallel, each
// stripe's circles kept in order, as cpu-mt's tiles. load() throws std::invalid_argument when the
// band does not lie in the frame.
std::unique_ptr<Renderer> make_band_renderer(int first_row, int rows, unsigned threads);

}  // namespace circles
