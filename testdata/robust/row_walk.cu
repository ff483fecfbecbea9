// Issue 19, fact 5: an unrolled row walk. Each thread reads 32 floats of
// its own 512-byte row, 16 bytes apart (so no two are one vector load):
// two reads per 32-byte sector. Caching the first read of each sector and
// bypassing the second is as cheap as caching both only if a
// `.L1::no_allocate` load hits lines other loads allocated, which the PTX
// ISA does not promise ("do not allocate").
#include <cstdio>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void row_walk(const float *a, float *out) {
  int row = blockIdx.x * THREADS + threadIdx.x;
  const float *r = a + row * 128;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 32; ++k)
    s += r[4 * k];
  out[row] = s;
}

int main() {
  const int blocks = 108;
  float *a, *out;
  cudaMalloc(&a, sizeof(float) * blocks * THREADS * 128);
  cudaMalloc(&out, sizeof(float) * blocks * THREADS);
  cudaMemset(a, 0, sizeof(float) * blocks * THREADS * 128);
  row_walk<<<blocks, THREADS>>>(a, out);
  float first = 0.0f;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(a);
  cudaFree(out);
  return 0;
}
