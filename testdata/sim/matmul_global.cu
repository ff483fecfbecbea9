// matmul_global: naive C = A * B from global memory, each thread one C element with a runtime-bounded
// loop over k; 16x16 blocks. A[row][k] is the same address for the 16 threads of a half-warp row
// and is reused by every block in the same block row; B[k][col] is a coalesced row segment reused
// by every block in the same block column.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define M 128
#define N 128
#define KDIM 48
#define TILE 16

static uint32_t lcg_state = 1234567u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void matmul(const float *a, const float *b, float *c, int m, int n, int kdim) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float s = 0.0f;
  for (int k = 0; k < kdim; k++) s += a[row * kdim + k] * b[k * n + col];
  c[row * n + col] = s;
}

int main() {
  const int m = M, n = N, kdim = KDIM;
  float *a = (float *)malloc(m * kdim * sizeof(float));
  float *b = (float *)malloc(kdim * n * sizeof(float));
  float *c = (float *)malloc(m * n * sizeof(float));
  // Small integers: every product and sum is exact.
  for (int i = 0; i < m * kdim; i++) a[i] = (float)((int)(lcg() % 17) - 8);
  for (int i = 0; i < kdim * n; i++) b[i] = (float)((int)(lcg() % 17) - 8);
  float *d_a, *d_b, *d_c;
  cudaMalloc(&d_a, m * kdim * sizeof(float));
  cudaMalloc(&d_b, kdim * n * sizeof(float));
  cudaMalloc(&d_c, m * n * sizeof(float));
  cudaMemcpy(d_a, a, m * kdim * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, kdim * n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  matmul<<<grid, block>>>(d_a, d_b, d_c, m, n, kdim);
  cudaMemcpy(c, d_c, m * n * sizeof(float), cudaMemcpyDeviceToHost);
  // Check a few entries against the host.
  int bad = 0;
  for (int t = 0; t < 64; t++) {
    int r = (t * 37) % m, q = (t * 91) % n;
    float s = 0.0f;
    for (int k = 0; k < kdim; k++) s += a[r * kdim + k] * b[k * n + q];
    if (s != c[r * n + q]) bad++;
  }
  uint32_t check = 0;
  long long sum = 0;
  for (int i = 0; i < m * n; i++) { check = check * 31u + (uint32_t)(int)c[i]; sum += (long long)c[i]; }
  printf("RESULT matmul_global %dx%d * %dx%d grid=%dx%d block=%dx%d\n", m, kdim, kdim, n, grid.x,
         grid.y, block.x, block.y);
  printf("RESULT checksum=%08x sum=%lld host_mismatches=%d\n", check, sum, bad);
  free(a); free(b); free(c);
  cudaFree(d_a); cudaFree(d_b); cudaFree(d_c);
  return bad ? 1 : 0;
}
