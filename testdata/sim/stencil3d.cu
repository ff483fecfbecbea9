// stencil3d: 7-point 3-D stencil. 2-D blocks (16x8) cover the x-y plane and each thread marches in
// z through a runtime-bounded loop; the x+-1 loads share the centre load's lines, y+-1 the lines of
// neighbouring rows, and the z+-1 planes are loaded again by the same thread one and two iterations
// later (reuse across loop iterations). Two sweeps, ping-pong buffers.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

#define NX 128
#define NY 64
#define NZ 8
#define BX 16
#define BY 8
#define SWEEPS 2

static uint32_t lcg_state = 777u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void stencil7(const float *in, float *out, int nx, int ny, int nz, float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int plane = nx * ny;
  bool edge = (x == 0 || y == 0 || x == nx - 1 || y == ny - 1);
  for (int z = 0; z < nz; z++) {
    int i = z * plane + y * nx + x;
    if (edge || z == 0 || z == nz - 1) {
      out[i] = in[i];
      continue;
    }
    float s = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - plane] + in[i + plane];
    out[i] = c0 * in[i] + c1 * s;
  }
}

int main() {
  const int nx = NX, ny = NY, nz = NZ, n = NX * NY * NZ;
  float *a = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) a[i] = (float)(lcg() >> 20) * (1.0f / 4096.0f);
  float *d_a, *d_b;
  cudaMalloc(&d_a, n * sizeof(float));
  cudaMalloc(&d_b, n * sizeof(float));
  cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(BX, BY);
  dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
  for (int s = 0; s < SWEEPS; s++) {
    stencil7<<<grid, block>>>(d_a, d_b, nx, ny, nz, 0.4f, 0.1f);
    float *t = d_a; d_a = d_b; d_b = t;
  }
  cudaMemcpy(a, d_a, n * sizeof(float), cudaMemcpyDeviceToHost);
  uint32_t bits = 0;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    uint32_t b; memcpy(&b, &a[i], 4);
    bits = bits * 31u + b;
    sum += a[i];
  }
  printf("RESULT stencil3d %dx%dx%d sweeps=%d grid=%dx%d block=%dx%d\n", nx, ny, nz, SWEEPS, grid.x,
         grid.y, block.x, block.y);
  printf("RESULT checksum=%08x sum=%.6f\n", bits, sum);
  free(a);
  cudaFree(d_a); cudaFree(d_b);
  return 0;
}
