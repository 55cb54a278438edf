// Host/device annotation so one source of truth (shading, blending, animation) compiles for
// both the CPU renderers and the CUDA kernels. Plain C++ sees empty macros.
#pragma once
#if defined(__CUDACC__)
#define CIRCLES_HD __host__ __device__ __forceinline__
#else
#define CIRCLES_HD inline
#endif
