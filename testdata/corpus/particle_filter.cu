// Particle filter for tracking an object in a video frame: motion model with
// Box-Muller noise (logf, sqrtf, cosf, sinf), likelihood over a disk of
// object pixels and exponential re-weighting (expf).
#include <cuda_runtime.h>
#include <cstdio>

#define PI 3.1415926535897932f

__device__ float lcg_uniform(unsigned int *seed, int idx) {
  unsigned int s = seed[idx] * 1103515245u + 12345u;
  seed[idx] = s;
  return (s >> 8) * (1.0f / 16777216.0f) + 1e-7f;
}

__global__ void propagate(float *xj, float *yj, unsigned int *seed, int nparticles) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nparticles)
    return;
  float u = lcg_uniform(seed, i);
  float v = lcg_uniform(seed, i);
  float r = sqrtf(-2.0f * logf(u));
  xj[i] += 1.0f + 5.0f * r * cosf(2.0f * PI * v);
  yj[i] += -2.0f + 2.0f * r * sinf(2.0f * PI * v);
}

__global__ void likelihood(const float *xj, const float *yj, const int *objxy, int count,
                           const unsigned char *frame, int width, int height, float *weights,
                           float *likelihoods, int nparticles) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nparticles)
    return;
  int px = (int)roundf(xj[i]);
  int py = (int)roundf(yj[i]);
  float sum = 0.0f;
  for (int k = 0; k < count; k++) {
    int x = min(max(px + objxy[2 * k + 1], 0), width - 1);
    int y = min(max(py + objxy[2 * k], 0), height - 1);
    float pix = (float)frame[y * width + x];
    sum += ((pix - 100.f) * (pix - 100.f) - (pix - 228.f) * (pix - 228.f)) / 50.0f;
  }
  float l = sum / (float)count;
  likelihoods[i] = l;
  weights[i] = weights[i] * expf(l);
}

__global__ void normalize_weights(float *weights, const float *sum_weights, float *entropy,
                                  int nparticles) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nparticles)
    return;
  float w = weights[i] / sum_weights[0];
  weights[i] = w;
  atomicAdd(entropy, -w * logf(fmaxf(w, 1e-30f)));
}

int main() {
  const int nparticles = 40000, width = 1024, height = 1024, count = 69;
  float *d_x, *d_y, *d_w, *d_l, *d_sum, *d_ent;
  unsigned int *d_seed;
  int *d_obj;
  unsigned char *d_frame;
  cudaMalloc(&d_x, nparticles * sizeof(float));
  cudaMalloc(&d_y, nparticles * sizeof(float));
  cudaMalloc(&d_w, nparticles * sizeof(float));
  cudaMalloc(&d_l, nparticles * sizeof(float));
  cudaMalloc(&d_sum, sizeof(float));
  cudaMalloc(&d_ent, sizeof(float));
  cudaMalloc(&d_seed, nparticles * sizeof(unsigned int));
  cudaMalloc(&d_obj, 2 * count * sizeof(int));
  cudaMalloc(&d_frame, width * height);
  cudaMemset(d_frame, 0, width * height);

  const int threads_per_block = 512;
  int num_blocks = (nparticles + threads_per_block - 1) / threads_per_block;
  for (int frame = 0; frame < 10; frame++) {
    propagate<<<num_blocks, threads_per_block>>>(d_x, d_y, d_seed, nparticles);
    likelihood<<<num_blocks, threads_per_block>>>(d_x, d_y, d_obj, count, d_frame, width,
                                                  height, d_w, d_l, nparticles);
    normalize_weights<<<num_blocks, threads_per_block>>>(d_w, d_sum, d_ent, nparticles);
  }
  cudaDeviceSynchronize();
  printf("particle filter done\n");
  cudaFree(d_x); cudaFree(d_y); cudaFree(d_w); cudaFree(d_l); cudaFree(d_sum);
  cudaFree(d_ent); cudaFree(d_seed); cudaFree(d_obj); cudaFree(d_frame);
  return 0;
}
