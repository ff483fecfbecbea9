// softmax_rows: one block per row, three passes over the row (max, sum of exp, normalize), each
// a strided loop by blockDim.x (coalesced), with shared-memory tree reductions between passes.
// The row (COLS floats = 4 KB) is re-read three times by the same block.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cuda_runtime.h>

#define ROWS 48
#define COLS 1024
#define BLOCK 128

static uint32_t lcg_state = 97531u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void softmax_rows(const float *in, float *out, int cols) {
  __shared__ float red[BLOCK];
  const float *row = in + (size_t)blockIdx.x * cols;
  float *orow = out + (size_t)blockIdx.x * cols;
  int t = threadIdx.x;
  float m = -INFINITY;
  for (int j = t; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
  red[t] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = t; j < cols; j += blockDim.x) sum += expf(row[j] - m);
  red[t] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int j = t; j < cols; j += blockDim.x) orow[j] = expf(row[j] - m) * inv;
}

int main() {
  const int rows = ROWS, cols = COLS;
  size_t n = (size_t)rows * cols;
  float *h = (float *)malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) h[i] = (float)((lcg() >> 8) % 20000) / 1000.0f - 10.0f;
  float *din, *dout;
  cudaMalloc(&din, n * sizeof(float));
  cudaMalloc(&dout, n * sizeof(float));
  cudaMemcpy(din, h, n * sizeof(float), cudaMemcpyHostToDevice);
  softmax_rows<<<rows, BLOCK>>>(din, dout, cols);
  float *o = (float *)malloc(n * sizeof(float));
  cudaMemcpy(o, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  double total = 0;
  uint32_t check = 0;
  for (int r = 0; r < rows; r++) {
    double m = -1e30, s = 0, rs = 0;
    for (int j = 0; j < cols; j++) m = fmax(m, h[r * cols + j]);
    for (int j = 0; j < cols; j++) s += exp(h[r * cols + j] - m);
    for (int j = 0; j < cols; j++) {
      double ref = exp(h[r * cols + j] - m) / s;
      float v = o[r * cols + j];
      if (fabs(v - ref) > 1e-5 + 1e-3 * ref) bad++;
      rs += v;
      // quantize for a checksum robust to last-bit differences
      check = check * 31u + (uint32_t)llround(v * 1e6);
    }
    total += rs;
  }
  printf("RESULT softmax_rows rows=%d cols=%d block=%d\n", rows, cols, BLOCK);
  printf("RESULT checksum=%08x rowsum_total=%.4f host_mismatches=%d\n", check, total, bad);
  cudaFree(din); cudaFree(dout); free(h); free(o);
  return bad ? 1 : 0;
}
