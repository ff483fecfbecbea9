// A PCG32 generator per thread driving a Monte Carlo estimate with random
// reads of a lookup table (issue 16 item 4): 64-bit LCG state, xorshift and
// a data-dependent rotation, in a 1,000-trip loop.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

struct Pcg32 {
  uint64_t state;
  uint64_t inc;
};

__device__ __forceinline__ uint32_t pcg32_next(Pcg32 &rng) {
  uint64_t old = rng.state;
  rng.state = old * 6364136223846793005ULL + rng.inc;
  uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
  uint32_t rot = (uint32_t)(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

__global__ void pcg_monte_carlo(const float *weights, const float2 *points, float *partial,
                                uint64_t seed, uint32_t npoints, int samples) {
  uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  Pcg32 rng{0, (uint64_t(tid) << 1u) | 1u};
  pcg32_next(rng);
  rng.state += seed;
  pcg32_next(rng);
  float acc = 0.0f;
  for (int i = 0; i < samples; ++i) {
    uint32_t r = pcg32_next(rng);
    float2 p = points[r % npoints];
    acc += weights[r & 1023] * (p.x * p.x + p.y * p.y <= 1.0f ? 1.0f : 0.0f);
  }
  partial[tid] = acc / samples;
}

int main() {
  const int threads = 128, blocks = 4096;
  const uint32_t npoints = 1 << 20;
  float *weights, *partial;
  float2 *points;
  cudaMalloc(&weights, 1024 * sizeof(float));
  cudaMalloc(&points, npoints * sizeof(float2));
  cudaMalloc(&partial, threads * blocks * sizeof(float));
  pcg_monte_carlo<<<blocks, threads>>>(weights, points, partial, 42ULL, npoints, 1000);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
