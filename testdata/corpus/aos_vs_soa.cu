// The same particle update written against an array of structures and a
// structure of arrays.  The AoS kernel reads each field of a 20-byte record
// separately; the SoA kernel reads five unit-stride arrays.
#include <cuda_runtime.h>
#include <cstdio>

struct Particle {
  float x, y, z, w;
  int id;
};

__global__ void update_aos(const Particle *p, float *energy, const float *charge_by_id, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = p[i].x;
    float y = p[i].y;
    float z = p[i].z;
    float w = p[i].w;
    int id = p[i].id;
    energy[i] = w * charge_by_id[id] * (x * x + y * y + z * z);
  }
}

__global__ void update_soa(const float *__restrict__ x, const float *__restrict__ y,
                           const float *__restrict__ z, const float *__restrict__ w,
                           const int *__restrict__ id, const float *__restrict__ charge_by_id,
                           float *__restrict__ energy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float px = x[i], py = y[i], pz = z[i];
    energy[i] = w[i] * charge_by_id[id[i]] * (px * px + py * py + pz * pz);
  }
}

int main() {
  const int n = 1 << 22;
  const int ntypes = 64;
  Particle *d_p;
  float *d_x, *d_y, *d_z, *d_w, *d_charge, *d_energy;
  int *d_id;
  cudaMalloc(&d_p, n * sizeof(Particle));
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_z, n * sizeof(float));
  cudaMalloc(&d_w, n * sizeof(float));
  cudaMalloc(&d_id, n * sizeof(int));
  cudaMalloc(&d_charge, ntypes * sizeof(float));
  cudaMalloc(&d_energy, n * sizeof(float));
  cudaMemset(d_p, 0, n * sizeof(Particle));
  cudaMemset(d_id, 0, n * sizeof(int));

  update_aos<<<n / 256, 256>>>(d_p, d_energy, d_charge, n);
  update_soa<<<n / 256, 256>>>(d_x, d_y, d_z, d_w, d_id, d_charge, d_energy, n);
  cudaDeviceSynchronize();
  printf("aos/soa done\n");
  cudaFree(d_p); cudaFree(d_x); cudaFree(d_y); cudaFree(d_z); cudaFree(d_w);
  cudaFree(d_id); cudaFree(d_charge); cudaFree(d_energy);
  return 0;
}
