// sim-data: gpucc-cache "$PROGRAM" -o gen && ./gen --dump-kernel-data "$WORK"
// sim-data-flags: --kernel-data=col=$WORK/col.i32
// ell_spmv: ELLPACK SpMV, column-major ELL (val[k*rows + r], col[k*rows + r]): the val/col loads
// are coalesced and read once; x is gathered at random columns within a band around the row
// (some reuse across neighbouring rows). Runs ITERS times (y feeds nothing back: same x).
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "../sim/kernel_data_dump.h"

#define ROWS 4096
#define K 8
#define BAND 2048
#define BLOCK 128
#define ITERS 2

static uint32_t lcg_state = 11223u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void ell_spmv(const float *val, const int *col, const float *x, float *y, int rows, int k) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int j = 0; j < k; j++) {
    int c = col[j * rows + r];
    if (c >= 0) acc += val[j * rows + r] * x[c];
  }
  y[r] = acc;
}

int main(int argc, char **argv) {
  const int rows = ROWS, k = K;
  float *val = (float *)malloc(sizeof(float) * rows * k);
  int *col = (int *)malloc(sizeof(int) * rows * k);
  float *x = (float *)malloc(sizeof(float) * rows);
  for (int r = 0; r < rows; r++) {
    int nnz = 3 + (int)(lcg() % (k - 2));  // 3..k entries; the rest padded with -1
    for (int j = 0; j < k; j++) {
      if (j < nnz) {
        int c = r - BAND / 2 + (int)(lcg() % BAND);
        c = (c % rows + rows) % rows;
        col[j * rows + r] = c;
        val[j * rows + r] = (float)((int)(lcg() % 17) - 8) / 8.0f;
      } else {
        col[j * rows + r] = -1;
        val[j * rows + r] = 0.0f;
      }
    }
  }
  for (int i = 0; i < rows; i++) x[i] = (float)((int)(lcg() % 33) - 16) / 16.0f;
  // --dump-kernel-data DIR: write the index arrays the kernel reads (for the driver's --kernel-data,
  // bench/sim/run --with-data) and stop before any CUDA call.
  if (dump_kernel_data_asked(argc, argv)) {
    dump(argv[2], "col.i32", col, sizeof(int) * rows * k);
    return 0;
  }
  float *dval, *dx, *dy; int *dcol;
  cudaMalloc(&dval, sizeof(float) * rows * k);
  cudaMalloc(&dcol, sizeof(int) * rows * k);
  cudaMalloc(&dx, sizeof(float) * rows);
  cudaMalloc(&dy, sizeof(float) * rows);
  cudaMemcpy(dval, val, sizeof(float) * rows * k, cudaMemcpyHostToDevice);
  cudaMemcpy(dcol, col, sizeof(int) * rows * k, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof(float) * rows, cudaMemcpyHostToDevice);
  for (int it = 0; it < ITERS; it++)
    ell_spmv<<<(rows + BLOCK - 1) / BLOCK, BLOCK>>>(dval, dcol, dx, dy, rows, k);
  float *y = (float *)malloc(sizeof(float) * rows);
  cudaMemcpy(y, dy, sizeof(float) * rows, cudaMemcpyDeviceToHost);
  int bad = 0; double sum = 0; uint32_t check = 0;
  for (int r = 0; r < rows; r++) {
    float ref = 0.0f;
    for (int j = 0; j < k; j++) { int c = col[j * rows + r]; if (c >= 0) ref += val[j * rows + r] * x[c]; }
    if (y[r] != ref) bad++;
    sum += y[r];
    uint32_t bits; memcpy(&bits, &y[r], 4); check = check * 31u + bits;
  }
  printf("RESULT ell_spmv rows=%d k=%d band=%d iters=%d\n", rows, k, BAND, ITERS);
  printf("RESULT checksum=%08x sum=%.5f host_mismatches=%d\n", check, sum, bad);
  cudaFree(dval); cudaFree(dcol); cudaFree(dx); cudaFree(dy); free(val); free(col); free(x); free(y);
  return bad ? 1 : 0;
}
