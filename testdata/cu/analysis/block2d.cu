// A 16x16 block: a row read by every row of threads, the block's tile in
// row-major order, and the same tile read column-wise (transposed).
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void block2d(const float *a, const float *b, const float *c, float *out) {
  int t = threadIdx.y * 16 + threadIdx.x;
  float x = a[threadIdx.x];
  float y = b[threadIdx.y * 16 + threadIdx.x];
  float z = c[threadIdx.x * 16 + threadIdx.y];
  out[blockIdx.x * 256 + t] = x + y + z;
}
