// pic_deposit: particle-in-cell charge deposit. Particles are an array of structs
// {x, y, vx, vy, q, species} (24 B, AoS); each thread reads x, y, q, species of one particle
// (grid-stride loop), looks up a per-species weight in a small global table, and deposits
// bilinear charge into a 64x64 grid with float atomicAdd (4 cells per particle). Particles are
// sorted by cell in half the array and random in the other half. A second kernel pushes particles
// (reads all 6 fields, writes x, y) and a third deposits again.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define NP 8192
#define G 64
#define NSPEC 4
#define BLOCK 128
#define BLOCKS 32

struct Particle { float x, y, vx, vy, q; int species; };

static uint32_t lcg_state = 8675309u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void deposit(const Particle *p, const float *wt, float *rho, int np) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < np; i += stride) {
    float x = p[i].x, y = p[i].y;
    float q = p[i].q * wt[p[i].species];
    int cx = (int)x, cy = (int)y;
    float fx = x - cx, fy = y - cy;
    int cx1 = (cx + 1) & (G - 1), cy1 = (cy + 1) & (G - 1);
    atomicAdd(&rho[cy * G + cx], q * (1.f - fx) * (1.f - fy));
    atomicAdd(&rho[cy * G + cx1], q * fx * (1.f - fy));
    atomicAdd(&rho[cy1 * G + cx], q * (1.f - fx) * fy);
    atomicAdd(&rho[cy1 * G + cx1], q * fx * fy);
  }
}

__global__ void push(Particle *p, float dt, int np) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= np) return;
  float x = p[i].x + dt * p[i].vx, y = p[i].y + dt * p[i].vy;
  if (x >= (float)G) x -= (float)G;
  if (x < 0.f) x += (float)G;
  if (y >= (float)G) y -= (float)G;
  if (y < 0.f) y += (float)G;
  p[i].x = x; p[i].y = y;
}

int main() {
  Particle *h = (Particle *)malloc(sizeof(Particle) * NP);
  for (int i = 0; i < NP; i++) {
    if (i < NP / 2) {  // sorted by cell
      int cell = (int)((long long)i * G * G / (NP / 2));
      h[i].x = (float)(cell % G) + (float)(lcg() % 256) / 256.0f;
      h[i].y = (float)(cell / G) + (float)(lcg() % 256) / 256.0f;
    } else {
      h[i].x = (float)(lcg() % (G * 256)) / 256.0f;
      h[i].y = (float)(lcg() % (G * 256)) / 256.0f;
    }
    h[i].vx = (float)((int)(lcg() % 257) - 128) / 64.0f;
    h[i].vy = (float)((int)(lcg() % 257) - 128) / 64.0f;
    h[i].q = (float)(1 + lcg() % 4) / 4.0f;
    h[i].species = (int)(lcg() % NSPEC);
  }
  float wt[NSPEC] = {1.0f, -1.0f, 0.5f, 2.0f};
  Particle *dp; float *dwt, *drho;
  cudaMalloc(&dp, sizeof(Particle) * NP);
  cudaMalloc(&dwt, sizeof(wt));
  cudaMalloc(&drho, sizeof(float) * G * G);
  cudaMemcpy(dp, h, sizeof(Particle) * NP, cudaMemcpyHostToDevice);
  cudaMemcpy(dwt, wt, sizeof(wt), cudaMemcpyHostToDevice);
  cudaMemset(drho, 0, sizeof(float) * G * G);
  deposit<<<BLOCKS, BLOCK>>>(dp, dwt, drho, NP);
  push<<<(NP + BLOCK - 1) / BLOCK, BLOCK>>>(dp, 0.25f, NP);
  deposit<<<BLOCKS, BLOCK>>>(dp, dwt, drho, NP);
  float *rho = (float *)malloc(sizeof(float) * G * G);
  Particle *hp = (Particle *)malloc(sizeof(Particle) * NP);
  cudaMemcpy(rho, drho, sizeof(float) * G * G, cudaMemcpyDeviceToHost);
  cudaMemcpy(hp, dp, sizeof(Particle) * NP, cudaMemcpyDeviceToHost);
  // Float atomics sum in any order: checksum over values rounded to 1/64 and the pushed positions.
  double total = 0, ref_total = 0; uint32_t check = 0; int bad = 0;
  for (int c = 0; c < G * G; c++) { total += rho[c]; check = check * 31u + (uint32_t)(long long)(rho[c] * 64.0f + 0.5f * (rho[c] >= 0 ? 1 : -1)); }
  for (int i = 0; i < NP; i++) {
    float x = h[i].x + 0.25f * h[i].vx, y = h[i].y + 0.25f * h[i].vy;
    if (x >= (float)G) x -= (float)G; if (x < 0.f) x += (float)G;
    if (y >= (float)G) y -= (float)G; if (y < 0.f) y += (float)G;
    if (x != hp[i].x || y != hp[i].y) bad++;
    ref_total += 2.0 * h[i].q * wt[h[i].species];
  }
  if (total - ref_total > 1e-2 || ref_total - total > 1e-2) bad++;
  printf("RESULT pic_deposit np=%d grid=%dx%d species=%d\n", NP, G, G, NSPEC);
  printf("RESULT checksum=%08x total_charge=%.3f host_mismatches=%d\n", check, total, bad);
  cudaFree(dp); cudaFree(dwt); cudaFree(drho); free(h); free(hp); free(rho);
  return bad ? 1 : 0;
}
