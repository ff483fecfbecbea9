// byval_written: a matrix view passed by value whose data pointer the kernel points at a shared
// staging tile on one path. The view is the kernel's own parameter copy, written by the kernel:
// after the store, `v.data` may hold a shared address, so a read through it is no global load.
// At -O0 the backend reads it with a generic `ld`; a cache operator there would send a shared
// address to global memory. Only the read of the host's pointer before any store is global.
#include <cstdio>
#include <cuda_runtime.h>

#define COLS 64
#define ROWS_PER_BLOCK 16

struct View {
  const float *data;
  int ld;
  int rows;
};

__global__ void scale_rows(View v, const float *scale, float *out, int staged) {
  __shared__ float tile[ROWS_PER_BLOCK * COLS];
  int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.y, c = threadIdx.x;
  if (staged) {
    tile[threadIdx.y * COLS + c] = v.data[r * v.ld + c];
    __syncthreads();
    v.data = tile - blockIdx.x * ROWS_PER_BLOCK * COLS;  // now a shared address
    v.ld = COLS;
  }
  if (r < v.rows) out[r * COLS + c] = v.data[r * v.ld + c] * scale[r];
}

int main() {
  const int rows = 256;
  float *d, *s, *o;
  cudaMalloc(&d, rows * COLS * sizeof(float));
  cudaMalloc(&s, rows * sizeof(float));
  cudaMalloc(&o, rows * COLS * sizeof(float));
  float *h = new float[rows * COLS], *hs = new float[rows];
  for (int i = 0; i < rows * COLS; i++) h[i] = 2.0f;
  for (int i = 0; i < rows; i++) hs[i] = 0.5f;
  cudaMemcpy(d, h, rows * COLS * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(s, hs, rows * sizeof(float), cudaMemcpyHostToDevice);
  View v{d, COLS, rows};
  dim3 block(COLS, ROWS_PER_BLOCK);
  scale_rows<<<rows / ROWS_PER_BLOCK, block>>>(v, s, o, 1);
  scale_rows<<<rows / ROWS_PER_BLOCK, block>>>(v, s, o, 0);
  cudaMemcpy(h, o, rows * COLS * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < rows * COLS; i++) bad += h[i] != 1.0f;
  printf("scale_rows: %s\n", bad ? "FAIL" : "OK");
  delete[] h;
  delete[] hs;
  return bad != 0;
}
