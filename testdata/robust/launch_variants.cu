// Host launches that pass different constants (analysis/launch.rs,
// LaunchVariant): `smooth` is a 1-D box filter whose radius is a kernel
// argument, launched with r = 1, then with r = 2. No single value is the
// kernel's; the model takes the first launch's (line of the first
// launch) and weighs the second as a scenario under auto, where it once
// took r as unknown per thread (through the clamp, not linear in it) and
// gave every lane a line of its own: on GPGPU-Sim's GTX480 the held-out
// conv2d_filter (testdata/holdout3), launched with radius 2 and 1, was
// bypassed so and took 1.23x the cycles of cache-all.
// tests/robust_decisions.rs checks the figures on the GTX480 description.
#include <cuda_runtime.h>

#define N 4096
#define THREADS 128

__global__ void smooth(const float *in, float *out, int n, int r) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  float s = 0.0f;
  for (int k = -r; k <= r; k++) {
    int j = min(max(i + k, 0), n - 1);
    s += in[j];
  }
  out[i] = s;
}

int main() {
  float *a, *b;
  cudaMalloc(&a, sizeof(float) * N);
  cudaMalloc(&b, sizeof(float) * N);
  smooth<<<N / THREADS, THREADS>>>(a, b, N, 1);
  smooth<<<N / THREADS, THREADS>>>(b, a, N, 2);
  cudaDeviceSynchronize();
  cudaFree(a);
  cudaFree(b);
  return 0;
}
