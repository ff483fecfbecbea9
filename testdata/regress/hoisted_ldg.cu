// Regression (issue 16, item 8): the backend sinks the plain load of x[i]
// into the loop's preheader and drops its debug location, so its key is
// lost; the loop also reads a coefficient table and a per-block gain with
// __ldg (ld.global.nc), loads of the same width in the same kernel. The
// keyless plain load may take a decision only from a provably same access:
// never from, or for, the __ldg reads.
#include <cstdio>

__global__ void fir_gain(const float *x, const float *coef, const float *gain, float *y, int n,
                         int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int shift = (int)roundf(x[i]);
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t)
    acc += __ldg(&coef[t]) * __ldg(&gain[blockIdx.x]) * (float)(shift + t);
  y[i] = acc;
}

int main() {
  const int n = 1 << 20, taps = 16;
  float *x, *coef, *gain, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&coef, taps * sizeof(float));
  cudaMalloc(&gain, (n / 256) * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  fir_gain<<<n / 256, 256>>>(x, coef, gain, y, n, taps);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
