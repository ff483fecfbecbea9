// Coalesced loads: consecutive threads read consecutive elements, so every
// warp reads whole contiguous runs (within-warp locality only).
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void coalesced(const int *a, const double *b, int *out, double *out2) {
  out[blockIdx.x * 512 + threadIdx.x] =
      a[blockIdx.x * 512 + threadIdx.x];
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  out2[j] = b[j];
}
