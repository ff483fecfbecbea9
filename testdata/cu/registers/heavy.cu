// Issue 19: a kernel whose register count, not the estimate of 32, sets its
// occupancy. Each thread keeps 32 doubles live (64 registers for the values
// alone) to form every pairwise product, so ptxas allocates well above 32;
// __launch_bounds__(256) gives the model its block size and still lets
// ptxas use up to 255 registers (65,536 / 256 threads).
__global__ void __launch_bounds__(256)
    heavy(const double *__restrict__ a, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v[32];
#pragma unroll
  for (int k = 0; k < 32; ++k)
    v[k] = a[i + k * n];
  double s = 0.0;
#pragma unroll
  for (int k = 0; k < 32; ++k)
#pragma unroll
    for (int j = k + 1; j < 32; ++j)
      s += v[k] * v[j];
  out[i] = s;
}
