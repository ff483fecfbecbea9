// A gather into a small allocation (issue 19 fact 12: an unknown address
// is not evidence of no reuse). `table[idx[i]]` reads a 4 KB table the host
// allocates with cudaMalloc of a constant size: the index is loaded, but a
// read outside the allocation would be undefined, so the model draws it
// within the 4,096 bytes (32 lines of 128 B) and sees the table stay in L1.
// `wide` is the same kernel on a table whose size the host computes at run
// time: nothing bounds its index, and each lane is taken to read a line of
// its own (the paper's assumption). `by_block` reads its indices from a
// place a block-uniform load chose (a stand-in: the interval of the index is
// hidden), which does not hide the allocation.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N 4096
#define TABLE 1024

__global__ void narrow(const int *idx, const float *table, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = table[idx[i]];
}

__global__ void wide(const int *idx, const float *table, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = table[idx[i]];
}

__global__ void by_block(const int *first, const int *idx, const float *table, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = table[idx[first[blockIdx.x] + threadIdx.x]];
}

int main(int argc, char **argv) {
  int *h = (int *)malloc(N * sizeof(int));
  for (int i = 0; i < N; i++) h[i] = (i * 7919) % TABLE;
  int *idx, *first;
  float *table, *big, *out;
  size_t entries = (size_t)TABLE * (size_t)(argc + 63);
  cudaMalloc(&idx, N * sizeof(int));
  cudaMalloc(&table, TABLE * sizeof(float));
  cudaMalloc(&big, entries * sizeof(float));
  cudaMalloc(&out, N * sizeof(float));
  cudaMalloc(&first, (N / 128) * sizeof(int));
  cudaMemset(first, 0, (N / 128) * sizeof(int));
  cudaMemcpy(idx, h, N * sizeof(int), cudaMemcpyHostToDevice);
  narrow<<<N / 128, 128>>>(idx, table, out);
  wide<<<N / 128, 128>>>(idx, big, out);
  by_block<<<N / 128, 128>>>(first, idx, table, out);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
