// 256-bin byte histogram.  Each block accumulates a private histogram in
// shared memory with shared atomics, then merges it into the global
// histogram with one atomicAdd per bin.
#include <cuda_runtime.h>
#include <cstdio>

#define NUM_BINS 256

__global__ void histogram_shared(const unsigned char *data, size_t n, unsigned int *hist) {
  __shared__ unsigned int local[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();

  size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();

  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    if (local[b])
      atomicAdd(&hist[b], local[b]);
}

// Packed variant: reads four bytes at a time through a uchar4 view.
__global__ void histogram_packed(const uchar4 *__restrict__ data, int n4, unsigned int *hist) {
  __shared__ unsigned int local[NUM_BINS];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    uchar4 v = data[i];
    atomicAdd(&local[v.x], 1u);
    atomicAdd(&local[v.y], 1u);
    atomicAdd(&local[v.z], 1u);
    atomicAdd(&local[v.w], 1u);
  }
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

int main() {
  const size_t n = 64u << 20;
  unsigned char *d_data;
  unsigned int *d_hist;
  cudaMalloc(&d_data, n);
  cudaMalloc(&d_hist, NUM_BINS * sizeof(unsigned int));
  cudaMemset(d_data, 7, n);
  cudaMemset(d_hist, 0, NUM_BINS * sizeof(unsigned int));

  int sm_count = 0;
  cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
  histogram_shared<<<sm_count * 4, 512>>>(d_data, n, d_hist);
  histogram_packed<<<240, NUM_BINS>>>((const uchar4 *)d_data, (int)(n / 4), d_hist);

  unsigned int h_hist[NUM_BINS];
  cudaMemcpy(h_hist, d_hist, sizeof(h_hist), cudaMemcpyDeviceToHost);
  printf("bin 7: %u\n", h_hist[7]);
  cudaFree(d_data);
  cudaFree(d_hist);
  return 0;
}
