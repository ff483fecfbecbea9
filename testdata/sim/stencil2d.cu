// stencil2d: 5-point Jacobi on a 2-D grid read straight from global memory. 16x16 thread blocks;
// each point's 4 neighbours are loaded by adjacent threads (the left/right loads share the lines of
// the centre load, the up/down loads the lines of the rows above and below, used again by the
// neighbouring warps). Host loop of ITERS launches over ping-pong buffers.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

#define NX 128
#define NY 128
#define TILE 16
#define ITERS 3

static uint32_t lcg_state = 2024u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void jacobi(const float *in, float *out, const float *rhs, int nx, int ny, float h2) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];  // fixed boundary
    return;
  }
  float s = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx];
  out[i] = 0.25f * (s - h2 * rhs[i]);
}

int main() {
  const int nx = NX, ny = NY, n = NX * NY;
  float *u = (float *)malloc(n * sizeof(float));
  float *f = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) {
    u[i] = (float)(lcg() % 1000) * 0.001f;
    f[i] = (float)((int)(lcg() % 201) - 100) * 0.01f;
  }
  float *d_u, *d_v, *d_f;
  cudaMalloc(&d_u, n * sizeof(float));
  cudaMalloc(&d_v, n * sizeof(float));
  cudaMalloc(&d_f, n * sizeof(float));
  cudaMemcpy(d_u, u, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_v, u, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_f, f, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE);
  dim3 grid((nx + TILE - 1) / TILE, (ny + TILE - 1) / TILE);
  const float h2 = 1.0f / (float)((nx - 1) * (nx - 1));
  for (int it = 0; it < ITERS; it++) {
    jacobi<<<grid, block>>>(d_u, d_v, d_f, nx, ny, h2);
    float *t = d_u; d_u = d_v; d_v = t;
  }
  cudaMemcpy(u, d_u, n * sizeof(float), cudaMemcpyDeviceToHost);
  uint32_t bits = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    uint32_t b; memcpy(&b, &u[i], 4);
    bits = bits * 31u + b;
    sum += u[i];
  }
  printf("RESULT stencil2d %dx%d iters=%d grid=%dx%d block=%dx%d\n", nx, ny, ITERS, grid.x, grid.y,
         block.x, block.y);
  printf("RESULT checksum=%08x sum=%.6f centre=%.6f\n", bits, sum, u[(ny / 2) * nx + nx / 2]);
  free(u); free(f);
  cudaFree(d_u); cudaFree(d_v); cudaFree(d_f);
  return 0;
}
