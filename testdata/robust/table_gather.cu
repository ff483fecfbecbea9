// Unknown indices into a table every warp scans (model/gathers.rs,
// gathers_in_tables; issue 19 fact 12, "an unknown address is not evidence
// of no reuse"). `nearest` scans a 64-entry table of float2 in every
// thread, keeps the index of the entry nearest its query (chosen by the
// data among the loop's own j: the walk cannot know which) and reads that
// entry's .y: the index is unknown, but every warp of both blocks on the SM
// has just read the table's range. `hop` reads val[next[i]] at an index
// loaded from memory (it may read anywhere in a larger val; each warp's
// val[i] is a slice of its own besides), so the gather keeps the nominal
// "shares nothing" (with the gather scenario beside it), as does
// `centred`'s x[idx[i]] beside x[0], which no loop scans.
// tests/robust_decisions.rs checks the three on GPGPU-Sim's GTX480
// description; 30 blocks put two on each of its 15 SMs.
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 128
#define BLOCKS 30
#define N 64

__global__ void nearest(const float2 *table, const float *q, float *out, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  float p = q[i];
  float best = 3.0e38f;
  int arg = 0;
  for (int j = 0; j < n; j++) {
    float d = fabsf(table[j].x - p);
    if (d < best) {
      best = d;
      arg = j;
    }
  }
  out[i] = table[arg].y;
}

__global__ void hop(const int *next, const float *val, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = val[i] + val[next[i]];
}

__global__ void centred(const int *idx, const float *x, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = x[idx[i]] - x[0];
}

int main(int argc, char **) {
  float2 *table;
  float *q, *out, *val;
  int *next;
  // Sizes known only at run time (`table`, `val`), so that a table's range
  // comes from the kernel's reads, not from its allocation
  // (allocation_gather.cu).
  cudaMalloc(&table, sizeof(float2) * N * argc);
  cudaMalloc(&q, sizeof(float) * THREADS * BLOCKS);
  cudaMalloc(&out, sizeof(float) * THREADS * BLOCKS);
  cudaMalloc(&val, sizeof(float) * THREADS * BLOCKS * argc);
  cudaMalloc(&next, sizeof(int) * THREADS * BLOCKS);
  cudaMemset(table, 0, sizeof(float2) * N);
  cudaMemset(q, 0, sizeof(float) * THREADS * BLOCKS);
  cudaMemset(val, 0, sizeof(float) * THREADS * BLOCKS);
  cudaMemset(next, 0, sizeof(int) * THREADS * BLOCKS);
  nearest<<<BLOCKS, THREADS>>>(table, q, out, N);
  hop<<<BLOCKS, THREADS>>>(next, val, out);
  centred<<<BLOCKS, THREADS>>>(next, val, out);
  cudaDeviceSynchronize();
  cudaFree(table);
  cudaFree(q);
  cudaFree(out);
  cudaFree(val);
  cudaFree(next);
  return 0;
}
