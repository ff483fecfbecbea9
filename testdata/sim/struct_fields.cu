// struct_fields: an array of 32-byte particle structs; each thread loads several fields of its own
// element (position, velocity, mass, charge: loads of the same 32-byte sector/128-byte line), then
// writes the advanced particle to a second array. Two steps, ping-pong buffers.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

#define N_PARTICLES 16384
#define BLOCK 128
#define STEPS 2

struct Particle {
  float x, y, z;     // position
  float vx, vy, vz;  // velocity
  float mass;
  float charge;
};

static uint32_t lcg_state = 12345u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float lcg_unit() { return (float)(lcg() >> 8) * (1.0f / 16777216.0f); }

__global__ void advance(const Particle *in, Particle *out, float *energy, int n, float dt,
                        float ex, float ey, float ez) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float m = in[i].mass;
  float q = in[i].charge;
  float inv_m = 1.0f / m;
  float vx = in[i].vx + dt * q * ex * inv_m;
  float vy = in[i].vy + dt * q * ey * inv_m;
  float vz = in[i].vz + dt * q * ez * inv_m;
  // Soft wall: damp particles leaving the unit cube.
  float px = in[i].x + dt * vx, py = in[i].y + dt * vy, pz = in[i].z + dt * vz;
  if (px < 0.0f || px > 1.0f) vx = -0.5f * vx;
  if (py < 0.0f || py > 1.0f) vy = -0.5f * vy;
  if (pz < 0.0f || pz > 1.0f) vz = -0.5f * vz;
  Particle p;
  p.x = px; p.y = py; p.z = pz;
  p.vx = vx; p.vy = vy; p.vz = vz;
  p.mass = m; p.charge = q;
  out[i] = p;
  energy[i] = 0.5f * m * (vx * vx + vy * vy + vz * vz);
}

int main() {
  const int n = N_PARTICLES;
  Particle *h = (Particle *)malloc(n * sizeof(Particle));
  for (int i = 0; i < n; i++) {
    h[i].x = lcg_unit(); h[i].y = lcg_unit(); h[i].z = lcg_unit();
    h[i].vx = lcg_unit() - 0.5f; h[i].vy = lcg_unit() - 0.5f; h[i].vz = lcg_unit() - 0.5f;
    h[i].mass = 0.5f + lcg_unit();
    h[i].charge = (lcg() & 1) ? 1.0f : -1.0f;
  }
  Particle *d_a, *d_b;
  float *d_e;
  cudaMalloc(&d_a, n * sizeof(Particle));
  cudaMalloc(&d_b, n * sizeof(Particle));
  cudaMalloc(&d_e, n * sizeof(float));
  cudaMemcpy(d_a, h, n * sizeof(Particle), cudaMemcpyHostToDevice);
  for (int s = 0; s < STEPS; s++) {
    advance<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_a, d_b, d_e, n, 0.01f, 0.3f, -0.2f, 0.1f);
    Particle *t = d_a; d_a = d_b; d_b = t;
  }
  float *e = (float *)malloc(n * sizeof(float));
  cudaMemcpy(h, d_a, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  cudaMemcpy(e, d_e, n * sizeof(float), cudaMemcpyDeviceToHost);
  uint32_t bits = 0;
  double esum = 0.0, xsum = 0.0;
  for (int i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &e[i], 4); bits = bits * 31u + u;
    memcpy(&u, &h[i].x, 4); bits = bits * 31u + u;
    esum += e[i];
    xsum += h[i].x + h[i].y + h[i].z;
  }
  printf("RESULT struct_fields n=%d steps=%d\n", n, STEPS);
  printf("RESULT checksum=%08x energy=%.6f possum=%.6f\n", bits, esum, xsum);
  free(h); free(e);
  cudaFree(d_a); cudaFree(d_b); cudaFree(d_e);
  return 0;
}
