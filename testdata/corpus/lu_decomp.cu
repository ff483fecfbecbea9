// Right-looking LU decomposition without pivoting, one column at a time:
// scale the column below the pivot, then apply the rank-1 update to the
// trailing sub-matrix with 2-D thread blocks.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BS 16

__global__ void lu_scale_column(float *a, int n, int k) {
  int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float pivot = a[k * n + k];
    a[i * n + k] = a[i * n + k] / pivot;
  }
}

__global__ void lu_update_trailing(float *a, int n, int k) {
  int col = k + 1 + blockIdx.x * BS + threadIdx.x;
  int row = k + 1 + blockIdx.y * BS + threadIdx.y;
  if (row < n && col < n) {
    float l = a[row * n + k];
    float u = a[k * n + col];
    a[row * n + col] -= l * u;
  }
}

// Same trailing update, but the pivot row and column segments each block
// needs are first staged in shared memory.
__global__ void lu_update_trailing_shared(float *a, int n, int k) {
  __shared__ float lcol[BS];
  __shared__ float urow[BS];
  int col = k + 1 + blockIdx.x * BS + threadIdx.x;
  int row = k + 1 + blockIdx.y * BS + threadIdx.y;
  if (threadIdx.y == 0 && col < n)
    urow[threadIdx.x] = a[k * n + col];
  if (threadIdx.x == 0 && row < n)
    lcol[threadIdx.y] = a[row * n + k];
  __syncthreads();
  if (row < n && col < n)
    a[row * n + col] -= lcol[threadIdx.y] * urow[threadIdx.x];
}

void run_lu(float *d_a, int n, bool use_shared) {
  for (int k = 0; k < n - 1; k++) {
    int rem = n - k - 1;
    lu_scale_column<<<(rem + 255) / 256, 256>>>(d_a, n, k);
    dim3 block(BS, BS);
    dim3 grid((rem + BS - 1) / BS, (rem + BS - 1) / BS);
    if (use_shared)
      lu_update_trailing_shared<<<grid, block>>>(d_a, n, k);
    else
      lu_update_trailing<<<grid, block>>>(d_a, n, k);
  }
  cudaDeviceSynchronize();
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *h_a = (float *)malloc((size_t)n * n * sizeof(float));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      h_a[i * n + j] = (i == j) ? (float)n : 1.0f / (1 + i + j);
  float *d_a;
  cudaMalloc((void **)&d_a, (size_t)n * n * sizeof(float));
  cudaMemcpy(d_a, h_a, (size_t)n * n * sizeof(float), cudaMemcpyHostToDevice);
  run_lu(d_a, n, false);
  cudaMemcpy(d_a, h_a, (size_t)n * n * sizeof(float), cudaMemcpyHostToDevice);
  run_lu(d_a, n, true);
  cudaMemcpy(h_a, d_a, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("u[n-1][n-1] = %f\n", h_a[(size_t)n * n - 1]);
  cudaFree(d_a);
  free(h_a);
  return 0;
}
