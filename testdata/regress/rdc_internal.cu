// Under separate compilation (-fgpu-rdc) clang gives internal symbols (a static kernel, a static
// __device__ variable) names other units can see: _ZL6hiddenPKfPf__intern__<hash of the unit's ID>.
// The ID hashes the command line by default, and the driver's own clang runs have scratch paths in
// theirs: an adversarial review found the suffix new on every run and different between the archs
// of one run. The driver now gives every run of one input one ID.
#include <cuda_runtime.h>

static __global__ void hidden(const float *a, float *b) { b[threadIdx.x] = a[threadIdx.x]; }
static __device__ float sdev[4];
__global__ void pub(float *b) { b[threadIdx.x] = sdev[threadIdx.x & 3]; }

int main() {
  float *a, *b;
  cudaMalloc(&a, 1024);
  cudaMalloc(&b, 1024);
  hidden<<<1, 256>>>(a, b);
  pub<<<1, 256>>>(b);
  cudaDeviceSynchronize();
  return 0;
}
