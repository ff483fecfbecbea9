// soa_vs_aos_update: 6000 bodies on 120 spring chains of 50 (chain length a runtime argument),
// stepped twice (ping-pong between two buffers) in two layouts that must agree bit for bit.
// (1) update_aos: an array of 24-byte structs {x, y, z, vx, vy, vz}; each thread reads all six
// fields of its own struct (six loads within one struct, 5.3 structs per 128-B line) and x/y/z of
// its chain neighbours i-1 and i+1 (the same lines the neighbouring threads read for their own
// struct), applies spring forces, a trap, drag and gravity, bounces off the floor, wraps x/y
// periodically and writes a new struct to the second array. (2) update_soa: the same update on a
// structure of arrays (six float arrays, passed as a struct of pointers by value): every field
// stream is coalesced, and x[i-1]/x[i+1] hit the lines that x[i] of the neighbouring lanes
// brought in. (3) speed_aos / speed_soa: read only the three velocity fields of the final state
// (strided in AoS, streamed in SoA) and write one float per body. Every multiplication is by a
// power of two, so the arithmetic is exact up to one rounding per add, the same on the host.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cuda_runtime.h>

#define NB 6000
#define CHAIN 50
#define BLOCK 128
#define STEPS 2

struct Body {
  float x, y, z;
  float vx, vy, vz;
};

struct BodiesSoA {
  float *x, *y, *z;
  float *vx, *vy, *vz;
};

struct Params {
  float ks_dt;   // spring constant * dt
  float trap_dt; // trap constant * dt
  float drag;    // velocity fraction lost per step
  float g_dt;    // gravity * dt
  float dt;
  float span;    // periodic box size in x and y
};

static uint32_t lcg_state = 4242u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float urand() { return (float)(lcg() >> 8) * (1.0f / 16777216.0f); }

__host__ __device__ inline void step_body(float &x, float &y, float &z, float &vx, float &vy,
                                          float &vz, float fx, float fy, float fz, Params pr) {
  vx = vx + fx * pr.ks_dt - x * pr.trap_dt - vx * pr.drag;
  vy = vy + fy * pr.ks_dt - y * pr.trap_dt - vy * pr.drag;
  vz = vz + fz * pr.ks_dt - pr.g_dt - vz * pr.drag;
  x = x + vx * pr.dt;
  y = y + vy * pr.dt;
  z = z + vz * pr.dt;
  if (z < 0.0f) { z = -z; vz = -vz * 0.5f; }
  if (x >= pr.span) x = x - pr.span;
  if (x < -pr.span) x = x + pr.span;
  if (y >= pr.span) y = y - pr.span;
  if (y < -pr.span) y = y + pr.span;
}

__global__ void update_aos(const Body *in, Body *out, int n, int chain, Params pr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i].x, y = in[i].y, z = in[i].z;
  float vx = in[i].vx, vy = in[i].vy, vz = in[i].vz;
  int pos = i % chain;
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  if (pos > 0) {
    fx += in[i - 1].x - x; fy += in[i - 1].y - y; fz += in[i - 1].z - z;
  }
  if (pos < chain - 1 && i + 1 < n) {
    fx += in[i + 1].x - x; fy += in[i + 1].y - y; fz += in[i + 1].z - z;
  }
  step_body(x, y, z, vx, vy, vz, fx, fy, fz, pr);
  Body b;
  b.x = x; b.y = y; b.z = z; b.vx = vx; b.vy = vy; b.vz = vz;
  out[i] = b;
}

__global__ void update_soa(BodiesSoA in, BodiesSoA out, int n, int chain, Params pr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in.x[i], y = in.y[i], z = in.z[i];
  float vx = in.vx[i], vy = in.vy[i], vz = in.vz[i];
  int pos = i % chain;
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  if (pos > 0) {
    fx += in.x[i - 1] - x; fy += in.y[i - 1] - y; fz += in.z[i - 1] - z;
  }
  if (pos < chain - 1 && i + 1 < n) {
    fx += in.x[i + 1] - x; fy += in.y[i + 1] - y; fz += in.z[i + 1] - z;
  }
  step_body(x, y, z, vx, vy, vz, fx, fy, fz, pr);
  out.x[i] = x; out.y[i] = y; out.z[i] = z;
  out.vx[i] = vx; out.vy[i] = vy; out.vz[i] = vz;
}

__global__ void speed_aos(const Body *b, float *speed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) speed[i] = fabsf(b[i].vx) + fabsf(b[i].vy) + fabsf(b[i].vz);
}

__global__ void speed_soa(BodiesSoA b, float *speed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) speed[i] = fabsf(b.vx[i]) + fabsf(b.vy[i]) + fabsf(b.vz[i]);
}

static void ref_step(const Body *in, Body *out, int n, int chain, Params pr) {
  for (int i = 0; i < n; i++) {
    float x = in[i].x, y = in[i].y, z = in[i].z, vx = in[i].vx, vy = in[i].vy, vz = in[i].vz;
    int pos = i % chain;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    if (pos > 0) { fx += in[i - 1].x - x; fy += in[i - 1].y - y; fz += in[i - 1].z - z; }
    if (pos < chain - 1 && i + 1 < n) { fx += in[i + 1].x - x; fy += in[i + 1].y - y; fz += in[i + 1].z - z; }
    step_body(x, y, z, vx, vy, vz, fx, fy, fz, pr);
    out[i].x = x; out[i].y = y; out[i].z = z; out[i].vx = vx; out[i].vy = vy; out[i].vz = vz;
  }
}

static uint32_t hash_floats(uint32_t h, const float *f, int count) {
  for (int k = 0; k < count; k++) {
    uint32_t b;
    memcpy(&b, &f[k], 4);
    h = h * 31u + b;
  }
  return h;
}

static int differ(float a, float b) { return memcmp(&a, &b, 4) != 0; }

int main() {
  const int n = NB, chain = CHAIN;
  Params pr;
  pr.ks_dt = 0.25f; pr.trap_dt = 0.0078125f; pr.drag = 0.015625f; pr.g_dt = 0.0390625f;
  pr.dt = 0.03125f; pr.span = 32.0f;
  Body *hb = (Body *)malloc(sizeof(Body) * n);
  for (int c = 0; c * chain < n; c++) {
    float ax = 48.0f * urand() - 24.0f, ay = 48.0f * urand() - 24.0f, az = 1.0f + 4.0f * urand();
    float dx = urand() - 0.5f, dy = urand() - 0.5f;
    for (int k = 0; k < chain && c * chain + k < n; k++) {
      Body b;
      b.x = ax + dx * (float)k + 0.1f * (urand() - 0.5f);
      b.y = ay + dy * (float)k + 0.1f * (urand() - 0.5f);
      b.z = az + 0.2f * (urand() - 0.5f);
      if (b.x >= pr.span) b.x -= pr.span;
      if (b.x < -pr.span) b.x += pr.span;
      if (b.y >= pr.span) b.y -= pr.span;
      if (b.y < -pr.span) b.y += pr.span;
      b.vx = urand() - 0.5f; b.vy = urand() - 0.5f; b.vz = 2.0f * (urand() - 0.5f);
      hb[c * chain + k] = b;
    }
  }
  // the same bodies as a structure of arrays
  float *hs = (float *)malloc(sizeof(float) * 6 * n);
  for (int i = 0; i < n; i++) {
    hs[0 * n + i] = hb[i].x; hs[1 * n + i] = hb[i].y; hs[2 * n + i] = hb[i].z;
    hs[3 * n + i] = hb[i].vx; hs[4 * n + i] = hb[i].vy; hs[5 * n + i] = hb[i].vz;
  }

  Body *da, *db;
  cudaMalloc(&da, sizeof(Body) * n);
  cudaMalloc(&db, sizeof(Body) * n);
  cudaMemcpy(da, hb, sizeof(Body) * n, cudaMemcpyHostToDevice);
  BodiesSoA sa, sb;
  float **fa[6] = {&sa.x, &sa.y, &sa.z, &sa.vx, &sa.vy, &sa.vz};
  float **fb[6] = {&sb.x, &sb.y, &sb.z, &sb.vx, &sb.vy, &sb.vz};
  for (int f = 0; f < 6; f++) {
    cudaMalloc(fa[f], sizeof(float) * n);
    cudaMalloc(fb[f], sizeof(float) * n);
    cudaMemcpy(*fa[f], hs + f * n, sizeof(float) * n, cudaMemcpyHostToDevice);
  }
  float *dspa, *dsps;
  cudaMalloc(&dspa, sizeof(float) * n);
  cudaMalloc(&dsps, sizeof(float) * n);

  int blocks = (n + BLOCK - 1) / BLOCK;
  Body *acur = da, *anxt = db;
  BodiesSoA scur = sa, snxt = sb;
  for (int s = 0; s < STEPS; s++) {
    update_aos<<<blocks, BLOCK>>>(acur, anxt, n, chain, pr);
    update_soa<<<blocks, BLOCK>>>(scur, snxt, n, chain, pr);
    Body *t = acur; acur = anxt; anxt = t;
    BodiesSoA u = scur; scur = snxt; snxt = u;
  }
  speed_aos<<<blocks, BLOCK>>>(acur, dspa, n);
  speed_soa<<<blocks, BLOCK>>>(scur, dsps, n);
  cudaDeviceSynchronize();

  Body *oa = (Body *)malloc(sizeof(Body) * n);
  float *os = (float *)malloc(sizeof(float) * 6 * n);
  float *ospa = (float *)malloc(sizeof(float) * n), *osps = (float *)malloc(sizeof(float) * n);
  cudaMemcpy(oa, acur, sizeof(Body) * n, cudaMemcpyDeviceToHost);
  float *sc[6] = {scur.x, scur.y, scur.z, scur.vx, scur.vy, scur.vz};
  for (int f = 0; f < 6; f++) cudaMemcpy(os + f * n, sc[f], sizeof(float) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(ospa, dspa, sizeof(float) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(osps, dsps, sizeof(float) * n, cudaMemcpyDeviceToHost);

  // host reference
  Body *ra = (Body *)malloc(sizeof(Body) * n), *rb = (Body *)malloc(sizeof(Body) * n);
  memcpy(ra, hb, sizeof(Body) * n);
  for (int s = 0; s < STEPS; s++) {
    ref_step(ra, rb, n, chain, pr);
    Body *t = ra; ra = rb; rb = t;
  }
  int bad = 0, bounced = 0;
  for (int i = 0; i < n; i++) {
    const float *r = &ra[i].x, *a = &oa[i].x;
    for (int f = 0; f < 6; f++) {
      if (differ(a[f], r[f])) bad++;
      if (differ(os[f * n + i], r[f])) bad++;
    }
    float sp = fabsf(ra[i].vx) + fabsf(ra[i].vy) + fabsf(ra[i].vz);
    if (differ(ospa[i], sp) || differ(osps[i], sp)) bad++;
    if (ra[i].vz > 0.0f && hb[i].vz < 0.0f) bounced++;
  }
  uint32_t check = hash_floats(0u, &oa[0].x, 6 * n);
  check = hash_floats(check, os, 6 * n);
  check = hash_floats(check, ospa, n);
  check = hash_floats(check, osps, n);
  double spsum = 0.0, zsum = 0.0;
  for (int i = 0; i < n; i++) { spsum += ospa[i]; zsum += oa[i].z; }
  printf("RESULT soa_vs_aos_update n=%d chain=%d steps=%d upward_after=%d launch=%dx%d\n", n, chain,
         STEPS, bounced, blocks, BLOCK);
  printf("RESULT checksum=%08x speed_sum=%.4f z_sum=%.4f host_mismatches=%d\n", check, spsum, zsum, bad);
  cudaFree(da); cudaFree(db); cudaFree(dspa); cudaFree(dsps);
  for (int f = 0; f < 6; f++) { cudaFree(*fa[f]); cudaFree(*fb[f]); }
  free(hb); free(hs); free(oa); free(os); free(ospa); free(osps); free(ra); free(rb);
  return bad ? 1 : 0;
}
