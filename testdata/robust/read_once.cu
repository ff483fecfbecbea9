// Data read once (issue 19; model/read_once.rs): `scale` streams `a` once
// and reads the table `t` from every thread; `shifted` reads a[i] and
// a[i + off]: with off = 1 the two loads share sectors, with off = 4096
// they do not, so whether either is read once depends on an argument.
#include <cstdio>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void scale(const float *a, const float *t, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] * t[threadIdx.x & 7];
}

__global__ void shifted(const float *a, float *out, int off) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] + a[i + off];
}

int main(int argc, char **argv) {
  const int blocks = 80, n = blocks * THREADS;
  int off = argc > 1 ? 4096 : 1;
  float *a, *t, *out;
  cudaMalloc(&a, sizeof(float) * (n + 4096));
  cudaMalloc(&t, sizeof(float) * 8);
  cudaMalloc(&out, sizeof(float) * n);
  cudaMemset(a, 0, sizeof(float) * (n + 4096));
  cudaMemset(t, 0, sizeof(float) * 8);
  scale<<<blocks, THREADS>>>(a, t, out);
  shifted<<<blocks, THREADS>>>(a, out, off);
  float first = 0.0f;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(a);
  cudaFree(t);
  cudaFree(out);
  return 0;
}
