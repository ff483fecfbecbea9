// Work-efficient (Blelloch) exclusive scan.  Each block scans 2*blockDim.x
// elements in shared memory with an up-sweep and a down-sweep, writes its
// total to a block-sum array, and a second pass adds the scanned block sums.
// The two sweeps are __device__ helpers that take the __shared__ array.
#include <cuda_runtime.h>
#include <cstdio>

#define SCAN_THREADS 256
#define SCAN_ELEMS (2 * SCAN_THREADS)

__device__ int up_sweep(float *temp, int n, int thid) {
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  return offset;
}

__device__ void down_sweep(float *temp, int n, int thid, int offset) {
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
}

__global__ void scan_blocks(const float *g_in, float *g_out, float *block_sums, int n) {
  __shared__ float temp[SCAN_ELEMS];
  int thid = threadIdx.x;
  int base = blockIdx.x * SCAN_ELEMS;
  int ai = base + thid, bi = base + thid + SCAN_THREADS;
  temp[thid] = ai < n ? g_in[ai] : 0.0f;
  temp[thid + SCAN_THREADS] = bi < n ? g_in[bi] : 0.0f;

  int offset = up_sweep(temp, SCAN_ELEMS, thid);
  if (thid == 0) {
    if (block_sums)
      block_sums[blockIdx.x] = temp[SCAN_ELEMS - 1];
    temp[SCAN_ELEMS - 1] = 0.0f;
  }
  down_sweep(temp, SCAN_ELEMS, thid, offset);

  if (ai < n) g_out[ai] = temp[thid];
  if (bi < n) g_out[bi] = temp[thid + SCAN_THREADS];
}

__global__ void add_block_sums(float *data, const float *__restrict__ scanned_sums, int n) {
  float add = scanned_sums[blockIdx.x];
  int i = blockIdx.x * SCAN_ELEMS + threadIdx.x;
  if (i < n) data[i] += add;
  if (i + SCAN_THREADS < n) data[i + SCAN_THREADS] += add;
}

int main() {
  const int n = SCAN_ELEMS * SCAN_ELEMS;   // two levels are enough
  const int nblocks = n / SCAN_ELEMS;
  float *d_in, *d_out, *d_sums, *d_sums_scanned;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_sums, nblocks * sizeof(float));
  cudaMalloc(&d_sums_scanned, nblocks * sizeof(float));
  cudaMemset(d_in, 0, n * sizeof(float));

  scan_blocks<<<nblocks, SCAN_THREADS>>>(d_in, d_out, d_sums, n);
  scan_blocks<<<1, SCAN_THREADS>>>(d_sums, d_sums_scanned, nullptr, nblocks);
  add_block_sums<<<nblocks, SCAN_THREADS>>>(d_out, d_sums_scanned, n);
  cudaDeviceSynchronize();
  printf("scan done\n");
  cudaFree(d_in); cudaFree(d_out); cudaFree(d_sums); cudaFree(d_sums_scanned);
  return 0;
}
