// conv2d_3x3: 2-D blocks (16x16), each thread one output pixel of a W x H image; 3x3 filter read
// from GLOBAL memory (the same 9 floats for every thread), input image with a 1-pixel halo
// ((W+2) x (H+2)); each input pixel is read by 9 threads (neighbouring rows from other warps).
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define W 128
#define H 96
#define BX 16
#define BY 16

static uint32_t lcg_state = 55555u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void conv3x3(const float *in, const float *filt, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int pitch = w + 2;
  float acc = 0.0f;
  for (int dy = 0; dy < 3; dy++)
    for (int dx = 0; dx < 3; dx++)
      acc += filt[dy * 3 + dx] * in[(y + dy) * pitch + (x + dx)];
  out[y * w + x] = acc;
}

int main() {
  const int w = W, h = H, pitch = W + 2;
  size_t nin = (size_t)pitch * (h + 2);
  float *in = (float *)malloc(nin * sizeof(float));
  for (size_t i = 0; i < nin; i++) in[i] = (float)((int)(lcg() % 65) - 32) / 32.0f;
  float filt[9];
  for (int i = 0; i < 9; i++) filt[i] = (float)((int)(lcg() % 9) - 4) / 4.0f;
  float *din, *dfilt, *dout;
  cudaMalloc(&din, nin * sizeof(float));
  cudaMalloc(&dfilt, sizeof(filt));
  cudaMalloc(&dout, (size_t)w * h * sizeof(float));
  cudaMemcpy(din, in, nin * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dfilt, filt, sizeof(filt), cudaMemcpyHostToDevice);
  dim3 block(BX, BY), grid((w + BX - 1) / BX, (h + BY - 1) / BY);
  conv3x3<<<grid, block>>>(din, dfilt, dout, w, h);
  float *out = (float *)malloc((size_t)w * h * sizeof(float));
  cudaMemcpy(out, dout, (size_t)w * h * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0; double sum = 0; uint32_t check = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float ref = 0.0f;
      for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++) ref += filt[dy * 3 + dx] * in[(y + dy) * pitch + (x + dx)];
      float v = out[y * w + x];
      if (v != ref) bad++;
      sum += v;
      uint32_t bits; memcpy(&bits, &v, 4); check = check * 31u + bits;
    }
  printf("RESULT conv2d_3x3 w=%d h=%d block=%dx%d\n", w, h, BX, BY);
  printf("RESULT checksum=%08x sum=%.5f host_mismatches=%d\n", check, sum, bad);
  cudaFree(din); cudaFree(dfilt); cudaFree(dout); free(in); free(out);
  return bad ? 1 : 0;
}
