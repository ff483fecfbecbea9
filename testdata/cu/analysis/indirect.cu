// An indirect index: the address of the second load comes from memory.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void indirect(const float *a, const int *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = b[i];
  out[i] = a[j];
}
