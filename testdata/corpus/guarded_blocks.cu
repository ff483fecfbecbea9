// Loads that only some blocks or lanes execute: a block-index guard, a
// first-eight-lanes guard filling a shared coefficient table, and a time
// loop whose guard is false on the first iteration.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void second_block_only(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 1) {
    if (i < n)
      out[threadIdx.x] = 2.0f * in[i] + in[threadIdx.x];
  }
}

__global__ void first_lanes_table(const float *table, const float *in, float *out, int n) {
  __shared__ float coeff[8];
  if (threadIdx.x < 8)
    coeff[threadIdx.x] = table[blockIdx.x % 4 * 8 + threadIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * coeff[threadIdx.x & 7];
}

// Time-stepped update: history is only read once a previous step exists.
__global__ void leapfrog(const float *hist, const float *force, float *cur, int steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = cur[i];
  for (int t = 0; t < steps; t++) {
    float f = force[(size_t)t * n + i];
    if (t > 0)
      x = 2.0f * x - hist[(size_t)(t - 1) * n + i] + 0.01f * f;
    else
      x = x + 0.005f * f;
  }
  cur[i] = x;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int steps = argc > 2 ? atoi(argv[2]) : 16;
  float *d_in, *d_out, *d_table, *d_hist, *d_force;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_table, 32 * sizeof(float));
  cudaMalloc(&d_hist, (size_t)steps * n * sizeof(float));
  cudaMalloc(&d_force, (size_t)steps * n * sizeof(float));
  cudaMemset(d_in, 0, n * sizeof(float));

  second_block_only<<<4, 256>>>(d_in, d_out, n);
  first_lanes_table<<<(n + 255) / 256, 256>>>(d_table, d_in, d_out, n);
  leapfrog<<<(n + 255) / 256, 256>>>(d_hist, d_force, d_out, steps, n);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(d_in); cudaFree(d_out); cudaFree(d_table); cudaFree(d_hist); cudaFree(d_force);
  return 0;
}
