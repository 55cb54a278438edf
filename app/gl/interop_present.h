// The float4 -> RGBA8 kernel behind CUDA-GL interop (app/gl/interop_present.cu): one kernel, two
// destinations (a surface over the registered texture, or a registered pixel buffer).
#pragma once
#include <cuda_runtime.h>

namespace circles {

// Converts `src` (float4 RGBA, width * height, row 0 = bottom) into RGBA8, each byte exactly what
// to_rgba8 gives, row 0 = bottom (as GL textures), on `stream`:
// into the RGBA8 surface `dst` (the registered texture, "surface" path) ...
void launch_float4_to_rgba8(cudaSurfaceObject_t dst, const float4* src, int width, int height,
                            cudaStream_t stream);
// ... or into `dst`, width * height tightly packed uchar4 (the mapped pixel buffer, "pbo" path).
void launch_float4_to_rgba8(uchar4* dst, const float4* src, int width, int height, cudaStream_t stream);

}  // namespace circles
