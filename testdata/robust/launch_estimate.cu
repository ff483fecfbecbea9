// The launch estimate (issue 19, predictions within 25 %): one SM's blocks
// are not the grid's. Four blocks of 32 threads on a machine of two SMs
// (`tests/robust_decisions.rs` describes it): the block scheduler deals
// blocks 0 and 2 to SM 0, blocks 1 and 3 to SM 1. Even blocks read their
// own 32 floats, odd blocks all read a[0]. SM 0's blocks alone, scaled to
// the grid, say every block reads a whole line.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void halves(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[(blockIdx.x & 1) ? 0 : i];
}

int main() {
  float *a, *out;
  cudaMalloc(&a, 128 * sizeof(float));
  cudaMalloc(&out, 128 * sizeof(float));
  halves<<<4, 32>>>(a, out);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
