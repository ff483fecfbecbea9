// Particle-in-cell gather: each particle reads the field value of the unit cell it sits in, the cell
// picked from its own float coordinates (`(int)p.x`, clamped to the grid). Which cells the threads of
// one warp share depends on where the particles are, so the loads of `field` are unknown unless the
// particles are bound with --kernel-data=p=FILE (raw little-endian Particle structs): then the model
// converts each coordinate as the GPU does (cvt.rzi: toward zero, clamped, NaN to 0).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define W 64
#define H 64

struct Particle {
  float x, y;  // position, in cells
  float q;     // charge
};

__global__ void gather_field(const Particle *p, const float *field, float *energy, int n, int w,
                             int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int cx = min(max((int)p[i].x, 0), w - 1);
  int cy = min(max((int)p[i].y, 0), h - 1);
  energy[i] = p[i].q * field[cy * w + cx];
}

int main() {
  const int n = 8192;
  std::vector<Particle> ps(n);
  for (int i = 0; i < n; ++i) {
    ps[i].x = (float)(rand() % (W * 16)) / 16.0f;
    ps[i].y = (float)(rand() % (H * 16)) / 16.0f;
    ps[i].q = (i & 1) ? 1.0f : -1.0f;
  }
  std::vector<float> field(W * H);
  for (int c = 0; c < W * H; ++c) field[c] = 0.01f * (float)(c % 97);
  Particle *d_p;
  float *d_field, *d_energy;
  cudaMalloc(&d_p, n * sizeof(Particle));
  cudaMalloc(&d_field, W * H * sizeof(float));
  cudaMalloc(&d_energy, n * sizeof(float));
  cudaMemcpy(d_p, ps.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  cudaMemcpy(d_field, field.data(), W * H * sizeof(float), cudaMemcpyHostToDevice);
  gather_field<<<n / 256, 256>>>(d_p, d_field, d_energy, n, W, H);
  std::vector<float> energy(n);
  cudaMemcpy(energy.data(), d_energy, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += energy[i];
  printf("energy %f\n", sum);
  cudaFree(d_p);
  cudaFree(d_field);
  cudaFree(d_energy);
  return 0;
}
