// Finite-volume flux computation on an unstructured mesh.  Each thread owns
// one cell, walks its four neighbours through an index array and reads the
// neighbour's conserved variables (a struct of floats) plus face normals.
#include <cuda_runtime.h>
#include <cstdio>

#define NNB 4
#define BLOCK_SIZE_FLUX 192

struct Flow {
  float density;
  float mx, my, mz;
  float energy;
};

__device__ inline float pressure(const Flow &f, float speed_sqd) {
  return 0.4f * (f.energy - 0.5f * f.density * speed_sqd);
}

__global__ void compute_flux(int nelr, const int *neighbours, const float *normals,
                             const Flow *vars, Flow *fluxes) {
  const float smoothing = 0.2f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr)
    return;

  Flow me = vars[i];
  float vx = me.mx / me.density, vy = me.my / me.density, vz = me.mz / me.density;
  float p_i = pressure(me, vx * vx + vy * vy + vz * vz);
  Flow flux = {0.f, 0.f, 0.f, 0.f, 0.f};

  for (int j = 0; j < NNB; j++) {
    int nb = neighbours[j * nelr + i];           // structure-of-arrays layout
    float nx = normals[(j * 3 + 0) * nelr + i];
    float ny = normals[(j * 3 + 1) * nelr + i];
    float nz = normals[(j * 3 + 2) * nelr + i];
    float nmag = sqrtf(nx * nx + ny * ny + nz * nz);
    if (nb >= 0) {
      float d = vars[nb].density;
      float mx = vars[nb].mx, my = vars[nb].my, mz = vars[nb].mz;
      float en = vars[nb].energy;
      float ux = mx / d, uy = my / d, uz = mz / d;
      float p_nb = 0.4f * (en - 0.5f * d * (ux * ux + uy * uy + uz * uz));
      float factor = -nmag * smoothing * 0.5f;
      flux.density += factor * (me.density - d);
      flux.energy += factor * (me.energy - en);
      flux.mx += factor * (me.mx - mx) + 0.5f * nx * (p_i + p_nb);
      flux.my += factor * (me.my - my) + 0.5f * ny * (p_i + p_nb);
      flux.mz += factor * (me.mz - mz) + 0.5f * nz * (p_i + p_nb);
    } else if (nb == -2) {   // far-field / wing boundary
      flux.mx += nx * p_i;
      flux.my += ny * p_i;
      flux.mz += nz * p_i;
    }
  }
  fluxes[i] = flux;
}

__global__ void time_step(int nelr, const float *step_factors, const Flow *old_vars,
                          const Flow *fluxes, Flow *vars) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr)
    return;
  float f = step_factors[i];
  vars[i].density = old_vars[i].density + f * fluxes[i].density;
  vars[i].energy = old_vars[i].energy + f * fluxes[i].energy;
  vars[i].mx = old_vars[i].mx + f * fluxes[i].mx;
  vars[i].my = old_vars[i].my + f * fluxes[i].my;
  vars[i].mz = old_vars[i].mz + f * fluxes[i].mz;
}

int main() {
  const int nelr = 97152;   // multiple of BLOCK_SIZE_FLUX
  int *d_nb;
  float *d_normals, *d_step;
  Flow *d_vars, *d_old, *d_flux;
  cudaMalloc(&d_nb, NNB * nelr * sizeof(int));
  cudaMalloc(&d_normals, 3 * NNB * nelr * sizeof(float));
  cudaMalloc(&d_step, nelr * sizeof(float));
  cudaMalloc(&d_vars, nelr * sizeof(Flow));
  cudaMalloc(&d_old, nelr * sizeof(Flow));
  cudaMalloc(&d_flux, nelr * sizeof(Flow));
  cudaMemset(d_nb, 0xff, NNB * nelr * sizeof(int));

  dim3 grid(nelr / BLOCK_SIZE_FLUX), block(BLOCK_SIZE_FLUX);
  for (int it = 0; it < 20; it++) {
    cudaMemcpy(d_old, d_vars, nelr * sizeof(Flow), cudaMemcpyDeviceToDevice);
    compute_flux<<<grid, block>>>(nelr, d_nb, d_normals, d_vars, d_flux);
    time_step<<<grid, block>>>(nelr, d_step, d_old, d_flux, d_vars);
  }
  cudaDeviceSynchronize();
  printf("cfd done\n");
  cudaFree(d_nb); cudaFree(d_normals); cudaFree(d_step);
  cudaFree(d_vars); cudaFree(d_old); cudaFree(d_flux);
  return 0;
}
