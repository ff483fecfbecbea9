// pic_gather_window: two particle-in-cell steps for 6000 particles stored as an array of 20-byte
// structs {x, y, vx, vy, q}, in random order (NOT sorted by cell). (1) gather_window, one thread
// per particle: reads its own x, y, q (three fields of one struct, stride 20 B), computes its
// cell with a float->int conversion clamped to the 64 x 48 grid with min/max (some particles
// start in a halo just outside the domain, so the clamp matters), and sums the potential field
// (64 x 48 floats = 12 KB) over the clamped 3x3 window
//   for (gy = max(cy-1,0); gy <= min(cy+1,gh-1); gy++) for (gx = max(cx-1,0); ...)
// accumulating the window sum and the x/y differences (a finite-difference field), written as one
// float4 per particle. Particles of a warp are scattered over the grid, so each load of a warp
// touches many lines; a third of them sit in four clusters, so windows overlap a lot. (2) push:
// reads all five fields of its own struct and its float4, updates velocity and position,
// reflects at the walls, writes a second struct array. Two steps ping-pong between the arrays.
// All values are dyadic and every product is exact (field k/64, charge k/16, dt a power of two),
// so the device results are compared bit for bit with the host.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define NPART 6000
#define GW 64
#define GH 48
#define BLOCK 128
#define STEPS 2

struct Particle {
  float x, y;
  float vx, vy;
  float q;
};

static uint32_t lcg_state = 20240917u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float urand() { return (float)(lcg() >> 8) * (1.0f / 16777216.0f); }

__global__ void gather_window(const Particle *p, const float *field, float4 *ef, int n, int gw,
                              int gh, float inv_h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = p[i].x, y = p[i].y, q = p[i].q;
  int cx = min(max((int)(x * inv_h), 0), gw - 1);
  int cy = min(max((int)(y * inv_h), 0), gh - 1);
  float s = 0.0f, sx = 0.0f, sy = 0.0f;
  int cnt = 0;
  for (int gy = max(cy - 1, 0); gy <= min(cy + 1, gh - 1); gy++) {
    for (int gx = max(cx - 1, 0); gx <= min(cx + 1, gw - 1); gx++) {
      float f = field[gy * gw + gx];
      s += f;
      sx += (float)(gx - cx) * f;
      sy += (float)(gy - cy) * f;
      cnt++;
    }
  }
  ef[i] = make_float4(-q * sx, -q * sy, q * s, (float)cnt);
}

__global__ void push(const Particle *p, const float4 *ef, Particle *pout, int n, float dt,
                     float xmax, float ymax) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle a = p[i];
  float4 e = ef[i];
  float vx = a.vx + dt * e.x;
  float vy = a.vy + dt * e.y;
  float x = a.x + dt * vx;
  float y = a.y + dt * vy;
  if (x < 0.0f) { x = -x; vx = -vx; }
  if (x > xmax) { x = 2.0f * xmax - x; vx = -vx; }
  if (y < 0.0f) { y = -y; vy = -vy; }
  if (y > ymax) { y = 2.0f * ymax - y; vy = -vy; }
  Particle b;
  b.x = x; b.y = y; b.vx = vx; b.vy = vy; b.q = a.q;
  pout[i] = b;
}

// host reference: the same float operations in the same order (all products exact)
static void ref_gather(const Particle *p, const float *field, float4 *ef, int n, int gw, int gh,
                       float inv_h) {
  for (int i = 0; i < n; i++) {
    int cx = (int)(p[i].x * inv_h), cy = (int)(p[i].y * inv_h);
    cx = cx < 0 ? 0 : (cx > gw - 1 ? gw - 1 : cx);
    cy = cy < 0 ? 0 : (cy > gh - 1 ? gh - 1 : cy);
    float s = 0.0f, sx = 0.0f, sy = 0.0f;
    int cnt = 0;
    for (int gy = cy - 1; gy <= cy + 1; gy++)
      for (int gx = cx - 1; gx <= cx + 1; gx++) {
        if (gx < 0 || gy < 0 || gx >= gw || gy >= gh) continue;
        float f = field[gy * gw + gx];
        s += f; sx += (float)(gx - cx) * f; sy += (float)(gy - cy) * f; cnt++;
      }
    ef[i].x = -p[i].q * sx; ef[i].y = -p[i].q * sy; ef[i].z = p[i].q * s; ef[i].w = (float)cnt;
  }
}

static void ref_push(const Particle *p, const float4 *ef, Particle *pout, int n, float dt,
                     float xmax, float ymax) {
  for (int i = 0; i < n; i++) {
    float vx = p[i].vx + dt * ef[i].x, vy = p[i].vy + dt * ef[i].y;
    float x = p[i].x + dt * vx, y = p[i].y + dt * vy;
    if (x < 0.0f) { x = -x; vx = -vx; }
    if (x > xmax) { x = 2.0f * xmax - x; vx = -vx; }
    if (y < 0.0f) { y = -y; vy = -vy; }
    if (y > ymax) { y = 2.0f * ymax - y; vy = -vy; }
    pout[i].x = x; pout[i].y = y; pout[i].vx = vx; pout[i].vy = vy; pout[i].q = p[i].q;
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

int main() {
  const int n = NPART, gw = GW, gh = GH;
  const float inv_h = 4.0f, dt = 0.0625f;
  const float xmax = (float)GW / inv_h, ymax = (float)GH / inv_h;  // 16 x 12 domain
  float *field = (float *)malloc(sizeof(float) * gw * gh);
  for (int y = 0; y < gh; y++)
    for (int x = 0; x < gw; x++) {
      // smooth bumps plus noise, k/64 with |k| <= 512
      int k = ((x * 7 + y * 13) % 61) - 30 + (int)((lcg() >> 16) % 65) - 32;
      if ((x / 8 + y / 8) % 3 == 0) k += 200;
      field[y * gw + x] = (float)k / 64.0f;
    }
  Particle *hp = (Particle *)malloc(sizeof(Particle) * n);
  float clx[4], cly[4];
  for (int c = 0; c < 4; c++) { clx[c] = 1.0f + 14.0f * urand(); cly[c] = 1.0f + 10.0f * urand(); }
  for (int i = 0; i < n; i++) {
    Particle a;
    int kind = (int)((lcg() >> 8) % 3);
    if (kind == 0) {
      int c = (int)((lcg() >> 8) % 4);
      a.x = clx[c] + (urand() - 0.5f);
      a.y = cly[c] + (urand() - 0.5f);
    } else {
      // uniform over a box slightly larger than the domain (halo of 0.75 = three cells, so
      // (int)(x * inv_h) can be -2..-1 or 64..66 and both sides of the clamp are needed)
      a.x = -0.75f + (xmax + 1.5f) * urand();
      a.y = -0.75f + (ymax + 1.5f) * urand();
    }
    a.vx = 4.0f * (urand() - 0.5f);
    a.vy = 4.0f * (urand() - 0.5f);
    a.q = (float)(1 + (int)((lcg() >> 8) % 16)) / 16.0f;
    hp[i] = a;
  }

  Particle *dpa, *dpb;
  float *dfield;
  float4 *def[STEPS];
  cudaMalloc(&dpa, sizeof(Particle) * n);
  cudaMalloc(&dpb, sizeof(Particle) * n);
  cudaMalloc(&dfield, sizeof(float) * gw * gh);
  for (int s = 0; s < STEPS; s++) cudaMalloc(&def[s], sizeof(float4) * n);
  cudaMemcpy(dpa, hp, sizeof(Particle) * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dfield, field, sizeof(float) * gw * gh, cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  Particle *cur = dpa, *nxt = dpb;
  for (int s = 0; s < STEPS; s++) {
    gather_window<<<blocks, BLOCK>>>(cur, dfield, def[s], n, gw, gh, inv_h);
    push<<<blocks, BLOCK>>>(cur, def[s], nxt, n, dt, xmax, ymax);
    Particle *t = cur; cur = nxt; nxt = t;
  }
  cudaDeviceSynchronize();
  float4 *oef = (float4 *)malloc(sizeof(float4) * n * STEPS);
  Particle *op = (Particle *)malloc(sizeof(Particle) * n);
  for (int s = 0; s < STEPS; s++)
    cudaMemcpy(oef + s * n, def[s], sizeof(float4) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(op, cur, sizeof(Particle) * n, cudaMemcpyDeviceToHost);

  // host reference
  Particle *ra = (Particle *)malloc(sizeof(Particle) * n), *rb = (Particle *)malloc(sizeof(Particle) * n);
  float4 *ref = (float4 *)malloc(sizeof(float4) * n * STEPS);
  memcpy(ra, hp, sizeof(Particle) * n);
  for (int s = 0; s < STEPS; s++) {
    ref_gather(ra, field, ref + s * n, n, gw, gh, inv_h);
    ref_push(ra, ref + s * n, rb, n, dt, xmax, ymax);
    Particle *t = ra; ra = rb; rb = t;
  }
  int bad = 0, clamped = 0, edge = 0;
  for (int i = 0; i < n * STEPS; i++)
    if (memcmp(&oef[i], &ref[i], sizeof(float4)) != 0) bad++;
  for (int i = 0; i < n; i++)
    if (memcmp(&op[i], &ra[i], sizeof(Particle)) != 0) bad++;
  for (int i = 0; i < n; i++) {
    if (hp[i].x < 0.0f || hp[i].y < 0.0f || hp[i].x >= xmax || hp[i].y >= ymax) clamped++;
    if (ref[i].w < 9.0f) edge++;
  }
  uint32_t check = hash_floats(0u, &oef[0].x, 4 * n * STEPS);
  check = hash_floats(check, &op[0].x, 5 * n);
  double esum = 0.0, xsum = 0.0;
  for (int i = 0; i < n * STEPS; i++) esum += oef[i].z;
  for (int i = 0; i < n; i++) xsum += op[i].x + op[i].y;
  printf("RESULT pic_gather_window n=%d grid=%dx%d steps=%d halo_particles=%d edge_windows=%d launch=%dx%d\n",
         n, gw, gh, STEPS, clamped, edge, blocks, BLOCK);
  printf("RESULT checksum=%08x pot_sum=%.4f pos_sum=%.4f host_mismatches=%d\n", check, esum, xsum, bad);
  cudaFree(dpa); cudaFree(dpb); cudaFree(dfield);
  for (int s = 0; s < STEPS; s++) cudaFree(def[s]);
  free(field); free(hp); free(oef); free(op); free(ra); free(rb); free(ref);
  return bad ? 1 : 0;
}
