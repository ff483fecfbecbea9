// The gather scenario (issue 19 fact 12; model/gathers.rs): `rows` reads
// x[idx[...]] in a loop whose trip count nobody gave (the walk runs 8
// iterations). The model's nominal trace gives every gathered lane a line
// of its own (no reuse); the scenario has thread t's e-th iteration read
// word t + e, as on a well-ordered mesh. tests/robust_decisions.rs weighs
// the two on a Fermi-like part (line fills) and on sm_70 (sector fills).
#include <cuda_runtime.h>

#define THREADS 256
#define BLOCKS 15

__global__ void rows(const float *x, const int *idx, float *out, int m) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  float s = 0.0f;
#pragma unroll 1
  for (int k = 0; k < m; k++)
    s += x[idx[k * THREADS * BLOCKS + i]];
  out[i] = s;
}

int main(int argc, char **argv) {
  float *x, *out;
  int *idx;
  int m = argc;
  cudaMalloc(&x, 4 << 20);
  cudaMalloc(&idx, 4 << 20);
  cudaMalloc(&out, sizeof(float) * THREADS * BLOCKS);
  cudaMemset(idx, 0, 4 << 20);
  rows<<<BLOCKS, THREADS>>>(x, idx, out, m);
  cudaDeviceSynchronize();
  cudaFree(x);
  cudaFree(idx);
  cudaFree(out);
  return 0;
}
