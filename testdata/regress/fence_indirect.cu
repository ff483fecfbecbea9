// A last-block reduction whose final sum is chosen at run time: the kernel fences, then calls
// sum_a or sum_b through a function pointer. Both read the partial sums other blocks wrote; on
// sm_52/sm_61 a .ca there could serve a stale line from L1. An adversarial review found them cached:
// the fence rule followed direct calls only. Functions whose address is taken now join the tree of
// every kernel that calls through a pointer.
#include <cuda_runtime.h>

__device__ unsigned int done_count;
__device__ float partial[1024];

typedef float (*sum_fn)(int);
__device__ __noinline__ float sum_a(int nb) {
  float t = 0.f;
  for (int b = 0; b < nb; ++b) t += partial[b];
  return t;
}
__device__ __noinline__ float sum_b(int nb) {
  float t = 1.f;
  for (int b = 0; b < nb; ++b) t *= partial[b];
  return t;
}
__device__ sum_fn fns[2] = {sum_a, sum_b};

__global__ void reduce_then_call(const float *in, float *out, int which) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = in[blockIdx.x];
    __threadfence();
    last = atomicInc(&done_count, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) *out = fns[which & 1](gridDim.x);
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  reduce_then_call<<<1024, 128>>>(in, out, 0);
  cudaDeviceSynchronize();
  return 0;
}
