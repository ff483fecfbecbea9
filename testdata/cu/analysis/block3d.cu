// A 3-D block (8x4x4 in the tests): the linear thread id from blockDim, one
// float per z-slice, and one 8x4 plane read by every slice.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void block3d(const float *a, const float *b, const float *c, float *out) {
  int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  float x = a[t];
  float y = b[threadIdx.z];
  float z = c[threadIdx.y * 8 + threadIdx.x];
  out[blockIdx.x * blockDim.x * blockDim.y * blockDim.z + t] = x + y + z;
}
