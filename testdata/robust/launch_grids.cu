// Host launches that pass different grids (facts/kernels.rs launch_grids,
// analysis/launch.rs LaunchVariant::grid): `strips` is launched on a 15x8
// grid, then on a 1x4 one. The driver used to take no grid where launches
// disagree, and the model then placed an SM's blocks as a 1-D grid (ids 0,
// 15, 30, ... with blockIdx.y = 0): every resident block read the same
// rows, and a load read once by each block looked shared. On GPGPU-Sim's
// GTX480 the held-out gemm_tiled (testdata/holdout3), launched on 9x13 and
// 4x4 grids, so cached its A tile (720 of 868 hits "from other blocks")
// and took 1.006x the cycles and 1.084x the bytes of bypassing it. Now the
// first launch's grid is the kernel's, with its arguments, and each other
// launch is a scenario with its own grid.
// tests/robust_decisions.rs checks the figures on the GTX480 description.
#include <cuda_runtime.h>

#define COLS 32
#define ROWS 4

// Each block row of the grid reads its strip of ROWS rows of `a` (one
// 128-byte line a warp), once: blocks of one blockIdx.y share the strip.
__global__ void strips(const float *a, float *out) {
  int r = blockIdx.y * ROWS + threadIdx.y;
  float v = a[r * COLS + threadIdx.x];
  out[(r * gridDim.x + blockIdx.x) * COLS + threadIdx.x] = 2.0f * v;
}

// Launched twice on a grid the host computes (argc), with s = 1 and 3: the
// user's --grid-dim is the grid of both launches, the second one's walk
// included (an adversarial review found it walked with no grid).
__global__ void spread(const float *a, float *out, int s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[(i * s) % (gridDim.x * blockDim.x)];
}

// Two launches at one line (a macro) with different grids: which is first
// is not known, so no grid is taken, and the driver says so.
__global__ void flat(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i];
}
#define BOTH(k) k<<<2, 128>>>(a, out); k<<<4, 128>>>(a, out)

int main(int argc, char **) {
  float *a, *out;
  cudaMalloc(&a, sizeof(float) * 8 * ROWS * COLS);
  cudaMalloc(&out, sizeof(float) * 15 * 8 * ROWS * COLS);
  strips<<<dim3(15, 8), dim3(COLS, ROWS)>>>(a, out);
  strips<<<dim3(1, 4), dim3(COLS, ROWS)>>>(a, out);
  spread<<<argc * 15, 128>>>(a, out, 1);
  spread<<<argc * 15, 128>>>(a, out, 3);
  BOTH(flat);
  cudaDeviceSynchronize();
  cudaFree(a);
  cudaFree(out);
  return 0;
}
