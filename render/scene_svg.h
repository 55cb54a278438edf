// SVG drawings as scenes: `<circle>` (and `<ellipse>` with equal radii), their fill and opacity,
// in `<g>` groups with transforms, the root's viewBox and size mapped onto circles' unit square.
// Read with expat (Debian's libexpat1-dev); whatever the format allows that circles cannot draw
// exactly as SVG does is refused with its file:line (docs/FORMAT.md lists what is read).
#pragma once
#include <string>
#include <string_view>

#include "render/scene.h"

namespace circles {

// Whether the path names an SVG file (".svg", any case).
bool is_svg_path(const std::string& path);
// The scene an SVG document draws; SceneError (file:line:column) on anything it cannot take.
Scene parse_svg(std::string_view text, const std::string& source_name);
// Whether this build reads SVG (it was built with expat).
bool svg_supported();

}  // namespace circles
