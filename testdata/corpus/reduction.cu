// Sum reduction: each block loads two elements per thread, reduces them in
// shared memory with a halving tree, and finishes the last warp through a
// volatile shared pointer in a __device__ helper.
#include <cuda_runtime.h>
#include <cstdio>

__device__ void warp_reduce(volatile float *sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

__global__ void reduce_tree(const float *g_in, float *g_out, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = 0.0f;
  if (i < n) v = g_in[i];
  if (i + blockDim.x < n) v += g_in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32)
    warp_reduce(sdata, tid);
  if (tid == 0)
    g_out[blockIdx.x] = sdata[0];
}

// Plain version: full tree with a barrier at every level.
__global__ void reduce_simple(const float *__restrict__ g_in, float *__restrict__ g_out, int n) {
  __shared__ float sdata[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_out[blockIdx.x] = sdata[0];
}

int main() {
  const unsigned int n = 1 << 24;
  const int threads = 256;
  unsigned int blocks = (n + threads * 2 - 1) / (threads * 2);
  float *d_in, *d_a, *d_b;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_a, blocks * sizeof(float));
  cudaMalloc(&d_b, blocks * sizeof(float));
  cudaMemset(d_in, 0, n * sizeof(float));

  reduce_tree<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_a, n);
  int m = (int)blocks;
  while (m > 1) {
    int b = (m + 255) / 256;
    reduce_simple<<<b, 256>>>(d_a, d_b, m);
    float *t = d_a;
    d_a = d_b;
    d_b = t;
    m = b;
  }
  float h_out;
  cudaMemcpy(&h_out, d_a, sizeof(float), cudaMemcpyDeviceToHost);
  printf("sum %f\n", h_out);
  cudaFree(d_in);
  cudaFree(d_a);
  cudaFree(d_b);
  return 0;
}
