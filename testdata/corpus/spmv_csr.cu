// Scalar CSR sparse matrix-vector product: one thread per row, inner loop
// over the row's nonzeros with runtime bounds row_ptr[row] .. row_ptr[row+1].
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void spmv_csr_scalar(int num_rows, const int *row_ptr, const int *cols,
                                const float *vals, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < num_rows) {
    float dot = 0.0f;
    int row_start = row_ptr[row];
    int row_end = row_ptr[row + 1];
    for (int jj = row_start; jj < row_end; jj++)
      dot += vals[jj] * x[cols[jj]];
    y[row] += dot;
  }
}

// Variant with restrict-qualified inputs and a diagonal scaling vector.
__global__ void spmv_csr_scaled(int num_rows, const int *__restrict__ row_ptr,
                                const int *__restrict__ cols, const float *__restrict__ vals,
                                const float *__restrict__ x, const float *__restrict__ dinv,
                                float *__restrict__ y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= num_rows)
    return;
  float dot = 0.0f;
  for (int jj = row_ptr[row]; jj < row_ptr[row + 1]; jj++)
    dot += vals[jj] * x[cols[jj]];
  y[row] = dinv[row] * dot;
}

void run_spmv(int num_rows, int nnz_per_row) {
  int nnz = num_rows * nnz_per_row;
  int *h_ptr = (int *)malloc((num_rows + 1) * sizeof(int));
  int *h_cols = (int *)malloc(nnz * sizeof(int));
  for (int r = 0; r <= num_rows; r++) h_ptr[r] = r * nnz_per_row;
  for (int k = 0; k < nnz; k++) h_cols[k] = rand() % num_rows;

  int *d_ptr, *d_cols;
  float *d_vals, *d_x, *d_y, *d_dinv;
  cudaMalloc((void **)&d_ptr, (num_rows + 1) * sizeof(int));
  cudaMalloc((void **)&d_cols, nnz * sizeof(int));
  cudaMalloc((void **)&d_vals, nnz * sizeof(float));
  cudaMalloc((void **)&d_x, num_rows * sizeof(float));
  cudaMalloc((void **)&d_y, num_rows * sizeof(float));
  cudaMalloc((void **)&d_dinv, num_rows * sizeof(float));
  cudaMemcpy(d_ptr, h_ptr, (num_rows + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_cols, h_cols, nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_vals, 0, nnz * sizeof(float));
  cudaMemset(d_x, 0, num_rows * sizeof(float));
  cudaMemset(d_y, 0, num_rows * sizeof(float));
  cudaMemset(d_dinv, 0, num_rows * sizeof(float));

  const int THREADS = 128;
  int blocks = (num_rows + THREADS - 1) / THREADS;
  spmv_csr_scalar<<<blocks, THREADS>>>(num_rows, d_ptr, d_cols, d_vals, d_x, d_y);
  spmv_csr_scaled<<<blocks, THREADS>>>(num_rows, d_ptr, d_cols, d_vals, d_x, d_dinv, d_y);
  cudaDeviceSynchronize();

  cudaFree(d_ptr); cudaFree(d_cols); cudaFree(d_vals);
  cudaFree(d_x); cudaFree(d_y); cudaFree(d_dinv);
  free(h_ptr); free(h_cols);
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 100000;
  run_spmv(rows, 16);
  printf("spmv done\n");
  return 0;
}
