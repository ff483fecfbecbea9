// A whole program for the driver's build tests: several kernels over 2-D
// blocks, a struct array, float4 loads, a shared-memory tile, libdevice
// math, atomics, loops with runtime bounds, and host code that allocates,
// launches and prints a checksum. Without a GPU it prints "no device".
#include <cstdio>
#include <cuda_runtime.h>

struct Particle {
  float x, y, vx, vy;
};

// Struct fields of one element per thread.
__global__ void advance(Particle *p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += dt * p[i].vx;
    p[i].y += dt * p[i].vy;
  }
}

// A 2-D stencil over a 16x16 shared tile with a halo read from global.
__global__ void smooth(const float *in, float *out, int w, int h) {
  __shared__ float tile[18][18];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  int cx = min(x, w - 1), cy = min(y, h - 1);
  tile[threadIdx.y + 1][threadIdx.x + 1] = in[cy * w + cx];
  if (threadIdx.x == 0) tile[threadIdx.y + 1][0] = in[cy * w + max(cx - 1, 0)];
  if (threadIdx.x == 15) tile[threadIdx.y + 1][17] = in[cy * w + min(cx + 1, w - 1)];
  if (threadIdx.y == 0) tile[0][threadIdx.x + 1] = in[max(cy - 1, 0) * w + cx];
  if (threadIdx.y == 15) tile[17][threadIdx.x + 1] = in[min(cy + 1, h - 1) * w + cx];
  __syncthreads();
  if (x < w && y < h)
    out[y * w + x] = 0.2f * (tile[threadIdx.y + 1][threadIdx.x + 1] + tile[threadIdx.y][threadIdx.x + 1] +
                             tile[threadIdx.y + 2][threadIdx.x + 1] + tile[threadIdx.y + 1][threadIdx.x] +
                             tile[threadIdx.y + 1][threadIdx.x + 2]);
}

// float4 loads, a table every thread reads, libdevice math, a loop whose
// trip count is an argument.
__global__ void shade(const float4 *v, const float *table, float *out, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 a = v[i];
  float s = 0.0f;
  for (int r = 0; r < rounds; ++r)
    s += table[(threadIdx.x + r) % 32] * expf(-a.x * a.x) + sqrtf(fabsf(a.y)) + a.z * a.w;
  out[i] = s;
}

// A histogram with atomics.
__global__ void histogram(const float *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[min((int)(fabsf(data[i]) * 16.0f), 15)], 1u);
}

int main() {
  const int n = 1 << 14, w = 128, h = 128, rounds = 8;
  Particle *p;
  float *img, *smoothed, *table, *out;
  float4 *v;
  unsigned *bins;
  if (cudaMalloc(&p, n * sizeof(Particle)) != cudaSuccess) {
    printf("no device\n");
    return 0;
  }
  cudaMalloc(&img, w * h * sizeof(float));
  cudaMalloc(&smoothed, w * h * sizeof(float));
  cudaMalloc(&table, 32 * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&v, n * sizeof(float4));
  cudaMalloc(&bins, 16 * sizeof(unsigned));
  float host[32];
  for (int k = 0; k < 32; ++k) host[k] = 0.03125f * k;
  cudaMemcpy(table, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(p, 0, n * sizeof(Particle));
  cudaMemset(img, 0, w * h * sizeof(float));
  cudaMemset(v, 0, n * sizeof(float4));
  cudaMemset(bins, 0, 16 * sizeof(unsigned));
  advance<<<n / 128, 128>>>(p, n, 0.5f);
  smooth<<<dim3(w / 16, h / 16), dim3(16, 16)>>>(img, smoothed, w, h);
  shade<<<n / 256, 256>>>(v, table, out, n, rounds);
  histogram<<<n / 256, 256>>>(out, bins, n);
  unsigned counts[16];
  cudaMemcpy(counts, bins, sizeof counts, cudaMemcpyDeviceToHost);
  unsigned long long sum = 0;
  for (int k = 0; k < 16; ++k) sum += (unsigned long long)(k + 1) * counts[k];
  printf("checksum %llu\n", sum);
  return 0;
}
