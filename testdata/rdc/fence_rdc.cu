// Separate compilation (-fgpu-rdc -S): what another translation unit can do after a fence. `api` is
// exported and reads a __device__ table through a static and an anonymous-namespace helper; a kernel
// of another unit may call it after __threadfence(). `finish` calls signal_done, defined in another
// unit (where the fence is), and then reads the partial sums other blocks wrote. An adversarial
// review found the helpers and finish's reads cached (.ca) on sm_52/sm_61. `user` neither fences nor
// calls another unit: its load is the policy's.
#include <cuda_runtime.h>

__device__ float table[1024];
__device__ float partial[1024];

static __device__ __noinline__ float helper(int nb) {
  float t = 0.f;
  for (int b = 0; b < nb; ++b) t += table[b];
  return t;
}
namespace {
__device__ __noinline__ float helper2(int nb) {
  float t = 1.f;
  for (int b = 0; b < nb; ++b) t *= table[b];
  return t;
}
}  // namespace

__device__ float api(int nb) { return helper(nb) + helper2(nb); }

extern __device__ bool signal_done(float v);  // another unit: writes partial, fences, counts

__global__ void finish(const float *in, float *out) {
  __shared__ bool last;
  if (threadIdx.x == 0) last = signal_done(in[blockIdx.x]);
  __syncthreads();
  if (last) out[threadIdx.x] = partial[threadIdx.x];
}

__global__ void user(float *out) { out[threadIdx.x] = table[threadIdx.x]; }
