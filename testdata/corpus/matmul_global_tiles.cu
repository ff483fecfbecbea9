// Naive matrix multiply with 16x16 thread blocks that reads A and B straight
// from global memory: C[row][col] = sum_k A[row][k] * B[k][col].  Within a
// block, the 16 threads of a row share A[row][k] and the 16 rows of a column
// share B[k][col], so every element is reused through the cache.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

// Same with restrict pointers, 64-bit indexing and an accumulate-into-C
// epilogue (C = alpha * A * B + beta * C).
__global__ void sgemm_naive(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, size_t M, size_t N, size_t K, float alpha,
                            float beta) {
  size_t row = (size_t)blockIdx.y * 16 + threadIdx.y;
  size_t col = (size_t)blockIdx.x * 16 + threadIdx.x;
  if (row >= M || col >= N)
    return;
  float acc = 0.0f;
  for (size_t k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

// Tiled, but with the tiles read straight from global memory rather than
// staged in shared memory (the kernel Gupta, Xiang and Zhou measure in
// MSPC 2013): per 16-wide tile t, thread (ty, tx) multiplies row `row` of
// A's tile with column `col` of B's tile. The 16 threads of a block row read
// the same A element, and every block row reads the same row of B's tile.
#define TILE 16
__global__ void matmul_tiles(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; t++) {
    const float *a = A + row * n + t * TILE;
    const float *b = B + t * TILE * n + col;
    for (int k = 0; k < TILE; k++)
      acc += a[k] * b[k * n];
  }
  C[row * n + col] = acc;
}

void run_matmul(int M, int N, int K) {
  float *d_A, *d_B, *d_C;
  cudaMalloc(&d_A, (size_t)M * K * sizeof(float));
  cudaMalloc(&d_B, (size_t)K * N * sizeof(float));
  cudaMalloc(&d_C, (size_t)M * N * sizeof(float));
  cudaMemset(d_A, 0, (size_t)M * K * sizeof(float));
  cudaMemset(d_B, 0, (size_t)K * N * sizeof(float));
  cudaMemset(d_C, 0, (size_t)M * N * sizeof(float));

  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmul_naive<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
  sgemm_naive<<<grid, block>>>(d_A, d_B, d_C, M, N, K, 1.0f, 0.5f);
  // Square and a multiple of the tile: the first min(M, N, K) rounded down.
  int n = (M < N ? (M < K ? M : K) : (N < K ? N : K)) / TILE * TILE;
  matmul_tiles<<<dim3(n / TILE, n / TILE), block>>>(d_A, d_B, d_C, n);
  cudaDeviceSynchronize();
  cudaFree(d_A);
  cudaFree(d_B);
  cudaFree(d_C);
}

int main() {
  run_matmul(1000, 1200, 800);
  printf("done\n");
  return 0;
}
