// Built and run on the H100: nvcc -O2 -arch=sm_90 -o pdl_probe pdl_probe.cu && ./pdl_probe (output: probe_events_lazy_timer.log, its first lines).
// Probe: does an event record between two kernels stop programmatic dependent launch from
// overlapping them? Kernel A spins; kernel B (PDL) stamps its start before waiting on A.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)
__device__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
__global__ void A(unsigned long long* end, int spin, bool trigger) {
  if (trigger) cudaTriggerProgrammaticLaunchCompletion();
  long long s = clock64();
  while (clock64() - s < spin) {}
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(end, gt());
}
__global__ void B(unsigned long long* start, unsigned long long* after, const unsigned long long* end) {
  if (threadIdx.x == 0) atomicMin(start, gt());
  cudaGridDependencySynchronize();
  if (threadIdx.x == 0) atomicMin(after, gt());
}
int main() {
  unsigned long long* d; CK(cudaMalloc(&d, 3 * sizeof *d));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cudaEvent_t e0, e1, em; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&em));
  const char* names[] = {"plain", "pdl", "pdl+event", "pdl+trigger", "pdl+trigger+event"};
  for (int mode = 0; mode < 5; ++mode) {
    double sum_gap = 0, sum_ms = 0; int reps = 20;
    for (int r = 0; r < reps + 3; ++r) {
      unsigned long long h[3] = {0, ~0ull, ~0ull};
      CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
      const bool pdl = mode > 0, ev = mode == 2 || mode == 4, trig = mode >= 3;
      CK(cudaEventRecord(e0, s));
      A<<<528, 256, 0, s>>>(d, 20000, trig);
      CK(cudaGetLastError());
      if (ev) CK(cudaEventRecord(em, s));
      cudaLaunchConfig_t cfg = {}; cfg.gridDim = 528; cfg.blockDim = 256; cfg.stream = s;
      cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      at[0].val.programmaticStreamSerializationAllowed = pdl ? 1 : 0;
      cfg.attrs = at; cfg.numAttrs = 1;
      CK(cudaLaunchKernelEx(&cfg, B, d + 1, d + 2, (const unsigned long long*)d));
      CK(cudaEventRecord(e1, s));
      CK(cudaStreamSynchronize(s));
      CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 3) { sum_gap += (double)(long long)(h[1] - h[0]); sum_ms += ms; }
    }
    printf("%-20s B's first block starts %+8.2f us after A's end; frame %.2f us\n", names[mode], sum_gap / reps / 1000, sum_ms / reps * 1000);
  }
  return 0;
}
