// One `__noinline__` function called by two kernels that want different
// things of its load (issue 19, `decide::callees`): `lookup` reads the
// 8-entry table t through `at` in a loop, every warp the same 32 bytes;
// `stream` reads a[i] through `at` once per thread, lines no other access
// reads. One PTX instruction takes one cache operator, so the load keeps
// its per-load verdict, and the report says the kernels disagree. `twice`
// calls `at2` from one kernel at two call sites: both copies are one
// instruction, decided once.
// Written for gpucc-cache's tests (tests/calls.rs).
#include <cstdio>
#include <cuda_runtime.h>

#define THREADS 256

__device__ __noinline__ float at(const float *p, int i) { return p[i]; }

__device__ __noinline__ float at2(const float *p, int i) { return p[i]; }

__global__ void lookup(const float *t, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < 8; ++k)
    s += at(t, k);
  out[i] = s;
}

__global__ void stream(const float *a, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = 2.0f * at(a, i);
}

__global__ void twice(const float *a, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = at2(a, i) + at2(a, i ^ 1);
}

int main() {
  const int n = THREADS * 1024;
  float *t, *a, *out;
  cudaMalloc(&t, 8 * sizeof(float));
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(t, 0, 8 * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  lookup<<<n / THREADS, THREADS>>>(t, out);
  stream<<<n / THREADS, THREADS>>>(a, out);
  twice<<<n / THREADS, THREADS>>>(a, out);
  cudaDeviceSynchronize();
  float first;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(t);
  cudaFree(a);
  cudaFree(out);
  return 0;
}
