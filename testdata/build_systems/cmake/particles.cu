// Kernels and their host launcher: particles in a box under gravity, and a
// block reduction of their speeds.
#include "particles.h"

#include <cstdio>
#include <cuda_runtime.h>

struct Particle {
  float x, y, vx, vy;
};

__global__ void init(Particle *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = {float(i % 97), float(i % 89), 1.0f + (i % 7), 0.5f * (i % 5)};
}

// One time step: gravity, then a bounce off the floor and the walls.
__global__ void step(Particle *p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle q = p[i];
  q.vy -= 9.81f * dt;
  q.x += q.vx * dt;
  q.y += q.vy * dt;
  if (q.y < 0.0f) { q.y = -q.y; q.vy = -0.9f * q.vy; }
  if (q.x < 0.0f || q.x > 100.0f) q.vx = -q.vx;
  p[i] = q;
}

// Per-block sums of the speeds, in shared memory.
__global__ void speeds(const Particle *p, int n, float *sums) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? sqrtf(p[i].vx * p[i].vx + p[i].vy * p[i].vy) : 0.0f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}

static bool failed(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return false;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return true;
}

int simulate(int n, int steps, float *mean) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 1;
  const int threads = 256, blocks = (n + threads - 1) / threads;
  Particle *p;
  float *sums;
  if (failed(cudaMalloc(&p, n * sizeof(Particle)), "cudaMalloc") ||
      failed(cudaMalloc(&sums, blocks * sizeof(float)), "cudaMalloc"))
    return -1;
  init<<<blocks, threads>>>(p, n);
  for (int t = 0; t < steps; ++t) step<<<blocks, threads>>>(p, n, 0.01f);
  speeds<<<blocks, threads>>>(p, n, sums);
  float *host = new float[blocks];
  int status = 0;
  if (failed(cudaMemcpy(host, sums, blocks * sizeof(float), cudaMemcpyDeviceToHost), "kernels"))
    status = -1;
  double total = 0;
  for (int b = 0; b < blocks; ++b) total += host[b];
  *mean = float(total / n);
  delete[] host;
  cudaFree(p);
  cudaFree(sums);
  return status;
}
