// A 5-point moving average over a signal, with clamped edges.
#include "signal.h"

#include <cstdio>

__global__ void blur5(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = -2; k <= 2; ++k) s += in[min(max(i + k, 0), n - 1)];
  out[i] = s / 5.0f;
}

int blur(const float *in, float *out, int n) {
  float *d_in, *d_out;
  size_t bytes = n * sizeof(float);
  if (cudaMalloc(&d_in, bytes) != cudaSuccess || cudaMalloc(&d_out, bytes) != cudaSuccess) return -1;
  cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice);
  blur5<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  cudaError_t e = cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (e != cudaSuccess) std::fprintf(stderr, "blur: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : -1;
}
