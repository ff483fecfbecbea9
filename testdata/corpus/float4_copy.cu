// Vectorised copies: float4 loads/stores, a reinterpret_cast of a float
// buffer to float4, and whole-struct assignment of a 20-byte record (which
// clang lowers to a memcpy).
#include <cuda_runtime.h>
#include <cstdio>

struct Rec20 {
  float a, b, c, d, e;
};

__global__ void copy_float4(const float4 *in, float4 *out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = in[i];
}

__global__ void scale_float4(const float *__restrict__ in, float *__restrict__ out, float s,
                             int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    float4 v = reinterpret_cast<const float4 *>(in)[i];
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    reinterpret_cast<float4 *>(out)[i] = v;
  } else {
    for (int k = 4 * i; k < n; k++)
      out[k] = s * in[k];
  }
}

__global__ void copy_rec20(const Rec20 *in, Rec20 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void permute_rec20(const Rec20 *in, const int *perm, Rec20 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Rec20 r = in[perm[i]];
    r.e = r.a + r.b + r.c + r.d;
    out[i] = r;
  }
}

int main() {
  const int n = 1 << 24;
  float *d_in, *d_out;
  Rec20 *d_rin, *d_rout;
  int *d_perm;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_rin, (n / 4) * sizeof(Rec20));
  cudaMalloc(&d_rout, (n / 4) * sizeof(Rec20));
  cudaMalloc(&d_perm, (n / 4) * sizeof(int));
  cudaMemset(d_perm, 0, (n / 4) * sizeof(int));

  int n4 = n / 4;
  copy_float4<<<(n4 + 255) / 256, 256>>>((const float4 *)d_in, (float4 *)d_out, n4);
  scale_float4<<<(n4 + 255) / 256, 256>>>(d_in, d_out, 2.0f, n);
  copy_rec20<<<(n4 + 127) / 128, 128>>>(d_rin, d_rout, n4);
  permute_rec20<<<(n4 + 127) / 128, 128>>>(d_rin, d_perm, d_rout, n4);
  cudaDeviceSynchronize();
  printf("copies done\n");
  cudaFree(d_in); cudaFree(d_out); cudaFree(d_rin); cudaFree(d_rout); cudaFree(d_perm);
  return 0;
}
