// Regression (issue 16, item 9): a #line directive naming the file that
// carries gpucc-cache's keys. Its lines would read as keys, so the driver
// refuses the source with a clear error instead of guessing (an input that
// must fail, so it lives in errors/, which the PTX-equality sweep skips).
__global__ void reserved(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#line 1073741826 "gpucc-cache-keys"
  if (i < n)
    out[i] = a[i];
}
