// Issue 19, fact 4: a rolled row walk whose rows, over all warps of the SM,
// span more lines than L1 holds. Each of the 2,048 co-resident threads
// (8 blocks of 256) sums its own 128-byte row one float per iteration.
// Whether a warp's next iteration finds its line still in L1 depends on
// how the warps interleave; caching never fetches more than bypassing on a
// sector-filling L1, so a tie must go to cache.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void rolled_rows(const float *a, float *out, int w) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
#pragma unroll 1
  for (int k = 0; k < w; ++k)
    s += a[row * w + k];
  out[row] = s;
}

int main() {
  const int blocks = 108 * 8, threads = 256, w = 32;
  float *a, *out;
  cudaMalloc(&a, sizeof(float) * blocks * threads * w);
  cudaMalloc(&out, sizeof(float) * blocks * threads);
  cudaMemset(a, 0, sizeof(float) * blocks * threads * w);
  rolled_rows<<<blocks, threads>>>(a, out, 32);
  float first = 0.0f;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(a);
  cudaFree(out);
  return 0;
}
