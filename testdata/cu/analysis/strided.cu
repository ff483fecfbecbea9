// Strided loads: every thread a word 136 bytes after its neighbour's
// (scattered), and a stride of two floats (half of every segment unused).
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void strided(const float *a, const float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[34 * i];
  float y = b[2 * i];
  out[i] = x + y;
}
