// Issue 19, fact 2: a table every warp reads whole through the read-only
// path (const __restrict__ -> ld.global.nc), beside one coalesced plain load.
__global__ void table_sum(const float *__restrict__ table, const float *a,
                          float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 32; ++k)
    s += table[k];
  out[i] = s * a[i];
}
