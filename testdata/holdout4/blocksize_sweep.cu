// blocksize_sweep: an autotuning-style sweep that launches each of two kernels twice on the same
// data with two different constant block sizes (grid computed from the size), keeping both
// results and checking both. (1) stencil1d: a 1-D correlation of 6000 floats with a runtime
// radius r (rolled loop over 2r+1 taps, clamped indices at both ends); the 11 weights sit in a
// small global array read by every thread at the same addresses, and each input element is read
// by 2r+1 neighbouring threads (the same lines reused across taps and by the next warp).
// Launched with 128 then 256 threads per block. (2) row_stats: one thread per row of a 3000 x 37
// row-major int matrix; each thread walks its row with a rolled loop over the runtime column
// count, so a warp's loads are 148 B apart and each thread comes back to the same lines on later
// iterations. Writes the row sum and the row maximum. Launched with 64 then 192 threads per block.
// The floats are dyadic (inputs k/256, weights k/8), so every sum is exact in any order and the
// results are compared bit for bit.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define N 6000
#define RADIUS 5
#define ROWS 3000
#define COLS 37

static uint32_t lcg_state = 777001u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void stencil1d(const float *in, const float *w, float *out, int n, int r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = -r; k <= r; k++) {
    int j = min(max(i + k, 0), n - 1);
    acc += w[k + r] * in[j];
  }
  out[i] = acc;
}

__global__ void row_stats(const int *a, int *sums, int *maxes, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int *rp = a + row * cols;
  int s = 0, m = -2147483647 - 1;
  for (int c = 0; c < cols; c++) {
    int v = rp[c];
    s += v;
    m = max(m, v);
  }
  sums[row] = s;
  maxes[row] = m;
}

int main() {
  const int n = N, r = RADIUS, rows = ROWS, cols = COLS, taps = 2 * RADIUS + 1;
  float *hin = (float *)malloc(sizeof(float) * n);
  float hw[2 * RADIUS + 1];
  int *ha = (int *)malloc(sizeof(int) * rows * cols);
  for (int i = 0; i < n; i++) hin[i] = (float)((int)((lcg() >> 12) % 511) - 255) / 256.0f;
  for (int k = 0; k < taps; k++) hw[k] = (float)((int)((lcg() >> 12) % 17) - 8) / 8.0f;
  for (int i = 0; i < rows * cols; i++) ha[i] = (int)((lcg() >> 8) % 200001) - 100000;

  float *din, *dw, *dout128, *dout256;
  int *da, *dsum64, *dmax64, *dsum192, *dmax192;
  cudaMalloc(&din, sizeof(float) * n);
  cudaMalloc(&dw, sizeof(float) * taps);
  cudaMalloc(&dout128, sizeof(float) * n);
  cudaMalloc(&dout256, sizeof(float) * n);
  cudaMalloc(&da, sizeof(int) * rows * cols);
  cudaMalloc(&dsum64, sizeof(int) * rows);
  cudaMalloc(&dmax64, sizeof(int) * rows);
  cudaMalloc(&dsum192, sizeof(int) * rows);
  cudaMalloc(&dmax192, sizeof(int) * rows);
  cudaMemcpy(din, hin, sizeof(float) * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dw, hw, sizeof(float) * taps, cudaMemcpyHostToDevice);
  cudaMemcpy(da, ha, sizeof(int) * rows * cols, cudaMemcpyHostToDevice);

  // the sweep: same kernels, same data, two block sizes each
  stencil1d<<<(n + 127) / 128, 128>>>(din, dw, dout128, n, r);
  stencil1d<<<(n + 255) / 256, 256>>>(din, dw, dout256, n, r);
  row_stats<<<(rows + 63) / 64, 64>>>(da, dsum64, dmax64, rows, cols);
  row_stats<<<(rows + 191) / 192, 192>>>(da, dsum192, dmax192, rows, cols);
  cudaDeviceSynchronize();

  float *o128 = (float *)malloc(sizeof(float) * n), *o256 = (float *)malloc(sizeof(float) * n);
  int *s64 = (int *)malloc(sizeof(int) * rows), *m64 = (int *)malloc(sizeof(int) * rows);
  int *s192 = (int *)malloc(sizeof(int) * rows), *m192 = (int *)malloc(sizeof(int) * rows);
  cudaMemcpy(o128, dout128, sizeof(float) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(o256, dout256, sizeof(float) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(s64, dsum64, sizeof(int) * rows, cudaMemcpyDeviceToHost);
  cudaMemcpy(m64, dmax64, sizeof(int) * rows, cudaMemcpyDeviceToHost);
  cudaMemcpy(s192, dsum192, sizeof(int) * rows, cudaMemcpyDeviceToHost);
  cudaMemcpy(m192, dmax192, sizeof(int) * rows, cudaMemcpyDeviceToHost);

  // host reference (exact)
  int bad = 0;
  uint32_t check = 0;
  double ssum = 0.0;
  for (int i = 0; i < n; i++) {
    float acc = 0.0f;
    for (int k = -r; k <= r; k++) {
      int j = i + k < 0 ? 0 : (i + k > n - 1 ? n - 1 : i + k);
      acc += hw[k + r] * hin[j];
    }
    uint32_t b0, b1, b2;
    memcpy(&b0, &acc, 4); memcpy(&b1, &o128[i], 4); memcpy(&b2, &o256[i], 4);
    if (b1 != b0) bad++;
    if (b2 != b0) bad++;
    check = check * 31u + b1;
    check = check * 31u + b2;
    ssum += o128[i];
  }
  long long rsum = 0;
  for (int row = 0; row < rows; row++) {
    int s = 0, m = -2147483647 - 1;
    for (int c = 0; c < cols; c++) {
      int v = ha[row * cols + c];
      s += v;
      if (v > m) m = v;
    }
    if (s64[row] != s || s192[row] != s) bad++;
    if (m64[row] != m || m192[row] != m) bad++;
    check = check * 31u + (uint32_t)s64[row];
    check = check * 31u + (uint32_t)m64[row];
    check = check * 31u + (uint32_t)s192[row];
    check = check * 31u + (uint32_t)m192[row];
    rsum += s64[row];
  }
  printf("RESULT blocksize_sweep n=%d r=%d rows=%d cols=%d stencil=%dx128,%dx256 rows=%dx64,%dx192\n",
         n, r, rows, cols, (n + 127) / 128, (n + 255) / 256, (rows + 63) / 64, (rows + 191) / 192);
  printf("RESULT checksum=%08x stencil_sum=%.6f row_sum=%lld host_mismatches=%d\n", check, ssum,
         rsum, bad);
  cudaFree(din); cudaFree(dw); cudaFree(dout128); cudaFree(dout256); cudaFree(da);
  cudaFree(dsum64); cudaFree(dmax64); cudaFree(dsum192); cudaFree(dmax192);
  free(hin); free(ha); free(o128); free(o256); free(s64); free(m64); free(s192); free(m192);
  return bad ? 1 : 0;
}
