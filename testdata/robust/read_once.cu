// Data read once (issue 19; model/read_once.rs): `scale` streams `a` once
// and reads the table `t` from every thread; `shifted` reads a[i] and
// a[i + off]: with off = 1 the two loads share sectors, with off = 4096
// they do not, so whether either is read once depends on an argument.
// The others read a line twice in ways the trace cannot see, so nothing in
// them is read once: `gather` through an index loaded from memory,
// `sweep` in a loop whose trip count nobody gave, `hidden` in inline asm.
// `neighbour` reads it again in `peek`, a `__noinline__` function the
// trace follows into (issue 19): there the trace sees the second read.
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

__global__ void gather(const float *a, const int *idx, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] + a[idx[i]];
}

__global__ void sweep(const float *a, float *out, int m) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < m; j++)
    s += a[j];
  out[i] = s * a[4096 + i];
}

__device__ __noinline__ float peek(const float *a, int j) { return a[j]; }

__global__ void neighbour(const float *a, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] * peek(a, i ^ 32);
}

__global__ void hidden(const float *a, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  float v;
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(a + (i ^ 32)));
  out[i] = a[i] * v;
}

// Table lookups (bounded gathers): what they may read is known, so
// `lookup`'s streams stay read once; `selfref`'s lookup may read a[i]'s
// own lines.
__global__ void lookup(const float *a, const unsigned *b, const float *t, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] * t[b[i] & 7];
}

__global__ void selfref(const float *a, const unsigned *b, float *out) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  out[i] = a[i] + a[b[i] & 255];
}

// Blocks beyond the traced wave: `rowbias`'s bias[x] is read again by
// every row of blocks (blockIdx.y), which the first wave on one SM may not
// show. `upwind`'s a[j] reads a phi that a data-dependent branch chose.
#define W 512
__global__ void rowbias(const float *in, const float *bias, float *out) {
  int x = blockIdx.x * THREADS + threadIdx.x;
  out[blockIdx.y * W + x] = in[blockIdx.y * W + x] + bias[x];
}

__global__ void upwind(const float *a, const int *flag, float *out, int *log) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  int j;
  if (flag[i]) {
    j = i + 32;
    log[i] = 1;
  } else {
    j = i;
  }
  out[i] = a[j];
}

int main(int argc, char **argv) {
  const int blocks = 80, n = blocks * THREADS;
  int off = argc > 1 ? 4096 : 1;
  float *a, *t, *out;
  // A size known only at run time: the gather's index into `a` is not
  // bounded by its allocation (testdata/robust/allocation_gather.cu is).
  cudaMalloc(&a, sizeof(float) * (n + 4096 * argc));
  cudaMalloc(&t, sizeof(float) * 8);
  cudaMalloc(&out, sizeof(float) * n);
  cudaMemset(a, 0, sizeof(float) * (n + 4096));
  cudaMemset(t, 0, sizeof(float) * 8);
  int *idx;
  cudaMalloc(&idx, sizeof(int) * n);
  cudaMemset(idx, 0, sizeof(int) * n);
  int *log;
  cudaMalloc(&log, sizeof(int) * n);
  scale<<<blocks, THREADS>>>(a, t, out);
  shifted<<<blocks, THREADS>>>(a, out, off);
  gather<<<blocks, THREADS>>>(a, idx, out);
  sweep<<<blocks, THREADS>>>(a, out, off);
  neighbour<<<blocks, THREADS>>>(a, out);
  hidden<<<blocks, THREADS>>>(a, out);
  lookup<<<blocks, THREADS>>>(a, (const unsigned *)idx, t, out);
  selfref<<<blocks, THREADS>>>(a, (const unsigned *)idx, out);
  rowbias<<<dim3(W / THREADS, blocks / 2), THREADS>>>(a, t, out);
  upwind<<<blocks, THREADS>>>(a, idx, out, log);
  float first = 0.0f;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", first);
  cudaFree(a);
  cudaFree(t);
  cudaFree(idx);
  cudaFree(log);
  cudaFree(out);
  return 0;
}
