// Batched binary search: each thread looks up one query key in a sorted
// table that lives in global memory.  The search itself is a __device__
// helper that takes the table pointer.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__device__ int lower_bound_dev(const int *table, int n, int key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (table[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

__global__ void search_kernel(const int *table, int n, const int *queries, int *result,
                              int nq) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nq)
    return;
  int key = queries[q];
  int pos = lower_bound_dev(table, n, key);
  result[q] = (pos < n && table[pos] == key) ? pos : -1;
}

// Range count: number of table entries in [lo[q], hi[q]).
__global__ void range_count(const int *__restrict__ table, int n, const int *__restrict__ lo,
                            const int *__restrict__ hi, int *__restrict__ counts, int nq) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < nq)
    counts[q] = lower_bound_dev(table, n, hi[q]) - lower_bound_dev(table, n, lo[q]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int nq = argc > 2 ? atoi(argv[2]) : 1 << 22;
  int *h_table = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) h_table[i] = 3 * i;

  int *d_table, *d_q, *d_lo, *d_hi, *d_res;
  cudaMalloc(&d_table, n * sizeof(int));
  cudaMalloc(&d_q, nq * sizeof(int));
  cudaMalloc(&d_lo, nq * sizeof(int));
  cudaMalloc(&d_hi, nq * sizeof(int));
  cudaMalloc(&d_res, nq * sizeof(int));
  cudaMemcpy(d_table, h_table, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_q, 0, nq * sizeof(int));
  cudaMemset(d_lo, 0, nq * sizeof(int));
  cudaMemset(d_hi, 0, nq * sizeof(int));

  const int THREADS = 128;
  int blocks = (nq + THREADS - 1) / THREADS;
  search_kernel<<<blocks, THREADS>>>(d_table, n, d_q, d_res, nq);
  range_count<<<blocks, THREADS>>>(d_table, n, d_lo, d_hi, d_res, nq);
  cudaDeviceSynchronize();
  printf("search done\n");
  cudaFree(d_table); cudaFree(d_q); cudaFree(d_lo); cudaFree(d_hi); cudaFree(d_res);
  free(h_table);
  return 0;
}
