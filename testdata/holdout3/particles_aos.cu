// sim-data: gpucc-cache "$PROGRAM" -o gen && ./gen --dump-kernel-data "$WORK"
// sim-data-flags: --kernel-data=p=$WORK/p.f32 --kernel-data=cell_start=$WORK/cell_start.i32
// particles_aos: one short-range force step for 2048 particles stored as an array of 28-byte
// structs {x, y, z, vx, vy, vz, mass} (array of structs), binned in a 16 x 16 grid of unit cells
// in x/y and sorted by cell on the host (cell_start[] table, 257 ints). Kernel 1 (thread per
// particle, 128 threads) reads its own x/y/z, walks the 3x3 neighbouring cells (cell_start[c],
// cell_start[c + 1] runtime loop bounds), reads x/y/z of every candidate (stride-28 loads of
// three fields from the same struct, candidates contiguous in memory and shared by the threads
// of the same and neighbouring cells) and, inside the cutoff, its mass; softened 1/r^2 forces
// with sqrtf; writes one float4 {ax, ay, az, potential} per particle. Kernel 2 (integrate) reads
// all seven fields of its own struct and its float4, writes the new struct to a second AoS array
// and the kinetic energy to a plain float array (structure-of-arrays style output). Half of the
// particles are uniform, half in 4 clusters, so cell occupancy (and warp work) varies a lot.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cuda_runtime.h>
#include "../sim/kernel_data_dump.h"

#define NP 2048
#define NCX 16
#define NCY 16
#define BLOCK 128

struct Particle {
  float x, y, z;
  float vx, vy, vz;
  float mass;
};

static uint32_t lcg_state = 5550123u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float urand() { return (float)(lcg() >> 8) * (1.0f / 16777216.0f); }

__global__ void compute_forces(const Particle *p, const int *cell_start, float4 *acc, int n,
                               int ncx, int ncy, float cutoff2, float soft) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = p[i].x, yi = p[i].y, zi = p[i].z;
  int cx = min(max((int)xi, 0), ncx - 1);
  int cy = min(max((int)yi, 0), ncy - 1);
  float ax = 0.0f, ay = 0.0f, az = 0.0f, pot = 0.0f;
  for (int ny = max(cy - 1, 0); ny <= min(cy + 1, ncy - 1); ny++) {
    for (int nx = max(cx - 1, 0); nx <= min(cx + 1, ncx - 1); nx++) {
      int c = ny * ncx + nx;
      int s = cell_start[c], e = cell_start[c + 1];
      for (int j = s; j < e; j++) {
        if (j == i) continue;
        float dx = p[j].x - xi, dy = p[j].y - yi, dz = p[j].z - zi;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cutoff2) {
          float inv = 1.0f / sqrtf(r2 + soft);
          float mj = p[j].mass;
          float f = mj * inv * inv * inv;
          ax += f * dx; ay += f * dy; az += f * dz;
          pot -= mj * inv;
        }
      }
    }
  }
  acc[i] = make_float4(ax, ay, az, pot);
}

__global__ void integrate(const Particle *p, const float4 *acc, Particle *pout, float *ke, int n,
                          float dt, float damping, float xmax, float ymax) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle q = p[i];
  float4 a = acc[i];
  float vx = (q.vx + a.x * dt) * damping;
  float vy = (q.vy + a.y * dt) * damping;
  float vz = (q.vz + a.z * dt) * damping;
  q.x = fminf(fmaxf(q.x + vx * dt, 0.0f), xmax);
  q.y = fminf(fmaxf(q.y + vy * dt, 0.0f), ymax);
  q.z = q.z + vz * dt;
  q.vx = vx; q.vy = vy; q.vz = vz;
  pout[i] = q;
  ke[i] = 0.5f * q.mass * (vx * vx + vy * vy + vz * vz);
}

int main(int argc, char **argv) {
  const int n = NP, ncx = NCX, ncy = NCY, ncells = NCX * NCY;
  const float cutoff2 = 1.0f, soft = 0.05f, dt = 0.002f, damping = 0.999f;
  const float xmax = (float)NCX - 0.001f, ymax = (float)NCY - 0.001f;
  Particle *raw = (Particle *)malloc(sizeof(Particle) * n);
  float ccx[4], ccy[4];
  for (int k = 0; k < 4; k++) { ccx[k] = 2.0f + 12.0f * urand(); ccy[k] = 2.0f + 12.0f * urand(); }
  for (int i = 0; i < n; i++) {
    Particle q;
    if (i % 2 == 0) {
      q.x = (float)NCX * urand(); q.y = (float)NCY * urand();
    } else {
      int k = (int)((lcg() >> 8) % 4);
      q.x = ccx[k] + 3.0f * (urand() + urand() + urand() - 1.5f);
      q.y = ccy[k] + 3.0f * (urand() + urand() + urand() - 1.5f);
    }
    q.x = fminf(fmaxf(q.x, 0.0f), xmax);
    q.y = fminf(fmaxf(q.y, 0.0f), ymax);
    q.z = urand();
    q.vx = urand() - 0.5f; q.vy = urand() - 0.5f; q.vz = 0.1f * (urand() - 0.5f);
    q.mass = 0.5f + urand();
    raw[i] = q;
  }
  // counting sort by cell
  int *count = (int *)calloc(ncells + 1, sizeof(int)), *cell_start = (int *)malloc(sizeof(int) * (ncells + 1));
  int *cell_of = (int *)malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    int cx = (int)raw[i].x, cy = (int)raw[i].y;
    if (cx > ncx - 1) cx = ncx - 1;
    if (cy > ncy - 1) cy = ncy - 1;
    cell_of[i] = cy * ncx + cx;
    count[cell_of[i]]++;
  }
  cell_start[0] = 0;
  for (int c = 0; c < ncells; c++) cell_start[c + 1] = cell_start[c] + count[c];
  Particle *hp = (Particle *)malloc(sizeof(Particle) * n);
  for (int c = 0; c < ncells; c++) count[c] = cell_start[c];
  for (int i = 0; i < n; i++) hp[count[cell_of[i]]++] = raw[i];
  int maxocc = 0;
  for (int c = 0; c < ncells; c++)
    if (cell_start[c + 1] - cell_start[c] > maxocc) maxocc = cell_start[c + 1] - cell_start[c];

  // --dump-kernel-data DIR: write what the kernels' addresses depend on (the sorted particles, whose
  // coordinates pick the cells, and the cell table), for the driver's --kernel-data
  // (bench/sim/run --with-data), and stop before any CUDA call.
  if (dump_kernel_data_asked(argc, argv)) {
    dump(argv[2], "p.f32", hp, sizeof(Particle) * n);
    dump(argv[2], "cell_start.i32", cell_start, sizeof(int) * (ncells + 1));
    return 0;
  }
  Particle *dp, *dpout;
  float4 *dacc;
  float *dke;
  int *dcell;
  cudaMalloc(&dp, sizeof(Particle) * n);
  cudaMalloc(&dpout, sizeof(Particle) * n);
  cudaMalloc(&dacc, sizeof(float4) * n);
  cudaMalloc(&dke, sizeof(float) * n);
  cudaMalloc(&dcell, sizeof(int) * (ncells + 1));
  cudaMemcpy(dp, hp, sizeof(Particle) * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dcell, cell_start, sizeof(int) * (ncells + 1), cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  compute_forces<<<blocks, BLOCK>>>(dp, dcell, dacc, n, ncx, ncy, cutoff2, soft);
  integrate<<<blocks, BLOCK>>>(dp, dacc, dpout, dke, n, dt, damping, xmax, ymax);
  cudaDeviceSynchronize();
  float4 *oacc = (float4 *)malloc(sizeof(float4) * n);
  Particle *op = (Particle *)malloc(sizeof(Particle) * n);
  float *oke = (float *)malloc(sizeof(float) * n);
  cudaMemcpy(oacc, dacc, sizeof(float4) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(op, dpout, sizeof(Particle) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(oke, dke, sizeof(float) * n, cudaMemcpyDeviceToHost);

  // host reference in double; the device result is compared with a relative tolerance
  int bad = 0; long long pairs = 0, cands = 0;
  for (int i = 0; i < n; i++) {
    int cx = (int)hp[i].x, cy = (int)hp[i].y;
    if (cx > ncx - 1) cx = ncx - 1;
    if (cy > ncy - 1) cy = ncy - 1;
    double ax = 0, ay = 0, az = 0, pot = 0, mag = 0, pmag = 0;
    for (int ny = cy - 1; ny <= cy + 1; ny++)
      for (int nx = cx - 1; nx <= cx + 1; nx++) {
        if (nx < 0 || ny < 0 || nx >= ncx || ny >= ncy) continue;
        int c = ny * ncx + nx;
        for (int j = cell_start[c]; j < cell_start[c + 1]; j++) {
          if (j == i) continue;
          cands++;
          double dx = (double)hp[j].x - hp[i].x, dy = (double)hp[j].y - hp[i].y,
                 dz = (double)hp[j].z - hp[i].z;
          double r2 = dx * dx + dy * dy + dz * dz;
          if (r2 < cutoff2) {
            double inv = 1.0 / sqrt(r2 + soft), f = hp[j].mass * inv * inv * inv;
            ax += f * dx; ay += f * dy; az += f * dz; pot -= hp[j].mass * inv;
            mag += f; pmag += hp[j].mass * inv;
            pairs++;
          }
        }
      }
    double tol = 1e-4 * (1.0 + mag), ptol = 1e-4 * (1.0 + pmag);
    if (fabs(oacc[i].x - ax) > tol || fabs(oacc[i].y - ay) > tol || fabs(oacc[i].z - az) > tol ||
        fabs(oacc[i].w - pot) > ptol)
      bad++;
    // integrate from the device forces, so that only this step's rounding is compared
    double vx = (hp[i].vx + (double)oacc[i].x * dt) * damping;
    double vy = (hp[i].vy + (double)oacc[i].y * dt) * damping;
    double vz = (hp[i].vz + (double)oacc[i].z * dt) * damping;
    double x = hp[i].x + vx * dt, y = hp[i].y + vy * dt, z = hp[i].z + vz * dt;
    x = x < 0 ? 0 : (x > xmax ? xmax : x);
    y = y < 0 ? 0 : (y > ymax ? ymax : y);
    double ke = 0.5 * hp[i].mass * (vx * vx + vy * vy + vz * vz);
    double vt = 1e-5 * (1.0 + fabs(vx) + fabs(vy) + fabs(vz));
    if (fabs(op[i].vx - vx) > vt || fabs(op[i].vy - vy) > vt || fabs(op[i].vz - vz) > vt ||
        fabs(op[i].x - x) > 1e-5 * (1.0 + fabs(x)) || fabs(op[i].y - y) > 1e-5 * (1.0 + fabs(y)) ||
        fabs(op[i].z - z) > 1e-5 * (1.0 + fabs(z)) || op[i].mass != hp[i].mass ||
        fabs(oke[i] - ke) > 1e-4 * (1.0 + ke))
      bad++;
  }
  uint32_t check = 0; double esum = 0, psum = 0;
  for (int i = 0; i < n; i++) {
    const float *f = &oacc[i].x;
    for (int k = 0; k < 4; k++) { uint32_t b; memcpy(&b, &f[k], 4); check = check * 31u + b; }
    const float *g = &op[i].x;
    for (int k = 0; k < 7; k++) { uint32_t b; memcpy(&b, &g[k], 4); check = check * 31u + b; }
    uint32_t b; memcpy(&b, &oke[i], 4); check = check * 31u + b;
    esum += oke[i]; psum += oacc[i].w;
  }
  printf("RESULT particles_aos n=%d cells=%dx%d max_cell=%d candidates=%lld pairs=%lld grid=%dx%d launches=2\n", n, ncx,
         ncy, maxocc, cands, pairs, blocks, BLOCK);
  printf("RESULT checksum=%08x kinetic=%.4f potential=%.3f host_mismatches=%d\n", check, esum,
         psum, bad);
  cudaFree(dp); cudaFree(dpout); cudaFree(dacc); cudaFree(dke); cudaFree(dcell);
  free(raw); free(count); free(cell_start); free(cell_of); free(hp); free(oacc); free(op); free(oke);
  return bad ? 1 : 0;
}
