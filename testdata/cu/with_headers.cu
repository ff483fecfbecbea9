// A kernel that includes the CUDA headers, as real-world sources do: the
// runtime API, half precision and cuRAND's device API.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

__global__ void jitter(const __half *in, const float *scale, float *out, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, i, 0, &state);
  float noise = curand_uniform(&state);
  out[i] = __half2float(in[i]) * scale[threadIdx.x % 32] + noise;
}
