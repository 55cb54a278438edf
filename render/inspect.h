// The pixel inspector's answer: for one pixel of a frame, which circles cover it and what each
// blend made of it, walked on the CPU in circle order with the same blend_circle as cpu-ref (so
// the last colour is cpu-ref's, bit for bit), plus the tile the pixel falls in and how many
// circles that tile holds. Renderer-independent: any renderer's pixel is compared with it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "render/image.h"
#include "render/scene.h"

namespace circles {

struct BlendStep {
  std::uint32_t index = 0;  // the circle's position in the scene (blend order)
  Float4 colour;            // its colour and alpha as given (before shading)
  float alpha = 0;          // the alpha it was blended with (differs from colour.w when shaded)
  Float4 after;             // the pixel after this blend
};

struct PixelReport {
  int i = 0, j = 0;                 // the pixel (row 0 = bottom)
  int tile_size = 0, tile_x = 0, tile_y = 0;
  std::size_t tile_circles = 0;     // circles whose conservative box touches the tile
  Float4 background;                // the pixel before any circle
  std::vector<BlendStep> steps;     // the first `max_steps` covering circles, in order
  std::size_t covering = 0;         // every covering circle (may exceed steps.size())
  Float4 final_colour;              // after all of them: cpu-ref's value
};

// Walks `scene` (its circles as they are: advance it first for a later frame) for pixel (i, j)
// of a width x height frame; tiles of tile_size pixels (>= 1). Keeps at most max_steps steps.
// Throws std::out_of_range for a pixel outside the frame.
PixelReport inspect_pixel(const Scene& scene, int width, int height, int i, int j, int tile_size,
                          std::size_t max_steps = 4096);

}  // namespace circles
