// A load after a counted loop runs on every thread: the loop's exit test is
// not a guard of the load.
__global__ void __launch_bounds__(256) loop_exit(const float *a, const float *b, float *out) {
  float acc = 0;
#pragma unroll 1
  for (int j = 0; j < 100; ++j)
    acc += b[j * 256 + threadIdx.x];
  out[threadIdx.x] = acc + a[threadIdx.x % 16];
}
