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
