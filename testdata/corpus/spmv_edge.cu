// Sparse matrix-vector product y = A x with one thread per nonzero (COO),
// accumulating into y with atomicAdd: the edge-per-thread SpMV of GRAPE's
// evaluation. The nonzeros' order decides which x entries the threads of one
// SM gather; `gpucc-cache partition` writes row[] and col[] in GRAPE's order
// (a negative row marks a padding thread of a cluster shorter than its blocks).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void spmv_edge(const int *__restrict__ row, const int *__restrict__ col,
                          const float *__restrict__ val, const float *x, float *y, int nnz) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nnz)
    return;
  int r = row[t];
  if (r < 0)
    return;
  atomicAdd(&y[r], val[t] * x[col[t]]);
}

int main(int argc, char **argv) {
  // A 5-point Laplacian on an n x n grid, rows in grid order.
  int n = argc > 1 ? atoi(argv[1]) : 256;
  std::vector<int> row, col;
  std::vector<float> val;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int r = i * n + j;
      const int di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};
      for (int k = 0; k < 5; ++k) {
        int ii = i + di[k], jj = j + dj[k];
        if (ii < 0 || jj < 0 || ii >= n || jj >= n)
          continue;
        row.push_back(r);
        col.push_back(ii * n + jj);
        val.push_back(k == 0 ? 4.0f : -1.0f);
      }
    }
  int nnz = (int)row.size(), rows = n * n;
  int *d_row, *d_col;
  float *d_val, *d_x, *d_y;
  cudaMalloc(&d_row, nnz * sizeof(int));
  cudaMalloc(&d_col, nnz * sizeof(int));
  cudaMalloc(&d_val, nnz * sizeof(float));
  cudaMalloc(&d_x, rows * sizeof(float));
  cudaMalloc(&d_y, rows * sizeof(float));
  cudaMemcpy(d_row, row.data(), nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_val, val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice);
  std::vector<float> x(rows, 1.0f);
  cudaMemcpy(d_x, x.data(), rows * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_y, 0, rows * sizeof(float));
  spmv_edge<<<(nnz + 255) / 256, 256>>>(d_row, d_col, d_val, d_x, d_y, nnz);
  std::vector<float> y(rows);
  cudaMemcpy(y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost);
  printf("y[0] = %f\n", y[0]);
  cudaFree(d_row);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_x);
  cudaFree(d_y);
  return 0;
}
