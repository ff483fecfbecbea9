// spmv_block_row: CSR sparse matrix-vector product y = A x with one thread block per row (64
// threads, rows handed out grid-stride: row = blockIdx.x, += gridDim.x). The block's threads
// stride over the row's nonzeros (col[k], val[k] read coalesced, k = start + tid, += 64), gather
// x[col[k]], and reduce their partial sums with a shared-memory tree (64 -> 1, __syncthreads
// between levels); thread 0 writes y[row]. row_ptr[row] and row_ptr[row + 1] are read by all 64
// threads (same address). Row lengths vary: most rows have 6-45 nonzeros (many of the block's
// threads idle), every 32nd row is long (160-350). Columns: half in a +-48 band around the row
// (neighbouring rows gather the same x lines), a quarter uniform, a quarter from 24 "hub"
// columns shared by all rows. Values are small dyadic fractions, so every float sum is exact and
// the result does not depend on the summation order. Two products with two different x vectors.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define NROWS 1024
#define NCOLS 1024
#define BLOCK 64
#define BLOCKS 128
#define NHUBS 24

static uint32_t lcg_state = 99173u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void spmv_block_row(const int *row_ptr, const int *col, const float *val,
                               const float *x, float *y, int nrows) {
  __shared__ float partial[BLOCK];
  int tid = threadIdx.x;
  for (int row = blockIdx.x; row < nrows; row += gridDim.x) {
    int start = row_ptr[row], end = row_ptr[row + 1];
    float sum = 0.0f;
    for (int k = start + tid; k < end; k += blockDim.x) sum += val[k] * x[col[k]];
    partial[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) partial[tid] += partial[tid + s];
      __syncthreads();
    }
    if (tid == 0) y[row] = partial[0];
    __syncthreads();
  }
}

int main() {
  const int nrows = NROWS, ncols = NCOLS;
  int *hrow_ptr = (int *)malloc(sizeof(int) * (nrows + 1));
  int cap = nrows * 360;
  int *hcol = (int *)malloc(sizeof(int) * cap);
  float *hval = (float *)malloc(sizeof(float) * cap);
  int hubs[NHUBS];
  for (int i = 0; i < NHUBS; i++) hubs[i] = (int)((lcg() >> 8) % ncols);
  int nnz = 0;
  for (int r = 0; r < nrows; r++) {
    hrow_ptr[r] = nnz;
    int len = (r % 32 == 7) ? 160 + (int)((lcg() >> 8) % 191) : 6 + (int)((lcg() >> 8) % 40);
    int s0 = nnz;
    for (int e = 0; e < len; e++) {
      uint32_t kind = (lcg() >> 12) & 3;
      int c;
      if (kind < 2) {
        c = r + (int)((lcg() >> 8) % 97) - 48;
        if (c < 0) c = -c;
        if (c >= ncols) c = 2 * (ncols - 1) - c;
      } else if (kind == 2) {
        c = (int)((lcg() >> 8) % ncols);
      } else {
        c = hubs[(lcg() >> 8) % NHUBS];
      }
      int v = (int)((lcg() >> 8) % 16) - 8;
      if (v >= 0) v++;  // -8..-1, 1..8
      // insertion sort by column (CSR rows are usually sorted)
      int p = nnz;
      while (p > s0 && hcol[p - 1] > c) { hcol[p] = hcol[p - 1]; hval[p] = hval[p - 1]; p--; }
      hcol[p] = c; hval[p] = (float)v * 0.25f;
      nnz++;
    }
  }
  hrow_ptr[nrows] = nnz;
  float *hx1 = (float *)malloc(sizeof(float) * ncols), *hx2 = (float *)malloc(sizeof(float) * ncols);
  for (int i = 0; i < ncols; i++) hx1[i] = (float)((int)((lcg() >> 8) % 1024) - 512) * 0.125f;
  for (int i = 0; i < ncols; i++) hx2[i] = (float)((int)((lcg() >> 8) % 64) - 16) * 0.125f;

  int *drow_ptr, *dcol;
  float *dval, *dx1, *dx2, *dy1, *dy2;
  cudaMalloc(&drow_ptr, sizeof(int) * (nrows + 1));
  cudaMalloc(&dcol, sizeof(int) * nnz);
  cudaMalloc(&dval, sizeof(float) * nnz);
  cudaMalloc(&dx1, sizeof(float) * ncols);
  cudaMalloc(&dx2, sizeof(float) * ncols);
  cudaMalloc(&dy1, sizeof(float) * nrows);
  cudaMalloc(&dy2, sizeof(float) * nrows);
  cudaMemcpy(drow_ptr, hrow_ptr, sizeof(int) * (nrows + 1), cudaMemcpyHostToDevice);
  cudaMemcpy(dcol, hcol, sizeof(int) * nnz, cudaMemcpyHostToDevice);
  cudaMemcpy(dval, hval, sizeof(float) * nnz, cudaMemcpyHostToDevice);
  cudaMemcpy(dx1, hx1, sizeof(float) * ncols, cudaMemcpyHostToDevice);
  cudaMemcpy(dx2, hx2, sizeof(float) * ncols, cudaMemcpyHostToDevice);
  int blocks = nrows < BLOCKS ? nrows : BLOCKS;
  spmv_block_row<<<blocks, BLOCK>>>(drow_ptr, dcol, dval, dx1, dy1, nrows);
  spmv_block_row<<<blocks, BLOCK>>>(drow_ptr, dcol, dval, dx2, dy2, nrows);
  cudaDeviceSynchronize();
  float *oy1 = (float *)malloc(sizeof(float) * nrows), *oy2 = (float *)malloc(sizeof(float) * nrows);
  cudaMemcpy(oy1, dy1, sizeof(float) * nrows, cudaMemcpyDeviceToHost);
  cudaMemcpy(oy2, dy2, sizeof(float) * nrows, cudaMemcpyDeviceToHost);

  int bad = 0; double sum = 0; uint32_t check = 0; long long hub_refs = 0;
  for (int r = 0; r < nrows; r++) {
    double a1 = 0, a2 = 0;  // exact: every term is a multiple of 1/32 far below 2^53
    for (int k = hrow_ptr[r]; k < hrow_ptr[r + 1]; k++) {
      a1 += (double)hval[k] * hx1[hcol[k]];
      a2 += (double)hval[k] * hx2[hcol[k]];
      for (int i = 0; i < NHUBS; i++) if (hcol[k] == hubs[i]) { hub_refs++; break; }
    }
    if ((double)oy1[r] != a1) bad++;
    if ((double)oy2[r] != a2) bad++;
    uint32_t b1, b2;
    memcpy(&b1, &oy1[r], 4); memcpy(&b2, &oy2[r], 4);
    check = check * 31u + (b1 ^ (b1 >> 16));  // fold the exponent into the low bits: the
    check = check * 31u + (b2 ^ (b2 >> 16));  // exact values have many zero low mantissa bits
    sum += oy1[r] + oy2[r];
  }
  printf("RESULT spmv_block_row rows=%d cols=%d nnz=%d hub_refs=%lld grid=%dx%d products=2\n", nrows,
         ncols, nnz, hub_refs, blocks, BLOCK);
  printf("RESULT checksum=%08x sum=%.5f host_mismatches=%d\n", check, sum, bad);
  cudaFree(drow_ptr); cudaFree(dcol); cudaFree(dval); cudaFree(dx1); cudaFree(dx2); cudaFree(dy1);
  cudaFree(dy2);
  free(hrow_ptr); free(hcol); free(hval); free(hx1); free(hx2); free(oy1); free(oy2);
  return bad ? 1 : 0;
}
