// kmeans: assign NPTS 8-D points (two float4 per point) to the nearest of K centroids. Every thread
// reads the whole K x 8 centroid table (the same lines for all threads: reuse across the SM) and
// streams its own point once. The host recomputes the centroids from the assignment (in point
// order, so the float sums are fixed) and relaunches, ITERS iterations.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define NPTS 8192
#define K 16
#define BLOCK 128
#define ITERS 2

struct Point8 { float4 lo, hi; };

static uint32_t lcg_state = 5150u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float lcg_unit() { return (float)(lcg() >> 8) * (1.0f / 16777216.0f); }

__device__ float dist2(float4 a, float4 b) {
  float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z, dw = a.w - b.w;
  return dx * dx + dy * dy + dz * dz + dw * dw;
}

__global__ void assign(const Point8 *pts, const Point8 *centroids, int *member, int *moved, int n,
                       int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Point8 p = pts[i];
  int best = 0;
  float best_d = 3.4e38f;
  for (int c = 0; c < k; c++) {
    float d = dist2(p.lo, centroids[c].lo) + dist2(p.hi, centroids[c].hi);
    if (d < best_d) { best_d = d; best = c; }
  }
  if (member[i] != best) { member[i] = best; atomicAdd(moved, 1); }
}

int main() {
  const int n = NPTS, k = K;
  Point8 *pts = (Point8 *)malloc(n * sizeof(Point8));
  Point8 cent[K];
  // Points around K hidden centres.
  float centre[K][8];
  for (int c = 0; c < K; c++) for (int d = 0; d < 8; d++) centre[c][d] = lcg_unit() * 10.0f;
  for (int i = 0; i < n; i++) {
    int c = (int)(lcg() % K);
    float v[8];
    for (int d = 0; d < 8; d++) v[d] = centre[c][d] + (lcg_unit() - 0.5f) * 4.0f;
    pts[i].lo = make_float4(v[0], v[1], v[2], v[3]);
    pts[i].hi = make_float4(v[4], v[5], v[6], v[7]);
  }
  for (int c = 0; c < K; c++) cent[c] = pts[c * (n / K)];
  int *member = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) member[i] = -1;

  Point8 *d_pts, *d_cent;
  int *d_member, *d_moved;
  cudaMalloc(&d_pts, n * sizeof(Point8));
  cudaMalloc(&d_cent, K * sizeof(Point8));
  cudaMalloc(&d_member, n * sizeof(int));
  cudaMalloc(&d_moved, sizeof(int));
  cudaMemcpy(d_pts, pts, n * sizeof(Point8), cudaMemcpyHostToDevice);
  cudaMemcpy(d_member, member, n * sizeof(int), cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  for (int it = 0; it < ITERS; it++) {
    int moved = 0;
    cudaMemcpy(d_cent, cent, K * sizeof(Point8), cudaMemcpyHostToDevice);
    cudaMemcpy(d_moved, &moved, sizeof(int), cudaMemcpyHostToDevice);
    assign<<<blocks, BLOCK>>>(d_pts, d_cent, d_member, d_moved, n, k);
    cudaMemcpy(member, d_member, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&moved, d_moved, sizeof(int), cudaMemcpyDeviceToHost);
    // Host update step, summed in point order.
    double sum[K][8];
    int count[K];
    memset(sum, 0, sizeof(sum));
    memset(count, 0, sizeof(count));
    for (int i = 0; i < n; i++) {
      int c = member[i];
      const float *v = &pts[i].lo.x;
      for (int d = 0; d < 4; d++) sum[c][d] += v[d];
      v = &pts[i].hi.x;
      for (int d = 0; d < 4; d++) sum[c][4 + d] += v[d];
      count[c]++;
    }
    for (int c = 0; c < K; c++) {
      if (!count[c]) continue;
      float v[8];
      for (int d = 0; d < 8; d++) v[d] = (float)(sum[c][d] / count[c]);
      cent[c].lo = make_float4(v[0], v[1], v[2], v[3]);
      cent[c].hi = make_float4(v[4], v[5], v[6], v[7]);
    }
    printf("RESULT iter %d moved=%d\n", it, moved);
  }
  uint32_t check = 0;
  for (int i = 0; i < n; i++) check = check * 31u + (uint32_t)member[i];
  double csum = 0.0;
  for (int c = 0; c < K; c++) csum += cent[c].lo.x + cent[c].lo.y + cent[c].hi.z + cent[c].hi.w;
  printf("RESULT kmeans points=%d k=%d dims=8 blocks=%d block=%d iters=%d\n", n, k, blocks, BLOCK, ITERS);
  printf("RESULT checksum=%08x centroidsum=%.6f\n", check, csum);
  free(pts); free(member);
  cudaFree(d_pts); cudaFree(d_cent); cudaFree(d_member); cudaFree(d_moved);
  return 0;
}
