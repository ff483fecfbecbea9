// 1-D stencil of radius 3 read straight from global memory (no shared
// staging): each output point touches in[i-3] .. in[i+3].
#include <cuda_runtime.h>
#include <cstdio>

#define RADIUS 3

__global__ void stencil1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < RADIUS || i >= n - RADIUS)
    return;
  float r = 0.25f * in[i];
  r += 0.15f * (in[i - 1] + in[i + 1]);
  r += 0.10f * (in[i - 2] + in[i + 2]);
  r += 0.05f * (in[i - 3] + in[i + 3]);
  out[i] = r;
}

// Same computation with the taps in a loop and a grid-stride outer loop.
__global__ void stencil1d_loop(const float *__restrict__ in, const float *__restrict__ w,
                               float *__restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x + RADIUS; i < n - RADIUS;
       i += gridDim.x * blockDim.x) {
    float r = 0.f;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; k++)
      r += w[k + RADIUS] * in[i + k];
    out[i] = r;
  }
}

int main() {
  const int n = 1 << 24;
  float *d_in, *d_out, *d_w;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_w, (2 * RADIUS + 1) * sizeof(float));
  float h_w[2 * RADIUS + 1] = {0.05f, 0.10f, 0.15f, 0.25f, 0.15f, 0.10f, 0.05f};
  cudaMemcpy(d_w, h_w, sizeof(h_w), cudaMemcpyHostToDevice);
  cudaMemset(d_in, 0, n * sizeof(float));

  stencil1d<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  stencil1d_loop<<<64, 256>>>(d_in, d_w, d_out, n);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_w);
  return 0;
}
