// Rodinia-style thermal simulation step.  16x16 blocks load overlapping
// tiles of the temperature and power grids into shared memory; each block
// updates only its inner 14x14 cells, so neighbouring tiles overlap by one.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BLOCK_SIZE 16
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

__global__ void calc_temp(const float *power, const float *temp_src, float *temp_dst,
                          int grid_cols, int grid_rows, float Cap, float Rx, float Ry,
                          float Rz, float step, float amb_temp) {
  __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
  const int small_block = BLOCK_SIZE - 2;
  int tx = threadIdx.x, ty = threadIdx.y;
  int blkX = small_block * blockIdx.x - 1;
  int blkY = small_block * blockIdx.y - 1;
  int xidx = blkX + tx;
  int yidx = blkY + ty;
  int index = grid_cols * yidx + xidx;

  if (IN_RANGE(yidx, 0, grid_rows - 1) && IN_RANGE(xidx, 0, grid_cols - 1)) {
    temp_on_cuda[ty][tx] = temp_src[index];
    power_on_cuda[ty][tx] = power[index];
  }
  __syncthreads();

  // valid part of the tile (clipped at the grid border)
  int validYmin = (blkY < 0) ? -blkY : 0;
  int validYmax = (blkY + BLOCK_SIZE - 1 > grid_rows - 1) ? BLOCK_SIZE - 1 - (blkY + BLOCK_SIZE - grid_rows) : BLOCK_SIZE - 1;
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkX + BLOCK_SIZE - 1 > grid_cols - 1) ? BLOCK_SIZE - 1 - (blkX + BLOCK_SIZE - grid_cols) : BLOCK_SIZE - 1;
  int N = max(ty - 1, validYmin), S = min(ty + 1, validYmax);
  int W = max(tx - 1, validXmin), E = min(tx + 1, validXmax);

  if (IN_RANGE(tx, 1, BLOCK_SIZE - 2) && IN_RANGE(ty, 1, BLOCK_SIZE - 2) &&
      IN_RANGE(tx, validXmin, validXmax) && IN_RANGE(ty, validYmin, validYmax)) {
    float t = temp_on_cuda[ty][tx];
    float delta = (step / Cap) * (power_on_cuda[ty][tx] +
                                  (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0f * t) / Ry +
                                  (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0f * t) / Rx +
                                  (amb_temp - t) / Rz);
    temp_dst[index] = t + delta;
  }
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 1024;
  int cols = argc > 2 ? atoi(argv[2]) : 1024;
  int iters = argc > 3 ? atoi(argv[3]) : 60;
  size_t bytes = (size_t)rows * cols * sizeof(float);
  float *d_power, *d_temp[2];
  cudaMalloc((void **)&d_power, bytes);
  cudaMalloc((void **)&d_temp[0], bytes);
  cudaMalloc((void **)&d_temp[1], bytes);
  cudaMemset(d_power, 0, bytes);
  cudaMemset(d_temp[0], 0, bytes);
  cudaMemset(d_temp[1], 0, bytes);

  const int small_block = BLOCK_SIZE - 2;
  dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
  dim3 dimGrid((cols + small_block - 1) / small_block, (rows + small_block - 1) / small_block);
  float chip = 0.016f, cap = 0.5f * 1.75e6f * 0.0005f * chip * chip / (rows * cols);
  int src = 0;
  for (int t = 0; t < iters; t++) {
    calc_temp<<<dimGrid, dimBlock>>>(d_power, d_temp[src], d_temp[1 - src], cols, rows, cap,
                                     1.0f, 1.0f, 4.0f, 1e-3f, 80.0f);
    src = 1 - src;
  }
  cudaDeviceSynchronize();
  printf("hotspot: %d iterations\n", iters);
  cudaFree(d_power);
  cudaFree(d_temp[0]);
  cudaFree(d_temp[1]);
  return 0;
}
