// Loops kept rolled: the address is a recurrence and its first iteration
// decides. The second loop starts 8 floats (32 bytes) into the array.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
__global__ void loop(const float *a, const float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
#pragma unroll 1
  for (int k = 0; k < 4; ++k)
    sum += a[k * blockDim.x * gridDim.x + i];
#pragma unroll 1
  for (int k = 1; k < 5; ++k)
    sum += b[k * 8 + i];
  out[i] = sum;
}
