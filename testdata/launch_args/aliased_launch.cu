// Launches whose pointer arguments break what the model assumes of them
// (distinct allocations, each at its start, 256-byte aligned). `pair`
// adds two streams; launched with two allocations each stream is read
// once. Launched as pair(a, a + 1, ...) both loads read the same lines
// (b[i] is a[i + 1]), and pair(a, a, ...) reads every line twice: the
// model cannot see that, so it must not claim read once for those
// launches. `axpy` is launched in place (y and out one array): its loads
// of y are not read once, x's still are. The second launch of `pair` gets
// two allocations from one host variable (allocated again in between) and
// an offset of 256 bytes, which breaks nothing. `relax` is launched in a
// ping-pong loop (src and dst swap each step), which is two distinct
// allocations at every launch: no warning. A helper in a header launches
// it with each array one element before its start (1-based indexing):
// the warning names the header.
#include <cstdio>
#include <utility>
#include <cuda_runtime.h>

#define THREADS 256
#define N (64 * THREADS)

__global__ void pair(const float *a, const float *b, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] + b[i];
}

__global__ void pair_shifted(const float *a, const float *b, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] + b[i];
}

__global__ void pair_same(const float *a, const float *b, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] * b[i];
}

// out[i] = a * x[i] + y[i], launched in place (y and out one array): x
// stays a stream of its own.
__global__ void axpy(float a, const float *x, const float *y, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a * x[i] + y[i];
}

__global__ void relax(const float *src, float *dst, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i > 0 && i < n - 1)
    dst[i] = 0.5f * src[i] + 0.25f * (src[i - 1] + src[i + 1]);
}

#include "one_based_launch.cuh"

int main() {
  float *h = new float[N + 1];
  for (int i = 0; i <= N; i++)
    h[i] = (float)(i % 17);
  float *d_a, *d_b, *d_out;
  cudaMalloc(&d_a, (N + 1) * sizeof(float));
  cudaMalloc(&d_b, N * sizeof(float));
  cudaMalloc(&d_out, N * sizeof(float));
  cudaMemcpy(d_a, h, (N + 1) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, h, N * sizeof(float), cudaMemcpyHostToDevice);
  pair<<<N / THREADS, THREADS>>>(d_a, d_b, d_out);
  pair_shifted<<<N / THREADS, THREADS>>>(d_a, d_a + 1, d_out);
  pair_same<<<N / THREADS, THREADS>>>(d_a, d_a, d_out);
  axpy<<<N / THREADS, THREADS>>>(2.0f, d_b, d_out, d_out);
  // One host variable, two allocations: `first` keeps the first one.
  float *d_c, *first;
  cudaMalloc(&d_c, N * sizeof(float));
  first = d_c;
  cudaMemcpy(d_c, h, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMalloc(&d_c, (N + 64) * sizeof(float));
  cudaMemcpy(d_c + 64, h, N * sizeof(float), cudaMemcpyHostToDevice);
  // Two allocations, the second 64 floats (256 bytes) in: still aligned.
  pair<<<N / THREADS, THREADS>>>(first, d_c + 64, d_out);
  // By hand: an argument array holding one variable's address twice.
  void *args[] = {&d_a, &d_a, &d_out};
  cudaLaunchKernel((const void *)pair_same, dim3(N / THREADS), dim3(THREADS), args, 0, 0);
  float *src = d_b, *dst = d_out;
  for (int step = 0; step < 10; step++) {
    relax<<<N / THREADS, THREADS>>>(src, dst, N);
    std::swap(src, dst);
  }
  relax_one_based(d_b, d_out, N);
  cudaMemcpy(h, src, N * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", h[N / 2]);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_out);
  cudaFree(d_c);
  cudaFree(first);
  delete[] h;
  return 0;
}
