// Issue 19, fact 6: a loop whose working set is near the L1 size. Each of
// the 1,024 threads of one block sweeps 46 columns of a 46 x 1024 float
// array twice: per sweep the block touches 46 x 32 warps = 1,472 lines of
// 128 B (184 KB). Whether L1 holds them depends on the carveout the driver
// picks and on the effective L1 size, neither of which the compiler knows.
#include <cstdio>
#include <cuda_runtime.h>

#define COLS 46
#define THREADS 1024

__global__ void sweep(const float *a, float *out) {
  int t = threadIdx.x;
  float s = 0.0f;
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < COLS; ++j)
      s += a[t + THREADS * j];
  out[blockIdx.x * THREADS + t] = s;
}

// The same sweep with 16 KB of shared memory per block, which puts the
// smallest carveout that holds it at 16 KB on sm_80 (L1 176 KB, 1,408 lines).
__global__ void sweep_shared(const float *a, float *out) {
  __shared__ float stage[4096];
  int t = threadIdx.x;
  float s = 0.0f;
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < COLS; ++j)
      s += a[t + THREADS * j];
  stage[t] = s;
  __syncthreads();
  out[blockIdx.x * THREADS + t] = stage[(t + 1) % THREADS];
}

int main() {
  const int blocks = 108;
  float *a, *out;
  cudaMalloc(&a, sizeof(float) * COLS * THREADS);
  cudaMalloc(&out, sizeof(float) * blocks * THREADS);
  cudaMemset(a, 0, sizeof(float) * COLS * THREADS);
  sweep<<<blocks, THREADS>>>(a, out);
  sweep_shared<<<blocks, THREADS>>>(a, out);
  float first = 0.0f;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(a);
  cudaFree(out);
  return 0;
}
