// launch_blocks: one kernel launched with two block shapes, as a block-size sweep does: row sums
// of a 1024 x 32 matrix of floats, one thread per row (each thread walks its own 128-byte row,
// one float per iteration), first as 8 blocks of 128 threads, then as 4 blocks of 256. On a
// 15-SM part each SM holds one block either way, and the block shape decides what L1 sees: 4
// warps' rows are 128 lines (16 KB), 8 warps' are 256.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#define ROWS 1024
#define COLS 32

__global__ void row_sums(const float *m, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; c++) s += m[r * cols + c];
  out[r] = s;
}

int main() {
  float *h = (float *)malloc(ROWS * COLS * sizeof(float));
  uint32_t state = 99u;
  for (int i = 0; i < ROWS * COLS; i++) {
    state = state * 1664525u + 1013904223u;
    h[i] = (float)(state >> 8) * (1.0f / 16777216.0f);
  }
  float *dm, *dout;
  cudaMalloc(&dm, ROWS * COLS * sizeof(float));
  cudaMalloc(&dout, ROWS * sizeof(float));
  cudaMemcpy(dm, h, ROWS * COLS * sizeof(float), cudaMemcpyHostToDevice);
  row_sums<<<ROWS / 128, 128>>>(dm, dout, ROWS, COLS);
  row_sums<<<ROWS / 256, 256>>>(dm, dout, ROWS, COLS);
  float *ho = (float *)malloc(ROWS * sizeof(float));
  cudaMemcpy(ho, dout, ROWS * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0.0;
  for (int i = 0; i < ROWS; i++) sum += ho[i];
  printf("row_sums: %.4f\n", sum);
  return 0;
}
