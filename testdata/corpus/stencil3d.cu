// Seven-point 3-D stencil.  A 2-D thread block covers an (x, y) tile and
// marches through z, keeping the planes below and above in registers and the
// current plane in shared memory.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BX 32
#define BY 8

__global__ void stencil7(const float *__restrict__ in, float *__restrict__ out, int nx, int ny,
                         int nz, float c0, float c1) {
  __shared__ float plane[BY + 2][BX + 2];
  int i = blockIdx.x * BX + threadIdx.x;
  int j = blockIdx.y * BY + threadIdx.y;
  int tx = threadIdx.x + 1;
  int ty = threadIdx.y + 1;
  bool active = i > 0 && j > 0 && i < nx - 1 && j < ny - 1;
  size_t stride = (size_t)nx * ny;
  size_t idx = (size_t)j * nx + i;

  float below = 0.f, cur = 0.f, above = 0.f;
  if (i < nx && j < ny) {
    below = in[idx];
    cur = in[idx + stride];
  }
  for (int k = 1; k < nz - 1; k++) {
    size_t here = idx + k * stride;
    if (i < nx && j < ny)
      above = in[here + stride];
    __syncthreads();
    plane[ty][tx] = cur;
    if (active) {
      if (threadIdx.x == 0) plane[ty][0] = in[here - 1];
      if (threadIdx.x == BX - 1) plane[ty][BX + 1] = in[here + 1];
      if (threadIdx.y == 0) plane[0][tx] = in[here - nx];
      if (threadIdx.y == BY - 1) plane[BY + 1][tx] = in[here + nx];
    }
    __syncthreads();
    if (active) {
      float sum = plane[ty][tx - 1] + plane[ty][tx + 1] + plane[ty - 1][tx] +
                  plane[ty + 1][tx] + below + above;
      out[here] = c0 * cur + c1 * sum;
    }
    below = cur;
    cur = above;
  }
}

// Reference version: one thread per point with 3-D thread blocks, all seven
// taps read straight from global memory.
__global__ void stencil7_naive(const float *in, float *out, int nx, int ny, int nz, float c0,
                               float c1) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1)
    return;
  size_t sxy = (size_t)nx * ny;
  size_t c = k * sxy + (size_t)j * nx + i;
  out[c] = c0 * in[c] + c1 * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - sxy] +
                              in[c + sxy]);
}

int main(int argc, char **argv) {
  int nx = argc > 1 ? atoi(argv[1]) : 256;
  int ny = argc > 2 ? atoi(argv[2]) : 256;
  int nz = argc > 3 ? atoi(argv[3]) : 128;
  size_t bytes = (size_t)nx * ny * nz * sizeof(float);
  float *d_in, *d_out;
  cudaMalloc(&d_in, bytes);
  cudaMalloc(&d_out, bytes);
  cudaMemset(d_in, 0, bytes);

  dim3 block(BX, BY);
  dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
  for (int t = 0; t < 10; t++) {
    stencil7<<<grid, block>>>(d_in, d_out, nx, ny, nz, 0.4f, 0.1f);
    float *tmp = d_in;
    d_in = d_out;
    d_out = tmp;
  }
  dim3 block3(8, 8, 4);
  dim3 grid3((nx + 7) / 8, (ny + 7) / 8, (nz + 3) / 4);
  stencil7_naive<<<grid3, block3>>>(d_in, d_out, nx, ny, nz, 0.4f, 0.1f);
  cudaDeviceSynchronize();
  printf("stencil7 %dx%dx%d done\n", nx, ny, nz);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
