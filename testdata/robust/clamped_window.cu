// clamped_window: the gather step of a particle-in-cell code. Each thread takes one particle,
// finds the grid cell its position falls in (a float converted to an int, clamped to the grid:
// the cell is chosen by the data), and sums the field over the 3 x 3 cells around it, the
// window clamped at the grid's edges:
//   for (gy = max(cy - 1, 0); gy <= min(cy + 1, G - 1); gy++)
//     for (gx = max(cx - 1, 0); gx <= min(cx + 1, G - 1); gx++)
// Whatever cx and cy are, each loop runs at most 3 times (end - start <= (c + 1) - (c - 1)).
// clang unrolls the inner loop by 8 behind a remainder loop of (trips & 7) iterations; the
// unrolled body runs only when a window is 8 or more cells wide, which the clamps rule out.
// 1024 particles, 8 blocks of 128 threads, a 64 x 64 grid of floats (16 KB).
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#define NP 1024
#define G 64
#define BLOCK 128

struct Particle {
  float x, y;    // position in cell units
  float vx, vy;  // velocity
};

static uint32_t state = 777u;
static float unit() {
  state = state * 1664525u + 1013904223u;
  return (float)(state >> 8) * (1.0f / 16777216.0f);
}

__global__ void gather(const Particle *p, const float *field, float *out, int n, int g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int cx = min(max((int)p[i].x, 0), g - 1);
  int cy = min(max((int)p[i].y, 0), g - 1);
  float s = 0.0f;
  for (int gy = max(cy - 1, 0); gy <= min(cy + 1, g - 1); gy++)
    for (int gx = max(cx - 1, 0); gx <= min(cx + 1, g - 1); gx++) s += field[gy * g + gx];
  out[i] = s;
}

// The same walk with the grid's edges constants (G - 1 = 63), as most codes write it. clang
// then proves the clamped cell non-negative and writes the clamps unsigned: c = umin(max(x, 0),
// 63), the start umax(c, 1) - 1, the end umin(max(x, 0), 62) + 1, whose leaves differ. Read
// case by case (c is max(x, 0) or 63), each loop still runs at most 3 times, and the window is
// never empty.
__global__ void gather_fixed(const Particle *p, const float *field, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int cx = min(max((int)p[i].x, 0), G - 1);
  int cy = min(max((int)p[i].y, 0), G - 1);
  float s = 0.0f;
  for (int gy = max(cy - 1, 0); gy <= min(cy + 1, G - 1); gy++)
    for (int gx = max(cx - 1, 0); gx <= min(cx + 1, G - 1); gx++) s += field[gy * G + gx];
  out[i] = s;
}

int main() {
  Particle *h = (Particle *)malloc(NP * sizeof(Particle));
  for (int i = 0; i < NP; i++) {
    h[i].x = G * unit();
    h[i].y = G * unit();
    h[i].vx = unit() - 0.5f;
    h[i].vy = unit() - 0.5f;
  }
  float *hf = (float *)malloc(G * G * sizeof(float));
  for (int c = 0; c < G * G; c++) hf[c] = unit();
  Particle *dp;
  float *df, *dout;
  cudaMalloc(&dp, NP * sizeof(Particle));
  cudaMalloc(&df, G * G * sizeof(float));
  cudaMalloc(&dout, NP * sizeof(float));
  cudaMemcpy(dp, h, NP * sizeof(Particle), cudaMemcpyHostToDevice);
  cudaMemcpy(df, hf, G * G * sizeof(float), cudaMemcpyHostToDevice);
  gather<<<NP / BLOCK, BLOCK>>>(dp, df, dout, NP, G);
  gather_fixed<<<NP / BLOCK, BLOCK>>>(dp, df, dout, NP);
  float *ho = (float *)malloc(NP * sizeof(float));
  cudaMemcpy(ho, dout, NP * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0.0;
  for (int i = 0; i < NP; i++) sum += ho[i];
  printf("gather: sum %.4f\n", sum);
  return 0;
}
