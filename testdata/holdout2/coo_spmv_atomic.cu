// coo_spmv_atomic: two chained sparse matrix-vector products y = A x, x2 = y / 4, y = A x2 with a
// COO matrix (row[], col[], val[] int arrays sorted by row), thread per nonzero in a grid-stride
// loop. row[k], col[k], val[k] are streamed once per product (coalesced); x[col[k]] is a gather
// (half of the columns in a +-32 band around the row, so neighbouring nonzeros share lines, half
// uniform over all N columns); the result goes to y[row[k]] with integer atomicAdd (consecutive
// nonzeros of a row hit the same address). Values are fixed-point integers, so the sums are
// exact and independent of the atomic order. Launches: clear y, product, rescale (reads y,
// writes x2 and clears y), product.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define N 4096
#define MAXROW 7
#define BLOCK 128
#define BLOCKS 64

static uint32_t lcg_state = 777001u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void clear_vec(int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0;
}

__global__ void coo_spmv(const int *row, const int *col, const int *val, const int *x, int *y,
                         int nnz) {
  int stride = gridDim.x * blockDim.x;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride)
    atomicAdd(&y[row[k]], val[k] * x[col[k]]);
}

// x2 = y / 4 (rounded toward zero), and y is cleared for the next product
__global__ void rescale_clear(int *y, int *x2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x2[i] = y[i] / 4;
    y[i] = 0;
  }
}

static void spmv_host(const int *row, const int *col, const int *val, const int *x, int *y,
                      int nnz, int n) {
  for (int i = 0; i < n; i++) y[i] = 0;
  for (int k = 0; k < nnz; k++) y[row[k]] += val[k] * x[col[k]];
}

int main() {
  const int n = N;
  int cap = n * MAXROW;
  int *hrow = (int *)malloc(sizeof(int) * cap), *hcol = (int *)malloc(sizeof(int) * cap);
  int *hval = (int *)malloc(sizeof(int) * cap);
  int nnz = 0;
  for (int r = 0; r < n; r++) {
    int cnt = 1 + (int)((lcg() >> 8) % MAXROW);
    for (int e = 0; e < cnt; e++) {
      int c;
      if ((lcg() >> 9) & 1) {
        c = r + (int)((lcg() >> 8) % 65) - 32;
        if (c < 0) c += n;
        if (c >= n) c -= n;
      } else {
        c = (int)((lcg() >> 8) % n);
      }
      int v = (int)((lcg() >> 8) % 16) - 8;
      if (v >= 0) v++;  // -8..-1, 1..8
      hrow[nnz] = r; hcol[nnz] = c; hval[nnz] = v; nnz++;
    }
  }
  int *hx = (int *)malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) hx[i] = (int)((lcg() >> 8) % 1024) - 512;

  int *drow, *dcol, *dval, *dx, *dx2, *dy;
  cudaMalloc(&drow, sizeof(int) * nnz);
  cudaMalloc(&dcol, sizeof(int) * nnz);
  cudaMalloc(&dval, sizeof(int) * nnz);
  cudaMalloc(&dx, sizeof(int) * n);
  cudaMalloc(&dx2, sizeof(int) * n);
  cudaMalloc(&dy, sizeof(int) * n);
  cudaMemcpy(drow, hrow, sizeof(int) * nnz, cudaMemcpyHostToDevice);
  cudaMemcpy(dcol, hcol, sizeof(int) * nnz, cudaMemcpyHostToDevice);
  cudaMemcpy(dval, hval, sizeof(int) * nnz, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, hx, sizeof(int) * n, cudaMemcpyHostToDevice);
  int vblocks = (n + BLOCK - 1) / BLOCK;
  clear_vec<<<vblocks, BLOCK>>>(dy, n);
  coo_spmv<<<BLOCKS, BLOCK>>>(drow, dcol, dval, dx, dy, nnz);
  rescale_clear<<<vblocks, BLOCK>>>(dy, dx2, n);
  coo_spmv<<<BLOCKS, BLOCK>>>(drow, dcol, dval, dx2, dy, nnz);
  int *oy = (int *)malloc(sizeof(int) * n), *ox2 = (int *)malloc(sizeof(int) * n);
  cudaMemcpy(oy, dy, sizeof(int) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(ox2, dx2, sizeof(int) * n, cudaMemcpyDeviceToHost);

  int *ry = (int *)malloc(sizeof(int) * n), *rx2 = (int *)malloc(sizeof(int) * n);
  spmv_host(hrow, hcol, hval, hx, ry, nnz, n);
  for (int i = 0; i < n; i++) rx2[i] = ry[i] / 4;
  spmv_host(hrow, hcol, hval, rx2, ry, nnz, n);
  int bad = 0; long long sum = 0; uint32_t check = 0;
  for (int i = 0; i < n; i++) {
    if (oy[i] != ry[i]) bad++;
    if (ox2[i] != rx2[i]) bad++;
    sum += oy[i];
    check = check * 31u + (uint32_t)ox2[i];
    check = check * 31u + (uint32_t)oy[i];
  }
  printf("RESULT coo_spmv_atomic n=%d nnz=%d grid=%dx%d products=2\n", n, nnz, BLOCKS, BLOCK);
  printf("RESULT checksum=%08x sum=%lld host_mismatches=%d\n", check, sum, bad);
  cudaFree(drow); cudaFree(dcol); cudaFree(dval); cudaFree(dx); cudaFree(dx2); cudaFree(dy);
  free(hrow); free(hcol); free(hval); free(hx); free(oy); free(ox2); free(ry); free(rx2);
  return bad ? 1 : 0;
}
