// A fully unrolled loop: four loads on one source line, 0, 32, 64 and 96
// bytes past the thread's element.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void unrolled(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    sum += a[k * 8 + i];
  out[i] = sum;
}
