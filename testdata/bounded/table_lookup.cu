// Bounded data-dependent addresses (the kernel-level model's bounded
// unknowns). `lookup` streams data[] (each element read once) and looks
// each value up in a table, table[v & (LUT - 1)]: the index is loaded, so
// the address is unknown per thread, but the mask confines it to the
// table's LUT * 4 bytes (128 KB). `lookup_small` does the same with a 1 KB
// table, as testdata/sim/histogram.cu does. `gather` reads x[idx[i]]:
// nothing bounds idx[i], so the address stays unknown and unbounded.
#include <cuda_runtime.h>

#define N (1 << 20)
#define LUT 32768
#define SMALL_LUT 256
#define BLOCK 256
#define GRID 1024

__global__ void lookup(const unsigned *data, const int *table, int *out, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned v = data[i];
    out[i] = table[v & (LUT - 1)];
  }
}

__global__ void lookup_small(const unsigned *data, const int *table, int *out, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned v = data[i];
    out[i] = table[v & (SMALL_LUT - 1)];
  }
}

__global__ void gather(const float *x, const int *idx, float *out, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = x[idx[i]];
}

int main() {
  unsigned *data;
  int *table, *out, *idx;
  float *x, *y;
  cudaMalloc(&data, N * sizeof(unsigned));
  cudaMalloc(&table, LUT * sizeof(int));
  cudaMalloc(&out, N * sizeof(int));
  cudaMalloc(&idx, N * sizeof(int));
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  lookup<<<GRID, BLOCK>>>(data, table, out, N);
  lookup_small<<<GRID, BLOCK>>>(data, table, out, N);
  gather<<<GRID, BLOCK>>>(x, idx, y, N);
  cudaDeviceSynchronize();
  return 0;
}
