// A near-tie on a line-fill part (issue 19 fact 13; decide/robust.rs): `lengths` reads
// p[i] and p[i + 1] (CSR's row lengths) once per thread beside a long streamed column of
// w. Caching p saves a line per warp out of 128 of w's, under 1 % of the bytes, so on a
// line-fill part the candidate caching the fewest loads wins, and on a sector-fill part
// the one caching the most. tests/robust_decisions.rs works the figures out.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void lengths(const int *p, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < 128; k++) s += w[k * n + i];
  out[i] = (float)(p[i + 1] - p[i]) * s;
}

int main() {
  const int n = 1 << 14;
  int *p;
  float *w, *out;
  cudaMalloc(&p, (n + 1) * sizeof(int));
  cudaMalloc(&w, 128 * n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(p, 0, (n + 1) * sizeof(int));
  cudaMemset(w, 0, 128 * n * sizeof(float));
  lengths<<<n / 128, 128>>>(p, w, out, n);
  cudaDeviceSynchronize();
  printf("lengths done\n");
  cudaFree(p);
  cudaFree(w);
  cudaFree(out);
  return 0;
}
