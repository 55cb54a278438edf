#include "render/inspect.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "render/raster.h"

namespace circles {

PixelReport inspect_pixel(const Scene& scene, int width, int height, int i, int j, int tile_size,
                          std::size_t max_steps) {
  if (width < 1 || height < 1 || i < 0 || j < 0 || i >= width || j >= height)
    throw std::out_of_range("pixel " + std::to_string(i) + "," + std::to_string(j) + " is outside the " +
                            std::to_string(width) + "x" + std::to_string(height) + " frame");
  PixelReport r;
  r.i = i;
  r.j = j;
  r.tile_size = std::max(1, tile_size);
  r.tile_x = i / r.tile_size;
  r.tile_y = j / r.tile_size;
  const View v = make_view(width, height);
  const float px = v.pixel_x(i), py = v.pixel_y(j);
  // The tile's extreme pixel centres, as the tiled renderers cull against them.
  const int ti0 = r.tile_x * r.tile_size, ti1 = std::min(width, ti0 + r.tile_size) - 1;
  const int tj0 = r.tile_y * r.tile_size, tj1 = std::min(height, tj0 + r.tile_size) - 1;
  const float x0 = v.pixel_x(ti0), x1 = v.pixel_x(ti1), y0 = v.pixel_y(tj0), y1 = v.pixel_y(tj1);
  r.background = background_at(scene.background, j, height);
  Float4 p = r.background;
  for (std::size_t k = 0; k < scene.circles.size(); ++k) {
    const Circle& c = scene.circles[k];
    if (circle_touches_box(c.x, c.y, c.radius, x0, y0, x1, y1)) ++r.tile_circles;
    float alpha = 0;
    if (!blend_circle(scene.shading, px, py, c.x, c.y, c.z, c.radius, c.r, c.g, c.b, c.a, &p, &alpha)) continue;
    ++r.covering;
    if (r.steps.size() < max_steps)
      r.steps.push_back({static_cast<std::uint32_t>(k), Float4{c.r, c.g, c.b, c.a}, alpha, p});
  }
  r.final_colour = p;
  return r;
}

}  // namespace circles
