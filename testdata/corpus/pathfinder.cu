// Dynamic programming over a grid of weights, row by row: each cell's cost
// is its weight plus the minimum of the three cells above it.  A block keeps
// the current row in shared memory and advances PYRAMID rows per launch,
// shrinking its valid range by one column per row (ghost zones).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BLOCK_SIZE 256
#define HALO 1
#define PYRAMID 20

__global__ void dynproc(int iteration, const int *gpu_wall, const int *gpu_src, int *gpu_results,
                        int cols, int start_step, int border) {
  __shared__ int prev[BLOCK_SIZE];
  __shared__ int result[BLOCK_SIZE];
  int bx = blockIdx.x, tx = threadIdx.x;
  int small_block_cols = BLOCK_SIZE - iteration * HALO * 2;
  int blkX = small_block_cols * bx - border;
  int blkXmax = blkX + BLOCK_SIZE - 1;
  int xidx = blkX + tx;
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - cols + 1) : BLOCK_SIZE - 1;
  int W = max(tx - 1, validXmin);
  int E = min(tx + 1, validXmax);
  bool is_valid = tx >= validXmin && tx <= validXmax;

  if (xidx >= 0 && xidx <= cols - 1)
    prev[tx] = gpu_src[xidx];
  __syncthreads();

  bool computed = false;
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (tx >= i + 1 && tx <= BLOCK_SIZE - i - 2 && is_valid) {
      computed = true;
      int shortest = min(prev[W], min(prev[tx], prev[E]));
      result[tx] = shortest + gpu_wall[cols * (start_step + i) + xidx];
    }
    __syncthreads();
    if (i == iteration - 1)
      break;
    if (computed)
      prev[tx] = result[tx];
    __syncthreads();
  }
  if (computed)
    gpu_results[xidx] = result[tx];
}

int main(int argc, char **argv) {
  int cols = argc > 1 ? atoi(argv[1]) : 100000;
  int rows = argc > 2 ? atoi(argv[2]) : 100;
  int border = PYRAMID * HALO;
  int small_block_col = BLOCK_SIZE - PYRAMID * HALO * 2;
  int block_cols = cols / small_block_col + ((cols % small_block_col == 0) ? 0 : 1);

  int *d_wall, *d_result[2];
  cudaMalloc((void **)&d_wall, (size_t)rows * cols * sizeof(int));
  cudaMalloc((void **)&d_result[0], cols * sizeof(int));
  cudaMalloc((void **)&d_result[1], cols * sizeof(int));
  cudaMemset(d_wall, 0, (size_t)rows * cols * sizeof(int));
  cudaMemset(d_result[0], 0, cols * sizeof(int));

  dim3 dimBlock(BLOCK_SIZE);
  dim3 dimGrid(block_cols);
  int src = 1, dst = 0;
  for (int t = 0; t < rows - 1; t += PYRAMID) {
    int tmp = src;
    src = dst;
    dst = tmp;
    int steps = (rows - t - 1 < PYRAMID) ? rows - t - 1 : PYRAMID;
    dynproc<<<dimGrid, dimBlock>>>(steps, d_wall + cols, d_result[src], d_result[dst], cols, t,
                                   border);
  }
  int last;
  cudaMemcpy(&last, d_result[dst], sizeof(int), cudaMemcpyDeviceToHost);
  printf("pathfinder: first column cost %d\n", last);
  cudaFree(d_wall);
  cudaFree(d_result[0]);
  cudaFree(d_result[1]);
  return 0;
}
