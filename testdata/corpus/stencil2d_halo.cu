// 2-D five-point Jacobi stencil.  Each 16x16 block stages an 18x18 tile
// (interior plus a one-cell halo) in shared memory before computing.
#include <cuda_runtime.h>
#include <cstdio>

#define TILE 16
#define RADIUS 1

__global__ void jacobi5(const float *__restrict__ in, float *__restrict__ out, int nx, int ny) {
  __shared__ float tile[TILE + 2 * RADIUS][TILE + 2 * RADIUS];
  int gx = blockIdx.x * TILE + threadIdx.x;
  int gy = blockIdx.y * TILE + threadIdx.y;
  int lx = threadIdx.x + RADIUS;
  int ly = threadIdx.y + RADIUS;
  // clamp to the border so halo reads stay in bounds
  int cx = min(gx, nx - 1);
  int cy = min(gy, ny - 1);

  tile[ly][lx] = in[cy * nx + cx];
  if (threadIdx.x == 0)
    tile[ly][0] = in[cy * nx + max(cx - 1, 0)];
  if (threadIdx.x == TILE - 1)
    tile[ly][TILE + 1] = in[cy * nx + min(cx + 1, nx - 1)];
  if (threadIdx.y == 0)
    tile[0][lx] = in[max(cy - 1, 0) * nx + cx];
  if (threadIdx.y == TILE - 1)
    tile[TILE + 1][lx] = in[min(cy + 1, ny - 1) * nx + cx];
  __syncthreads();

  if (gx > 0 && gy > 0 && gx < nx - 1 && gy < ny - 1) {
    float c = tile[ly][lx];
    float n = tile[ly - 1][lx];
    float s = tile[ly + 1][lx];
    float w = tile[ly][lx - 1];
    float e = tile[ly][lx + 1];
    out[gy * nx + gx] = 0.2f * (c + n + s + w + e);
  } else if (gx < nx && gy < ny) {
    out[gy * nx + gx] = tile[ly][lx];
  }
}

void run_jacobi(int nx, int ny, int iters) {
  size_t bytes = (size_t)nx * ny * sizeof(float);
  float *d_a, *d_b;
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMemset(d_a, 0, bytes);
  cudaMemset(d_b, 0, bytes);

  dim3 block(16, 16);
  dim3 grid((nx + 15) / 16, (ny + 15) / 16);
  for (int it = 0; it < iters; it++) {
    jacobi5<<<grid, block>>>(d_a, d_b, nx, ny);
    float *tmp = d_a;
    d_a = d_b;
    d_b = tmp;
  }
  cudaDeviceSynchronize();
  cudaFree(d_a);
  cudaFree(d_b);
}

int main() {
  run_jacobi(2048, 2048, 100);
  printf("done\n");
  return 0;
}
