// One error-check family for every CUDA call and launch: CUDA_CHECK throws CudaError carrying
// file, line, the expression and CUDA's own message; CUDA_CHECK_PRINT only reports (for
// destructors, which must not throw); CUDA_CHECK_LAUNCH checks the launch just made.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace circles {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* expr, const char* file, int line)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                           " failed: " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code)),
        code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

}  // namespace circles

#define CUDA_CHECK(expr)                                                      \
  do {                                                                        \
    const cudaError_t circles_err_ = (expr);                                  \
    if (circles_err_ != cudaSuccess)                                          \
      throw ::circles::CudaError(circles_err_, #expr, __FILE__, __LINE__);    \
  } while (0)

#define CUDA_CHECK_PRINT(expr)                                                            \
  do {                                                                                    \
    const cudaError_t circles_err_ = (expr);                                              \
    if (circles_err_ != cudaSuccess)                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,           \
                   cudaGetErrorString(circles_err_));                                     \
  } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
