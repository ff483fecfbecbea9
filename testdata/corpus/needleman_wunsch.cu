// Needleman-Wunsch global alignment.  The score matrix is processed in
// 16x16 tiles along anti-diagonals of tiles; inside a tile, 16 threads sweep
// the anti-diagonals of a shared-memory copy of the tile and its borders.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BLOCK_SIZE 16

__device__ __forceinline__ int max3(int a, int b, int c) { return max(a, max(b, c)); }

// diag: index of the tile anti-diagonal; blocks_before: first tile column on it.
__global__ void nw_tile_diagonal(const int *reference, int *score, int cols, int penalty,
                                 int diag, int first_bx) {
  int bx = first_bx + blockIdx.x;
  int by = diag - bx;
  int tx = threadIdx.x;
  __shared__ int temp[BLOCK_SIZE + 1][BLOCK_SIZE + 1];
  __shared__ int ref[BLOCK_SIZE][BLOCK_SIZE];

  int base = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx;   // top-left (north-west) cell
  int index = base + cols + 1 + tx;                      // first row of the tile
  for (int ty = 0; ty < BLOCK_SIZE; ty++)
    ref[ty][tx] = reference[index + cols * ty];
  if (tx == 0)
    temp[0][0] = score[base];
  temp[tx + 1][0] = score[base + cols * (tx + 1)];
  temp[0][tx + 1] = score[base + tx + 1];
  __syncthreads();

  for (int m = 0; m < BLOCK_SIZE; m++) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      temp[y][x] = max3(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                        temp[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int m = BLOCK_SIZE - 2; m >= 0; m--) {
    if (tx <= m) {
      int x = tx + BLOCK_SIZE - m, y = BLOCK_SIZE - tx;
      temp[y][x] = max3(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                        temp[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int ty = 0; ty < BLOCK_SIZE; ty++)
    score[index + cols * ty] = temp[ty + 1][tx + 1];
}

int main(int argc, char **argv) {
  int max_len = argc > 1 ? atoi(argv[1]) : 2048;   // multiple of 16
  int penalty = argc > 2 ? atoi(argv[2]) : 10;
  int cols = max_len + 1, rows = max_len + 1;
  size_t bytes = (size_t)rows * cols * sizeof(int);
  int *h_score = (int *)calloc((size_t)rows * cols, sizeof(int));
  for (int i = 0; i < rows; i++) h_score[i * cols] = -i * penalty;
  for (int j = 0; j < cols; j++) h_score[j] = -j * penalty;

  int *d_ref, *d_score;
  cudaMalloc((void **)&d_ref, bytes);
  cudaMalloc((void **)&d_score, bytes);
  cudaMemset(d_ref, 0, bytes);
  cudaMemcpy(d_score, h_score, bytes, cudaMemcpyHostToDevice);

  int tiles = max_len / BLOCK_SIZE;
  dim3 threads(BLOCK_SIZE, 1);
  for (int d = 0; d < 2 * tiles - 1; d++) {
    int first = d < tiles ? 0 : d - tiles + 1;
    int last = d < tiles ? d : tiles - 1;
    dim3 grid(last - first + 1, 1);
    nw_tile_diagonal<<<grid, threads>>>(d_ref, d_score, cols, penalty, d, first);
  }
  cudaMemcpy(h_score, d_score, bytes, cudaMemcpyDeviceToHost);
  printf("alignment score %d\n", h_score[(size_t)rows * cols - 1]);
  cudaFree(d_ref);
  cudaFree(d_score);
  free(h_score);
  return 0;
}
