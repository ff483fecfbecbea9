// Each thread reads three fields of one element of a struct array as three
// separate scalar loads and writes their (weighted) sum.
#include <cuda_runtime.h>
#include <cstdio>

struct Vec3 {
  float x;
  float y;
  float z;
};

struct Body {
  float x, y, z;
  float mass;
  int flags;
};

__global__ void sum_fields(const Vec3 *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = b[i].x + b[i].y + b[i].z;
}

__global__ void weighted_fields(const Body *__restrict__ bodies, const float *__restrict__ w,
                                float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = bodies[i].x * w[0] + bodies[i].y * w[1] + bodies[i].z * w[2];
  if (bodies[i].flags & 1)
    s *= bodies[i].mass;
  out[i] = s;
}

int main() {
  const int n = 1 << 22;
  Vec3 *d_v;
  Body *d_b;
  float *d_w, *d_out;
  cudaMalloc(&d_v, n * sizeof(Vec3));
  cudaMalloc(&d_b, n * sizeof(Body));
  cudaMalloc(&d_w, 3 * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemset(d_v, 0, n * sizeof(Vec3));
  cudaMemset(d_b, 0, n * sizeof(Body));

  sum_fields<<<n / 128, 128>>>(d_v, d_out, n);
  weighted_fields<<<(n + 255) / 256, 256>>>(d_b, d_w, d_out, n);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(d_v); cudaFree(d_b); cudaFree(d_w); cudaFree(d_out);
  return 0;
}
