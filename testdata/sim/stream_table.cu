// stream_table: y[i] = table[x[i] & 255] * s[i] + y0[i]. x, s and y0 are streamed (each element
// loaded once, coalesced); table is a 256-entry coefficient table (1 KB) gathered by data value and
// reused by every thread on the SM. Each thread handles several elements with a grid-stride loop.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define NELEM 65536
#define TABLE 256
#define BLOCK 128
#define BLOCKS 128

static uint32_t lcg_state = 600613u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void apply_table(const unsigned *x, const float *s, const float *y0, const float *table,
                            float *y, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = table[x[i] & (TABLE - 1)] * s[i] + y0[i];
}

int main() {
  const int n = NELEM;
  unsigned *x = (unsigned *)malloc(n * sizeof(unsigned));
  float *s = (float *)malloc(n * sizeof(float));
  float *y0 = (float *)malloc(n * sizeof(float));
  float table[TABLE];
  for (int i = 0; i < n; i++) {
    x[i] = lcg();
    s[i] = (float)(lcg() % 4096) * (1.0f / 256.0f);
    y0[i] = (float)((int)(lcg() % 2001) - 1000) * 0.001f;
  }
  for (int t = 0; t < TABLE; t++) table[t] = 1.0f + 0.5f * (float)(t % 13) - 0.01f * (float)t;
  unsigned *d_x;
  float *d_s, *d_y0, *d_table, *d_y;
  cudaMalloc(&d_x, n * sizeof(unsigned));
  cudaMalloc(&d_s, n * sizeof(float));
  cudaMalloc(&d_y0, n * sizeof(float));
  cudaMalloc(&d_table, TABLE * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMemcpy(d_x, x, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemcpy(d_s, s, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_y0, y0, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_table, table, TABLE * sizeof(float), cudaMemcpyHostToDevice);
  apply_table<<<BLOCKS, BLOCK>>>(d_x, d_s, d_y0, d_table, d_y, n);
  float *y = (float *)malloc(n * sizeof(float));
  cudaMemcpy(y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  uint32_t bits = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    uint32_t b; memcpy(&b, &y[i], 4);
    bits = bits * 31u + b;
    sum += y[i];
  }
  printf("RESULT stream_table elems=%d table=%d grid=%d block=%d\n", n, TABLE, BLOCKS, BLOCK);
  printf("RESULT checksum=%08x sum=%.6f\n", bits, sum);
  free(x); free(s); free(y0); free(y);
  cudaFree(d_x); cudaFree(d_s); cudaFree(d_y0); cudaFree(d_table); cudaFree(d_y);
  return 0;
}
