// Issue 19, fact 1: two loads of the same 32 B sectors, 64 B apart per
// thread. With 32 B sector fills (Maxwell/Pascal L1/TEX) caching the first
// halves the traffic; with 128 B line fills it would not.
__global__ void pair(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[16 * i] + a[16 * i + 1];
}
