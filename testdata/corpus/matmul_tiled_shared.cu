// Classic shared-memory tiled matrix multiply C = A * B with 16x16 tiles.
// Matrix dimensions are multiples of BLOCK_SIZE (row-major storage).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BLOCK_SIZE 16

__global__ void matmul_shared(const float *A, const float *B, float *C, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  float Csub = 0.0f;

  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k)
      Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

int main(int argc, char **argv) {
  int hA = argc > 1 ? atoi(argv[1]) : 1024;
  int wA = argc > 2 ? atoi(argv[2]) : 1024;
  int wB = argc > 3 ? atoi(argv[3]) : 1024;
  size_t sA = (size_t)hA * wA, sB = (size_t)wA * wB, sC = (size_t)hA * wB;
  float *h_A = (float *)malloc(sA * sizeof(float));
  float *h_B = (float *)malloc(sB * sizeof(float));
  for (size_t i = 0; i < sA; i++) h_A[i] = 1.0f;
  for (size_t i = 0; i < sB; i++) h_B[i] = 0.01f;

  float *d_A, *d_B, *d_C;
  cudaMalloc((void **)&d_A, sA * sizeof(float));
  cudaMalloc((void **)&d_B, sB * sizeof(float));
  cudaMalloc((void **)&d_C, sC * sizeof(float));
  cudaMemcpy(d_A, h_A, sA * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B, sB * sizeof(float), cudaMemcpyHostToDevice);

  dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid(wB / threads.x, hA / threads.y);
  matmul_shared<<<grid, threads>>>(d_A, d_B, d_C, wA, wB);
  cudaDeviceSynchronize();

  float c0;
  cudaMemcpy(&c0, d_C, sizeof(float), cudaMemcpyDeviceToHost);
  printf("C[0][0] = %f\n", c0);
  cudaFree(d_A); cudaFree(d_B); cudaFree(d_C);
  free(h_A); free(h_B);
  return 0;
}
