// sorted_cells: a short-range neighbour walk over particles binned in a grid of cells and sorted by
// cell on the host (issue 19 fact 12, the third held-out set's particles_aos in small). Each thread
// takes its own particle, finds its cell from the particle's coordinates (a float converted to an
// int: the cell, and so where the walk starts, is chosen by the data), and walks the particles of
// the 3 x 3 cells around it through cell_start[] (runtime loop bounds), reading x, y and z of each
// candidate (three fields of one 16-byte struct). Threads of one warp hold neighbouring particles,
// which sit in few cells: they walk the same candidates. 1024 particles (16 KB of structs, as much
// as the GTX480 description's L1 holds), 8 x 8 cells, 8 blocks of 128 threads.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#define NP 1024
#define NC 8
#define BLOCK 128

struct P {
  float x, y, z, q;
};

static uint32_t state = 4242u;
static float unit() {
  state = state * 1664525u + 1013904223u;
  return (float)(state >> 8) * (1.0f / 16777216.0f);
}

__global__ void near(const P *p, const int *cell_start, float *out, int n, int nc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = p[i].x, yi = p[i].y, zi = p[i].z;
  int cx = min(max((int)xi, 0), nc - 1);
  int cy = min(max((int)yi, 0), nc - 1);
  float s = 0.0f;
  for (int y = max(cy - 1, 0); y <= min(cy + 1, nc - 1); y++) {
    for (int x = max(cx - 1, 0); x <= min(cx + 1, nc - 1); x++) {
      int c = y * nc + x;
      for (int j = cell_start[c]; j < cell_start[c + 1]; j++) {
        float dx = p[j].x - xi, dy = p[j].y - yi, dz = p[j].z - zi;
        s += 1.0f / (1.0f + dx * dx + dy * dy + dz * dz);
      }
    }
  }
  out[i] = s;
}

int main() {
  const int n = NP, nc = NC, cells = NC * NC;
  P *raw = (P *)malloc(sizeof(P) * n), *sorted = (P *)malloc(sizeof(P) * n);
  int *count = (int *)calloc(cells + 1, sizeof(int));
  int *start = (int *)malloc(sizeof(int) * (cells + 1));
  int *cell = (int *)malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    raw[i].x = nc * unit();
    raw[i].y = nc * unit();
    raw[i].z = unit();
    raw[i].q = 1.0f;
    cell[i] = (int)raw[i].y * nc + (int)raw[i].x;
    count[cell[i]]++;
  }
  start[0] = 0;
  for (int c = 0; c < cells; c++) start[c + 1] = start[c] + count[c];
  for (int c = 0; c < cells; c++) count[c] = start[c];
  for (int i = 0; i < n; i++) sorted[count[cell[i]]++] = raw[i];
  P *dp;
  int *dstart;
  float *dout;
  cudaMalloc(&dp, sizeof(P) * n);
  cudaMalloc(&dstart, sizeof(int) * (cells + 1));
  cudaMalloc(&dout, sizeof(float) * n);
  cudaMemcpy(dp, sorted, sizeof(P) * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dstart, start, sizeof(int) * (cells + 1), cudaMemcpyHostToDevice);
  near<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(dp, dstart, dout, n, nc);
  float *out = (float *)malloc(sizeof(float) * n);
  cudaMemcpy(out, dout, sizeof(float) * n, cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += out[i];
  printf("RESULT sorted_cells n=%d sum=%.3f\n", n, sum);
  return 0;
}
