// Diagnostics in a whole-program build: one warning only the device side
// sees (an unused variable in the kernel, compiled for the GPU and, as
// clang parses kernels on both sides, for the host too), and one only the
// host side sees (under #ifndef __CUDA_ARCH__). The driver compiles the
// host side twice (once to IR, to read the launches) and must print each
// compile's diagnostics as clang's compiles do: once per arch for the
// device side, once for the host object.
#include <cstdio>

__global__ void scale(float *out, const float *in, int n) {
  int unused_in_kernel = 7;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

int main() {
#ifndef __CUDA_ARCH__
  int unused_on_host = 1;
#endif
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, 256 * sizeof(float));
  cudaMalloc(&out, 256 * sizeof(float));
  scale<<<2, 128>>>(out, in, 256);
  printf("RESULT %d\n", (int)cudaDeviceSynchronize());
  return 0;
}
