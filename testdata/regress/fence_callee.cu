// A last-block reduction whose final sum is in a __noinline__ helper: the kernel fences
// (__threadfence) and then calls the helper, which reads the partial sums other blocks wrote. On
// sm_52/sm_61 a plain ld.global is served from L2 only, which this code relies on; a .ca in the
// helper could serve a stale line from the SM's L1 (not coherent for global data). An adversarial
// review found the helper's loads cached under every policy but off: the fence rule covered the
// fencing function and what it calls, not the functions a fencing kernel calls.
// `lookup` reads a __device__ table and is called by a kernel that does not fence: cached in a
// whole-program build, left plain under -fgpu-rdc, where a kernel of another translation unit may
// call it after a fence.
#include <cuda_runtime.h>

__device__ unsigned int done_count;
__device__ float table[256];

__device__ __noinline__ float sum_partials(const float *partial, int nb) {
  float t = 0.f;
  for (int b = 0; b < nb; ++b) t += partial[b];
  return t;
}

__device__ __noinline__ float lookup(int i) { return table[i & 255]; }

__global__ void reduce_last_block(const float *in, float *partial, float *out, int n) {
  __shared__ float s[256];
  __shared__ bool last;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int o = 128; o; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    last = atomicInc(&done_count, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) *out = sum_partials(partial, gridDim.x);
}

__global__ void apply_table(const int *key, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lookup(key[i]);
}

int main() {
  float *a, *p, *o, *y;
  int *k;
  cudaMalloc(&a, 1 << 20);
  cudaMalloc(&p, 4096);
  cudaMalloc(&o, 4);
  cudaMalloc(&k, 1 << 16);
  cudaMalloc(&y, 1 << 16);
  reduce_last_block<<<1024, 256>>>(a, p, o, 1 << 18);
  apply_table<<<64, 256>>>(k, y, 1 << 14);
  cudaDeviceSynchronize();
  return 0;
}
