// nbody: gravitational accelerations of NB bodies from the NSRC heaviest ones (stored first; NSRC
// = NB gives all pairs). Each thread owns one body and loops over the sources j with a runtime
// bound, loading pos[j] (a float4: x, y, z, mass) -- the same address for every thread of the warp
// at a time, and the same array for every block (reuse across the SM), with rsqrtf for 1/r. A
// second kernel integrates velocity and position (streamed loads). One step.
// (NSRC is small because the simulator takes ~300 cycles per iteration of this loop.)
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define NB 256
#define BLOCK 4
#define STEPS 1
#define NSRC 96
#define SOFT2 0.01f

static uint32_t lcg_state = 424242u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float lcg_unit() { return (float)(lcg() >> 8) * (1.0f / 16777216.0f); }

__global__ void forces(const float4 *pos, float4 *acc, int n, int nsrc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < nsrc; j++) {
    float4 q = pos[j];
    float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
    float r2 = dx * dx + dy * dy + dz * dz + SOFT2;
    float inv = rsqrtf(r2);
    float s = q.w * inv * inv * inv;
    ax += dx * s; ay += dy * s; az += dz * s;
  }
  acc[i] = make_float4(ax, ay, az, 0.0f);
}

__global__ void integrate(float4 *pos, float4 *vel, const float4 *acc, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i], a = acc[i];
  v.x += dt * a.x; v.y += dt * a.y; v.z += dt * a.z;
  p.x += dt * v.x; p.y += dt * v.y; p.z += dt * v.z;
  pos[i] = p;
  vel[i] = v;
}

int main() {
  const int n = NB;
  float4 *pos = (float4 *)malloc(n * sizeof(float4));
  float4 *vel = (float4 *)malloc(n * sizeof(float4));
  for (int i = 0; i < n; i++) {
    pos[i] = make_float4(lcg_unit() * 2.0f - 1.0f, lcg_unit() * 2.0f - 1.0f, lcg_unit() * 2.0f - 1.0f,
                         i < NSRC ? 4.0f + lcg_unit() : 0.5f + lcg_unit());
    vel[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  float4 *d_pos, *d_vel, *d_acc;
  cudaMalloc(&d_pos, n * sizeof(float4));
  cudaMalloc(&d_vel, n * sizeof(float4));
  cudaMalloc(&d_acc, n * sizeof(float4));
  cudaMemcpy(d_pos, pos, n * sizeof(float4), cudaMemcpyHostToDevice);
  cudaMemcpy(d_vel, vel, n * sizeof(float4), cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  for (int s = 0; s < STEPS; s++) {
    forces<<<blocks, BLOCK>>>(d_pos, d_acc, n, NSRC);
    integrate<<<blocks, BLOCK>>>(d_pos, d_vel, d_acc, n, 0.001f);
  }
  cudaMemcpy(pos, d_pos, n * sizeof(float4), cudaMemcpyDeviceToHost);
  cudaMemcpy(vel, d_vel, n * sizeof(float4), cudaMemcpyDeviceToHost);
  uint32_t bits = 0;
  double psum = 0.0, ke = 0.0;
  for (int i = 0; i < n; i++) {
    const float *f = &pos[i].x;
    for (int c = 0; c < 3; c++) { uint32_t b; memcpy(&b, &f[c], 4); bits = bits * 31u + b; }
    psum += pos[i].x + pos[i].y + pos[i].z;
    ke += 0.5 * pos[i].w * (vel[i].x * vel[i].x + vel[i].y * vel[i].y + vel[i].z * vel[i].z);
  }
  printf("RESULT nbody bodies=%d sources=%d steps=%d blocks=%d block=%d\n", n, NSRC, STEPS, blocks, BLOCK);
  printf("RESULT checksum=%08x possum=%.6f kinetic=%.6f\n", bits, psum, ke);
  free(pos); free(vel);
  cudaFree(d_pos); cudaFree(d_vel); cudaFree(d_acc);
  return 0;
}
