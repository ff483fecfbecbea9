// sim-data: gpucc-cache "$PROGRAM" -o gen && ./gen --dump-kernel-data "$WORK"
// sim-data-flags: --kernel-data=row_ptr=$WORK/row_ptr.i32 --kernel-data=col=$WORK/col.i32
// spmv_csr: CSR sparse matrix-vector product, one thread per row, on the 5-point Laplacian of a
// W x H mesh whose vertices are renumbered by a fixed-seed random permutation. row_ptr, col and
// val are streamed (each thread its own short run), x[col[k]] is a gather: neighbouring mesh points
// sit at random rows, so the x loads of a warp touch scattered lines, reused by whichever threads
// happen to share them. Two products: y = A x, then z = A y.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>
#include "kernel_data_dump.h"

#define W 64
#define H 64
#define BLOCK 64

static uint32_t lcg_state = 31337u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void spmv(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                     int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float sum = 0.0f;
  int end = row_ptr[row + 1];
  for (int k = row_ptr[row]; k < end; k++) sum += val[k] * x[col[k]];
  y[row] = sum;
}

int main(int argc, char **argv) {
  const int n = W * H;
  // id_of_cell: the row of grid cell (cx, cy) = cell cy*W + cx.
  int *id_of_cell = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) id_of_cell[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(lcg() % (uint32_t)(i + 1));
    int t = id_of_cell[i]; id_of_cell[i] = id_of_cell[j]; id_of_cell[j] = t;
  }
  int *cell_of_id = (int *)malloc(n * sizeof(int));
  for (int c = 0; c < n; c++) cell_of_id[id_of_cell[c]] = c;
  // CSR rows in id order, columns sorted within a row.
  int *row_ptr = (int *)malloc((n + 1) * sizeof(int));
  int *col = (int *)malloc(5 * n * sizeof(int));
  float *val = (float *)malloc(5 * n * sizeof(float));
  int nnz = 0;
  for (int r = 0; r < n; r++) {
    row_ptr[r] = nnz;
    int c = cell_of_id[r], cx = c % W, cy = c / W;
    int nb[5], m = 0;
    nb[m++] = r;
    if (cx > 0) nb[m++] = id_of_cell[c - 1];
    if (cx < W - 1) nb[m++] = id_of_cell[c + 1];
    if (cy > 0) nb[m++] = id_of_cell[c - W];
    if (cy < H - 1) nb[m++] = id_of_cell[c + W];
    for (int a = 1; a < m; a++)  // insertion sort
      for (int b = a; b > 0 && nb[b - 1] > nb[b]; b--) { int t = nb[b]; nb[b] = nb[b - 1]; nb[b - 1] = t; }
    for (int a = 0; a < m; a++) {
      col[nnz] = nb[a];
      val[nnz] = nb[a] == r ? 4.0f + (float)(lcg() % 8) * 0.125f : -1.0f;
      nnz++;
    }
  }
  row_ptr[n] = nnz;
  // --dump-kernel-data DIR: write the index arrays the kernel reads (for the driver's --kernel-data,
  // bench/sim/run --with-data) and stop before any CUDA call.
  if (dump_kernel_data_asked(argc, argv)) {
    dump(argv[2], "row_ptr.i32", row_ptr, (n + 1) * sizeof(int));
    dump(argv[2], "col.i32", col, nnz * sizeof(int));
    return 0;
  }
  float *x = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) x[i] = (float)(lcg() % 1024) * (1.0f / 1024.0f);

  int *d_row_ptr, *d_col;
  float *d_val, *d_x, *d_y, *d_z;
  cudaMalloc(&d_row_ptr, (n + 1) * sizeof(int));
  cudaMalloc(&d_col, nnz * sizeof(int));
  cudaMalloc(&d_val, nnz * sizeof(float));
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_z, n * sizeof(float));
  cudaMemcpy(d_row_ptr, row_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, col, nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_val, val, nnz * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  spmv<<<blocks, BLOCK>>>(d_row_ptr, d_col, d_val, d_x, d_y, n);
  spmv<<<blocks, BLOCK>>>(d_row_ptr, d_col, d_val, d_y, d_z, n);
  float *z = (float *)malloc(n * sizeof(float));
  cudaMemcpy(z, d_z, n * sizeof(float), cudaMemcpyDeviceToHost);
  uint32_t bits = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    uint32_t b; memcpy(&b, &z[i], 4);
    bits = bits * 31u + b;
    sum += z[i];
  }
  printf("RESULT spmv_csr mesh %dx%d rows=%d nnz=%d blocks=%d block=%d\n", W, H, n, nnz, blocks, BLOCK);
  printf("RESULT checksum=%08x sum=%.6f\n", bits, sum);
  free(id_of_cell); free(cell_of_id); free(row_ptr); free(col); free(val); free(x); free(z);
  cudaFree(d_row_ptr); cudaFree(d_col); cudaFree(d_val); cudaFree(d_x); cudaFree(d_y); cudaFree(d_z);
  return 0;
}
