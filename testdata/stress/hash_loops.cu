// Hash and PRNG chains in loops of 1,000 trips that also read global memory
// (issue 16 item 4): the addresses depend on non-linear arithmetic of
// loop-carried state (xorshift, LCG, murmur finalisers), so no closed form
// exists and every trip's address is a fresh value.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

#define TRIPS 1000

__device__ __forceinline__ uint32_t xorshift32(uint32_t x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

__device__ __forceinline__ uint32_t murmur_mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// Random probes into a table: each trip hashes the state and reads there.
__global__ void xorshift_probe(const float *table, float *out, uint32_t mask, uint32_t seed) {
  uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t x = seed ^ (tid * 0x9e3779b9u);
  float acc = 0.0f;
  for (int i = 0; i < TRIPS; ++i) {
    x = xorshift32(x);
    acc += table[x & mask];
  }
  out[tid] = acc;
}

// An LCG walks the table; a coalesced read of the same trip alongside.
__global__ void lcg_walk(const int *table, const int *stream, int *out, uint32_t mask) {
  uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t s = tid + 12345u;
  int acc = 0;
  for (int i = 0; i < TRIPS; ++i) {
    s = s * 1664525u + 1013904223u;
    acc ^= table[(s >> 8) & mask];
    acc += stream[i * 256 + threadIdx.x];
  }
  out[tid] = acc;
}

// A murmur chain over the data it reads: the next index depends on the
// hashed state and on the value loaded (pointer-chasing through a hash).
__global__ void murmur_chain(const uint32_t *keys, uint32_t *out, uint32_t mask) {
  uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t h = murmur_mix(tid);
  for (int i = 0; i < TRIPS; ++i) {
    h = murmur_mix(h + (uint32_t)i);
    h ^= keys[h & mask];
  }
  out[tid] = h;
}

// Two chained generators, the second seeded from the first every trip.
__global__ void double_hash(const float *a, const float *b, float *out, uint32_t mask) {
  uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t x = tid | 1u, y = murmur_mix(tid);
  float acc = 0.0f;
  for (int i = 0; i < TRIPS; ++i) {
    x = xorshift32(x);
    y = murmur_mix(y ^ x);
    acc += a[x & mask] * b[y & mask];
  }
  out[tid] = acc;
}

// A 64-bit xorshift* generator picking rows of a matrix; each trip reads
// one element of the row and the next one.
__global__ void xorshift64_rows(const double *m, double *out, uint32_t rows) {
  uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t x = 0x9e3779b97f4a7c15ull ^ tid;
  double acc = 0.0;
  for (int i = 0; i < TRIPS; ++i) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t r = (x * 0x2545f4914f6cdd1dull) % rows;
    acc += m[r * 1024 + threadIdx.x] + m[r * 1024 + threadIdx.x + 1];
  }
  out[tid] = acc;
}

int main() {
  const int n = 1 << 20, threads = 256, blocks = n / threads;
  const uint32_t mask = (1u << 22) - 1;
  float *table, *fout, *b;
  int *itable, *stream, *iout;
  uint32_t *keys, *uout;
  cudaMalloc(&table, (mask + 1) * sizeof(float));
  cudaMalloc(&b, (mask + 1) * sizeof(float));
  cudaMalloc(&fout, n * sizeof(float));
  cudaMalloc(&itable, (mask + 1) * sizeof(int));
  cudaMalloc(&stream, TRIPS * 256 * sizeof(int));
  cudaMalloc(&iout, n * sizeof(int));
  cudaMalloc(&keys, (mask + 1) * sizeof(uint32_t));
  cudaMalloc(&uout, n * sizeof(uint32_t));
  xorshift_probe<<<blocks, threads>>>(table, fout, mask, 2463534242u);
  lcg_walk<<<blocks, threads>>>(itable, stream, iout, mask);
  murmur_chain<<<blocks, threads>>>(keys, uout, mask);
  double_hash<<<blocks, threads>>>(table, b, fout, mask);
  double *m, *dout;
  cudaMalloc(&m, 4096 * 1024 * sizeof(double));
  cudaMalloc(&dout, n * sizeof(double));
  xorshift64_rows<<<blocks, threads>>>(m, dout, 4096);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
