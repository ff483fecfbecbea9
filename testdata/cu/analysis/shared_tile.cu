// A shared-memory tile: the global load fills it, the read back from the
// tile is a shared load and must be left alone.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void shared_tile(const float *a, float *out) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = a[i];
  __syncthreads();
  out[i] = tile[255 - threadIdx.x];
}
