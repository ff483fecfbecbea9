// Coordinate-format (COO) sparse matrix-vector product, one thread per
// nonzero: reads row[e], col[e], val[e], x[col[e]] and accumulates into
// y[row[e]] with atomicAdd.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void spmv_coo_atomic(const int *row, const int *col, const float *val,
                                const float *x, float *y, int nnz) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < nnz) {
    int r = row[e];
    int c = col[e];
    atomicAdd(&y[r], val[e] * x[c]);
  }
}

// Grid-stride version over 64-bit edge ids, as used for very large graphs.
__global__ void spmv_coo_atomic_strided(const int *__restrict__ row, const int *__restrict__ col,
                                        const float *__restrict__ val,
                                        const float *__restrict__ x, float *y, size_t nnz) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz; e += stride)
    atomicAdd(y + row[e], val[e] * x[col[e]]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 18;
  int nnz = n * 12;
  int *h_row = (int *)malloc(nnz * sizeof(int));
  int *h_col = (int *)malloc(nnz * sizeof(int));
  for (int e = 0; e < nnz; e++) {
    h_row[e] = e / 12;
    h_col[e] = rand() % n;
  }
  int *d_row, *d_col;
  float *d_val, *d_x, *d_y;
  cudaMalloc(&d_row, nnz * sizeof(int));
  cudaMalloc(&d_col, nnz * sizeof(int));
  cudaMalloc(&d_val, nnz * sizeof(float));
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMemcpy(d_row, h_row, nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, h_col, nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_val, 0, nnz * sizeof(float));
  cudaMemset(d_x, 0, n * sizeof(float));
  cudaMemset(d_y, 0, n * sizeof(float));

  int threads = 256;
  int blocks = (nnz + threads - 1) / threads;
  spmv_coo_atomic<<<blocks, threads>>>(d_row, d_col, d_val, d_x, d_y, nnz);
  spmv_coo_atomic_strided<<<120, 512>>>(d_row, d_col, d_val, d_x, d_y, (size_t)nnz);
  cudaDeviceSynchronize();
  printf("coo spmv done\n");

  cudaFree(d_row); cudaFree(d_col); cudaFree(d_val); cudaFree(d_x); cudaFree(d_y);
  free(h_row); free(h_col);
  return 0;
}
