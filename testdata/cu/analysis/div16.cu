// tid / 16: sixteen consecutive threads share one float; the block reads
// 16 floats, each warp two of them (within-block locality).
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void div16(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[threadIdx.x / 16];
}
