// The float4 -> RGBA8 surface-write kernel behind CUDA-GL interop (app/interop_present.cu).
#pragma once
#include <cuda_runtime.h>

namespace circles {

// Converts `src` (float4 RGBA, width * height, row 0 = bottom) into the RGBA8 surface `dst`
// (row 0 = bottom, as GL textures), each byte exactly what to_rgba8 gives, on `stream`.
void launch_float4_to_rgba8(cudaSurfaceObject_t dst, const float4* src, int width, int height,
                            cudaStream_t stream);

}  // namespace circles
