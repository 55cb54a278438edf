// Where the frame goes in the framebuffer: a rectangle of pixels and the frame's placement in it
// (the viewer's layout computes them; the presenter draws there).
#pragma once

namespace circles {

// A rectangle in framebuffer pixels, OpenGL convention: (x, y) is the bottom-left corner.
struct PixelRect {
  int x = 0, y = 0, w = 0, h = 0;
};

// Where a frame of img_w x img_h texels lands: texel (i, j) covers framebuffer pixels
// [origin + (i, j) * scale, origin + (i + 1, j + 1) * scale). The origin is whole pixels, so at
// scale 1 every texel is exactly one pixel.
struct Placement {
  double origin_x = 0, origin_y = 0;
  double scale = 1;  // framebuffer pixels per texel
};

}  // namespace circles
