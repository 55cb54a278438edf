// The plan's facts of a made-up scene, for tests of cuda-tile-binned's plan without a GPU
// (tests/cpu/binned_plan_test.cpp, tests/gpu/cuda/shade_table_test.cpp).
#pragma once
#include <cstddef>

#include "kernels/renderers/binned/plan.h"

namespace circles::binned::test {

// Facts of a scene of n circles of this median radius (pixels) at 1024x1024.
inline SceneFacts facts(std::size_t n, float radius_px, Shading shading = Shading::Flat) {
  SceneFacts f;
  f.circles = n;
  f.shading = shading;
  f.median_radius_px = radius_px;
  f.mean_area_px = 3.14159265 * radius_px * radius_px;
  f.depth = static_cast<double>(n) * f.mean_area_px / (1024.0 * 1024.0);
  return f;
}

}  // namespace circles::binned::test
