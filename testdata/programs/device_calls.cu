// Device functions kept out of line (issue 19): the kernel-level model
// follows each call into the callee's body, with the caller's arguments.
// Built as it is, `stencil`, `coeff` and `row_sum` stay calls
// (`__noinline__`); built with -DOUT_OF_LINE=__forceinline__ they are
// inlined, and the model must see the same accesses either way
// (tests/calls.rs). Two kernels share `stencil` and `coeff`; one 2-D grid
// of 16 x 16 blocks, a struct passed by value, a loop inside a callee
// bounded by a kernel argument, and a shared-memory tile beside the calls.
// Written for gpucc-cache's tests.
#include <cstdio>
#include <cuda_runtime.h>

#ifndef OUT_OF_LINE
#define OUT_OF_LINE __noinline__
#endif

#define TILE 16

struct Dims {
  int nx, ny;
};

// Five-point stencil of u at (x, y) on a row of nx.
__device__ OUT_OF_LINE float stencil(const float *u, int x, int y, int nx) {
  int c = y * nx + x;
  return 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]) - u[c];
}

// A 16-entry coefficient table, one entry per column of the tile.
__device__ OUT_OF_LINE float coeff(const float *w, int x) { return w[x & (TILE - 1)]; }

// The sum of m elements of u's row y from column x0: a loop bounded by an
// argument.
__device__ OUT_OF_LINE float row_sum(const float *u, int y, int nx, int x0, int m) {
  float s = 0.0f;
  for (int k = 0; k < m; ++k)
    s += u[y * nx + x0 + k];
  return s;
}

__global__ void smooth(const float *u, const float *w, float *out, Dims d) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < 1 || y < 1 || x >= d.nx - 1 || y >= d.ny - 1)
    return;
  out[y * d.nx + x] = u[y * d.nx + x] + coeff(w, x) * stencil(u, x, y, d.nx);
}

__global__ void residual(const float *u, const float *w, float *r, int nx, int ny, int m) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  bool inside = x >= 1 && y >= 1 && x < nx - 1 && y < ny - 1;
  tile[threadIdx.y][threadIdx.x] = inside ? stencil(u, x, y, nx) * coeff(w, x) : 0.0f;
  __syncthreads();
  if (inside && threadIdx.x == 0)
    r[y * nx + x] = tile[threadIdx.y][TILE - 1] + row_sum(u, y, nx, x, m);
}

int main() {
  const int nx = 512, ny = 512, m = 8;
  size_t bytes = sizeof(float) * nx * ny;
  float *u, *w, *out, *r;
  cudaMalloc(&u, bytes);
  cudaMalloc(&w, sizeof(float) * TILE);
  cudaMalloc(&out, bytes);
  cudaMalloc(&r, bytes);
  cudaMemset(u, 0, bytes);
  cudaMemset(w, 0, sizeof(float) * TILE);
  dim3 block(TILE, TILE);
  dim3 grid(nx / TILE, ny / TILE);
  Dims d = {nx, ny};
  smooth<<<grid, block>>>(u, w, out, d);
  residual<<<grid, block>>>(u, w, r, nx, ny, m);
  cudaDeviceSynchronize();
  float first;
  cudaMemcpy(&first, out + nx + 1, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(u);
  cudaFree(w);
  cudaFree(out);
  cudaFree(r);
  return 0;
}
