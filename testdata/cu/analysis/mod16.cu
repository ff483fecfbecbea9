// tid % 16: every warp reads the same 16 floats (within-block locality).
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void mod16(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[threadIdx.x % 16];
}
