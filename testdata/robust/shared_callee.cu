// One `__noinline__` function called by two kernels that want different
// things of its load (issue 19, `decide::callees`): `lookup` reads the
// 8-entry table t through `at` in a loop, every warp the same 32 bytes;
// `stream` reads a[i] through `at` once per thread, lines no other access
// reads. One PTX instruction takes one cache operator: each kernel prices
// the other verdict, and the one with the least worst ratio is taken
// (caching: lookup's bypass would cost it its reuse). `twice`
// calls `at2` from one kernel at two call sites: both copies are one
// instruction, decided once. `late` reads a table through `at3` only in
// blocks its traced wave never reaches, and `once` streams through it: no
// trace shows late's reuse, so `at3` is cached, not bypassed on once's
// evidence. `far` reads a table through `at4`, reached through seven
// calls, past the depth the model follows, and `near` streams through it:
// far's reuse is unseen, so `at4` is cached.
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

__device__ __noinline__ float at3(const float *p, int i) { return p[i]; }

__global__ void once(const float *a, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = 2.0f * at3(a, i);
}

__global__ void late(const float *t, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (blockIdx.x < 1000)
    return;
  float s = 0.0f;
  for (int k = 0; k < 8; ++k)
    s += at3(t, k);
  out[i] = s;
}

__device__ __noinline__ float at4(const float *p, int i) { return p[i]; }
__device__ __noinline__ float layer1(const float *p, int i) { return at4(p, i) + 1.0f; }
__device__ __noinline__ float layer2(const float *p, int i) { return layer1(p, i) + 1.0f; }
__device__ __noinline__ float layer3(const float *p, int i) { return layer2(p, i) + 1.0f; }
__device__ __noinline__ float layer4(const float *p, int i) { return layer3(p, i) + 1.0f; }
__device__ __noinline__ float layer5(const float *p, int i) { return layer4(p, i) + 1.0f; }
__device__ __noinline__ float layer6(const float *p, int i) { return layer5(p, i) + 1.0f; }

__global__ void far(const float *t, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = layer6(t, threadIdx.x & 7);
}

__global__ void near(const float *a, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = 2.0f * at4(a, i);
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
  once<<<n / THREADS, THREADS>>>(a, out);
  late<<<n / THREADS, THREADS>>>(t, out);
  far<<<n / THREADS, THREADS>>>(t, out);
  near<<<n / THREADS, THREADS>>>(a, out);
  cudaDeviceSynchronize();
  float first;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(t);
  cudaFree(a);
  cudaFree(out);
  return 0;
}
