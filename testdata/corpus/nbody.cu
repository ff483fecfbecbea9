// All-pairs gravitational n-body.  Positions (xyz + mass in w) are float4;
// each block stages a tile of bodies in shared memory and every thread
// accumulates the acceleration of its body with rsqrtf.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define SOFTENING 1e-9f

__device__ float3 body_body(float4 bi, float4 bj, float3 ai) {
  float3 r;
  r.x = bj.x - bi.x;
  r.y = bj.y - bi.y;
  r.z = bj.z - bi.z;
  float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING;
  float inv = rsqrtf(dist2);
  float s = bj.w * inv * inv * inv;
  ai.x += r.x * s;
  ai.y += r.y * s;
  ai.z += r.z * s;
  return ai;
}

__global__ void nbody_forces(const float4 *__restrict__ pos, float4 *__restrict__ vel, float dt,
                             int n) {
  extern __shared__ float4 sh_pos[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 my = (i < n) ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 acc = {0.f, 0.f, 0.f};
  for (unsigned int tile = 0; tile < gridDim.x; tile++) {
    int j = (int)(tile * blockDim.x + threadIdx.x);
    sh_pos[threadIdx.x] = (j < n) ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < (int)blockDim.x; k++)
      acc = body_body(my, sh_pos[k], acc);
    __syncthreads();
  }
  if (i < n) {
    float4 v = vel[i];
    v.x += acc.x * dt;
    v.y += acc.y * dt;
    v.z += acc.z * dt;
    vel[i] = v;
  }
}

__global__ void integrate(float4 *pos, const float4 *vel, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 p = pos[i];
    float4 v = vel[i];
    p.x += v.x * dt;
    p.y += v.y * dt;
    p.z += v.z * dt;
    pos[i] = p;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 30000;
  int block_size = 256;
  int nblocks = (n + block_size - 1) / block_size;
  float4 *d_pos, *d_vel;
  cudaMalloc(&d_pos, n * sizeof(float4));
  cudaMalloc(&d_vel, n * sizeof(float4));
  cudaMemset(d_pos, 0, n * sizeof(float4));
  cudaMemset(d_vel, 0, n * sizeof(float4));

  const float dt = 0.01f;
  for (int step = 0; step < 10; step++) {
    nbody_forces<<<nblocks, block_size, block_size * sizeof(float4)>>>(d_pos, d_vel, dt, n);
    integrate<<<nblocks, block_size>>>(d_pos, d_vel, dt, n);
  }
  cudaDeviceSynchronize();
  printf("nbody done\n");
  cudaFree(d_pos);
  cudaFree(d_vel);
  return 0;
}
