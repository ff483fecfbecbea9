// The last-block reduction of CUDA's threadFenceReduction sample, in short:
// each block publishes a partial sum, fences (__threadfence), counts itself
// with an atomic; the block that counts last reads every block's partial.
// Those reads see what other blocks wrote during the kernel. On sm_5x and
// sm_61/62 a plain ld.global is served from L2 only by default, and the
// code relies on it: a `.ca` there could read a line this SM's L1 held from
// before, stale (L1 is not coherent for global data, PTX ISA). So a
// function that fences at device scope keeps its loads as clang wrote them
// on those parts; `smooth`, without a fence, is decided as usual.
#include <cstdio>

__device__ unsigned int blocks_done = 0;

__global__ void sum_last_block(const float *in, float *partial, float *result, int n) {
  __shared__ bool last;
  __shared__ float warp_sums[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) s += warp_sums[w];
    partial[blockIdx.x] = s;
    __threadfence();
    unsigned int ticket = atomicInc(&blocks_done, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0.0f;
    for (int b = 0; b < gridDim.x; ++b) total += partial[b];
    *result = total;
    blocks_done = 0;
  }
}

// The same publish-and-count through inline asm, as libcu++'s scoped
// atomics and fences write it (`membar.gl`).
__global__ void sum_asm_fence(const float *in, float *partial, float *result) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = in[i] + in[i + 1];
    asm volatile("membar.gl;" ::: "memory");
    if (atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1) {
      float total = 0.0f;
      for (int b = 0; b < gridDim.x; ++b) total += partial[b];
      *result = total;
    }
  }
}

__global__ void smooth(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i + 1 < n) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

int main() {
  const int n = 1 << 16, block = 256, grid = n / block;
  float *in, *partial, *result, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&partial, grid * sizeof(float));
  cudaMalloc(&result, sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  sum_last_block<<<grid, block>>>(in, partial, result, n);
  sum_asm_fence<<<grid, block>>>(in, partial, result);
  smooth<<<grid, block>>>(in, out, n);
  float r = 0.0f;
  cudaMemcpy(&r, result, sizeof(float), cudaMemcpyDeviceToHost);
  printf("RESULT sum=%f\n", r);
  return 0;
}
