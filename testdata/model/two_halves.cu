// Issue 19, fact 9: every block reads the same 512 B; on Maxwell/Pascal
// consecutive co-resident blocks sit on different halves of the SM, each
// with its own L1/TEX unit, so they share nothing.
__global__ void same(const float *a, float *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = a[threadIdx.x];
}
