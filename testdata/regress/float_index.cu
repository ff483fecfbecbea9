// A field read at the cell a float coordinate names, with no clamp: field[(int)p[i]] (the
// conversion sign-extended for the index). With the coordinates bound (--kernel-data=p=FILE) the
// report's printer recursed forever on the extension around the conversion (an adversarial review:
// clang died with SIGSEGV). (signed char) and (unsigned char) conversions: NVPTX converts to 16
// bits (cvt.rzi.s16.f32) and keeps that in the register, so an out-of-range value reads back as
// no 8-bit value does; the model leaves them unknown.
#include <cuda_runtime.h>

__global__ void gather(const float *p, const float *field, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = field[(int)p[i]];
}

__global__ void gather_s8(const float *p, const float *field, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = field[(signed char)p[i] + 128];
}

__global__ void gather_u8(const float *p, const float *field, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = field[(unsigned char)p[i]];
}

int main() {
  float *p, *field, *out;
  cudaMalloc(&p, 8192 * sizeof(float));
  cudaMalloc(&field, 256 * sizeof(float));
  cudaMalloc(&out, 8192 * sizeof(float));
  gather<<<32, 256>>>(p, field, out);
  gather_s8<<<32, 256>>>(p, field, out);
  gather_u8<<<32, 256>>>(p, field, out);
  cudaDeviceSynchronize();
  return 0;
}
