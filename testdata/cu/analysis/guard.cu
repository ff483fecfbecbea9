// A bounds guard: only threads with i < n execute the load.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void guard(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i];
}
