// Kernels that mix access patterns: a coalesced index load idx[i], a
// data-dependent gather data[idx[i]], and two fields of a per-thread record.
// In `mixed` the record's fields are read one after the other; in `weigh`
// the gather sits between them, so whether the record's line survives until
// its second field depends on whether the gather was allowed into L1.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

struct Rec {
  float a;
  float b;
  int tag;
  int pad;
};

__global__ void mixed(const int *idx, const float *data, const Rec *rec, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = idx[i];
    float g = data[j];
    float a = rec[i].a;
    float b = rec[i].b;
    out[i] = a * g + b;
  }
}

struct Weight {
  float w;
  float bias;
};

__global__ void weigh(const int *idx, const float *data, const Weight *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float w = p[i].w;
    float g = data[idx[i]];
    out[i] = w * g + p[i].bias;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
  int m = argc > 2 ? atoi(argv[2]) : 1 << 20;
  int *h_idx = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) h_idx[i] = rand() % m;

  int *d_idx;
  float *d_data, *d_out;
  Rec *d_rec;
  cudaMalloc(&d_idx, n * sizeof(int));
  cudaMalloc(&d_data, m * sizeof(float));
  cudaMalloc(&d_rec, n * sizeof(Rec));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_idx, h_idx, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_data, 0, m * sizeof(float));
  cudaMemset(d_rec, 0, n * sizeof(Rec));

  const int THREADS = 256;
  mixed<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_idx, d_data, d_rec, d_out, n);
  Weight *d_w;
  cudaMalloc(&d_w, n * sizeof(Weight));
  cudaMemset(d_w, 0, n * sizeof(Weight));
  weigh<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_idx, d_data, d_w, d_out, n);
  cudaDeviceSynchronize();
  cudaFree(d_w);
  printf("done\n");
  cudaFree(d_idx); cudaFree(d_data); cudaFree(d_rec); cudaFree(d_out);
  free(h_idx);
  return 0;
}
