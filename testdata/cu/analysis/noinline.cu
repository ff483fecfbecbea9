// Device functions kept out of line: their loads are analysed on their own,
// with the block of the kernel that calls them. `get` indexes with one of
// its own arguments, which the analysis cannot see.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__device__ __noinline__ float get(const float *p, int i) { return p[i]; }

__device__ __noinline__ float row(const float *p) { return p[threadIdx.x % 16]; }

__global__ void noinline_kernel(const float *a, const float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = get(a, i) + row(b);
}
