// Read-only data through `const __restrict__` pointers: the backend reads these
// with ld.global.nc; a load that bypasses L1 must keep the .nc path.
__global__ void k(const float *__restrict__ a, const float4 *__restrict__ b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = b[i];
  out[i] = a[i] + v.x + v.w;
}
