// transpose: out = in^T for an NxN float matrix, 16x16 blocks. Kernel 1 (naive): coalesced reads
// of in, strided writes of out (each thread's write in a different row). Kernel 2 (naive, reversed):
// strided reads -- a warp's reads touch 16 lines (one per row of in), the same 16 lines the block's
// other 7 warps read next (their columns lie in the same 64 bytes) -- and coalesced writes.
// Kernel 3: a shared-memory tile (padded against bank conflicts), both global accesses coalesced.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define NDIM 128
#define TILE 16

static uint32_t lcg_state = 271828u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void transpose_write_strided(const float *in, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) out[x * n + y] = in[y * n + x];
}

__global__ void transpose_read_strided(const float *in, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = in[x * n + y];
}

__global__ void transpose_tiled(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

static void check(const char *name, const float *in, const float *out, int n) {
  uint32_t bits = 0;
  int bad = 0;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      uint32_t b; memcpy(&b, &out[y * n + x], 4);
      bits = bits * 31u + b;
      if (out[y * n + x] != in[x * n + y]) bad++;
    }
  printf("RESULT %s checksum=%08x mismatches=%d\n", name, bits, bad);
}

int main() {
  const int n = NDIM, nn = NDIM * NDIM;
  float *in = (float *)malloc(nn * sizeof(float));
  float *out = (float *)malloc(nn * sizeof(float));
  for (int i = 0; i < nn; i++) in[i] = (float)(lcg() >> 9) * (1.0f / 8388608.0f);
  float *d_in, *d_out;
  cudaMalloc(&d_in, nn * sizeof(float));
  cudaMalloc(&d_out, nn * sizeof(float));
  cudaMemcpy(d_in, in, nn * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  printf("RESULT transpose %dx%d grid=%dx%d block=%dx%d\n", n, n, grid.x, grid.y, block.x, block.y);
  cudaMemset(d_out, 0, nn * sizeof(float));
  transpose_write_strided<<<grid, block>>>(d_in, d_out, n);
  cudaMemcpy(out, d_out, nn * sizeof(float), cudaMemcpyDeviceToHost);
  check("write_strided", in, out, n);
  cudaMemset(d_out, 0, nn * sizeof(float));
  transpose_read_strided<<<grid, block>>>(d_in, d_out, n);
  cudaMemcpy(out, d_out, nn * sizeof(float), cudaMemcpyDeviceToHost);
  check("read_strided", in, out, n);
  cudaMemset(d_out, 0, nn * sizeof(float));
  transpose_tiled<<<grid, block>>>(d_in, d_out, n);
  cudaMemcpy(out, d_out, nn * sizeof(float), cudaMemcpyDeviceToHost);
  check("tiled", in, out, n);
  free(in); free(out);
  cudaFree(d_in); cudaFree(d_out);
  return 0;
}
