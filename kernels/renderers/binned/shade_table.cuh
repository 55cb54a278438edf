// The shade table: every shade kernel of cuda-tile-binned, keyed by the variant (plan.h's
// ShadeVariant) that the frame's plan asks for. The renderer looks a frame's variant up and
// launches what it finds; shade_table.cu lists the entries.
#pragma once
#include <vector>

#include "kernels/renderers/base.cuh"
#include "kernels/renderers/binned/plan.h"
#include "kernels/renderers/binned/shade_common.cuh"

namespace circles::binned {

using ShadeFn = void (*)(DeviceCircles, FrameParams, ShadeArgs);
struct ShadeKernel {
  ShadeVariant variant;
  ShadeFn kernel;
  int threads;  // a block's
};
const std::vector<ShadeKernel>& shade_table();
// The entry of `v`; std::logic_error naming the variant where the table has none.
const ShadeKernel& shade_kernel_for(const ShadeVariant& v);

}  // namespace circles::binned
