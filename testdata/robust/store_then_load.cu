// Issue 19, fact 7: whether a global store allocates in L1 on Volta and
// later is not settled (Accel-Sim's write-policy microbenchmark reports
// write-allocate on Volta-Ampere, its tested config says no-allocate).
// Each warp writes one line, then, after a barrier, reads the line the
// next warp wrote: a hit only if stores allocate.
#include <cstdio>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void exchange(const float *in, float *b, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  b[i] = in[i] * 2.0f;
  __syncthreads();
  int j = blockIdx.x * THREADS + ((threadIdx.x + 32) % THREADS);
  out[i] = b[j];
}

int main() {
  const int blocks = 80, n = blocks * THREADS;
  float *in, *b, *out;
  cudaMalloc(&in, sizeof(float) * n);
  cudaMalloc(&b, sizeof(float) * n);
  cudaMalloc(&out, sizeof(float) * n);
  cudaMemset(in, 0, sizeof(float) * n);
  exchange<<<blocks, THREADS>>>(in, b, out);
  float first = 0.0f;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(in);
  cudaFree(b);
  cudaFree(out);
  return 0;
}
