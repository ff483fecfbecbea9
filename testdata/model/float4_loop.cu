// Vector loads (issue 19): clang splits a float4 read into four scalar
// loads and the NVPTX backend merges them back into one ld.global.v4 when
// the alignment allows. `pull` reads the same float4 source table in a loop
// (nbody's inner loop: one address per warp at a time); `drift` reads x, y
// and z of its own float4 (12 bytes at align 16: ld.global.v2 + a scalar).
#include <cstdio>
#include <cuda_runtime.h>

#define N 128
#define NSRC 8
#define BLOCK 64

__global__ void pull(const float4 *src, float4 *acc, int nsrc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < nsrc; j++) {
    float4 q = src[j];
    float s = q.w / (1.0f + q.x * q.x + q.y * q.y + q.z * q.z);
    ax += q.x * s; ay += q.y * s; az += q.z * s;
  }
  acc[i] = make_float4(ax, ay, az, 0.0f);
}

__global__ void drift(const float4 *pos, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = pos[i];
  out[i] = p.x + p.y + p.z;
}

int main() {
  float4 *src, *acc, *pos;
  float *out;
  cudaMalloc(&src, NSRC * sizeof(float4));
  cudaMalloc(&acc, N * sizeof(float4));
  cudaMalloc(&pos, N * sizeof(float4));
  cudaMalloc(&out, N * sizeof(float));
  pull<<<N / BLOCK, BLOCK>>>(src, acc, NSRC);
  drift<<<N / BLOCK, BLOCK>>>(pos, out);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
