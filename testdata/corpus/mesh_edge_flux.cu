// Edge-based finite-volume residual on an unstructured mesh: one thread per
// interior face (an edge between two cells), reading both cells' state
// (float4: density, momentum x/y, energy), computing a Rusanov-like flux
// through the face and scattering it to both cells with atomicAdd. The faces'
// order decides which cells the threads of one SM share: GRAPE's CFD case.
// A negative left[] entry marks a padding thread.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__device__ inline float pressure(float4 q) {
  return 0.4f * (q.w - 0.5f * (q.y * q.y + q.z * q.z) / q.x);
}

__global__ void edge_flux(const int *__restrict__ left, const int *__restrict__ right,
                          const float2 *__restrict__ normal, const float4 *q, float4 *res,
                          int faces) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= faces)
    return;
  int a = left[t];
  if (a < 0)
    return;
  int b = right[t];
  float4 qa = q[a], qb = q[b];
  float2 nrm = normal[t];
  float pa = pressure(qa), pb = pressure(qb);
  float ua = (qa.y * nrm.x + qa.z * nrm.y) / qa.x;
  float ub = (qb.y * nrm.x + qb.z * nrm.y) / qb.x;
  float s = fmaxf(fabsf(ua) + sqrtf(1.4f * pa / qa.x), fabsf(ub) + sqrtf(1.4f * pb / qb.x));
  float4 f;
  f.x = 0.5f * (qa.x * ua + qb.x * ub) - 0.5f * s * (qb.x - qa.x);
  f.y = 0.5f * (qa.y * ua + pa * nrm.x + qb.y * ub + pb * nrm.x) - 0.5f * s * (qb.y - qa.y);
  f.z = 0.5f * (qa.z * ua + pa * nrm.y + qb.z * ub + pb * nrm.y) - 0.5f * s * (qb.z - qa.z);
  f.w = 0.5f * ((qa.w + pa) * ua + (qb.w + pb) * ub) - 0.5f * s * (qb.w - qa.w);
  atomicAdd(&res[a].x, -f.x);
  atomicAdd(&res[a].y, -f.y);
  atomicAdd(&res[a].z, -f.z);
  atomicAdd(&res[a].w, -f.w);
  atomicAdd(&res[b].x, f.x);
  atomicAdd(&res[b].y, f.y);
  atomicAdd(&res[b].z, f.z);
  atomicAdd(&res[b].w, f.w);
}

int main() {
  // A structured n x n quad mesh stored as an unstructured face list.
  const int n = 512;
  std::vector<int> left, right;
  std::vector<float2> normal;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (j + 1 < n) {
        left.push_back(i * n + j);
        right.push_back(i * n + j + 1);
        normal.push_back(make_float2(1.0f, 0.0f));
      }
      if (i + 1 < n) {
        left.push_back(i * n + j);
        right.push_back((i + 1) * n + j);
        normal.push_back(make_float2(0.0f, 1.0f));
      }
    }
  int faces = (int)left.size(), cells = n * n;
  int *d_left, *d_right;
  float2 *d_normal;
  float4 *d_q, *d_res;
  cudaMalloc(&d_left, faces * sizeof(int));
  cudaMalloc(&d_right, faces * sizeof(int));
  cudaMalloc(&d_normal, faces * sizeof(float2));
  cudaMalloc(&d_q, cells * sizeof(float4));
  cudaMalloc(&d_res, cells * sizeof(float4));
  cudaMemcpy(d_left, left.data(), faces * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_right, right.data(), faces * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_normal, normal.data(), faces * sizeof(float2), cudaMemcpyHostToDevice);
  std::vector<float4> q(cells, make_float4(1.0f, 0.1f, 0.0f, 2.5f));
  cudaMemcpy(d_q, q.data(), cells * sizeof(float4), cudaMemcpyHostToDevice);
  cudaMemset(d_res, 0, cells * sizeof(float4));
  edge_flux<<<(faces + 255) / 256, 256>>>(d_left, d_right, d_normal, d_q, d_res, faces);
  float4 r0;
  cudaMemcpy(&r0, d_res, sizeof(float4), cudaMemcpyDeviceToHost);
  printf("res[0] = %f %f %f %f\n", r0.x, r0.y, r0.z, r0.w);
  cudaFree(d_left);
  cudaFree(d_right);
  cudaFree(d_normal);
  cudaFree(d_q);
  cudaFree(d_res);
  return 0;
}
