// A __device__ array read by consecutive threads. The linker places a
// global at any multiple of its alignment (4 bytes for float), so the
// analysis may not assume the 256-byte alignment cudaMalloc gives.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__device__ float table[1024];

__global__ void read_table(float *out) {
  out[threadIdx.x] = table[threadIdx.x];
}
