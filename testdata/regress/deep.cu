// A 4000-step unrolled chain: the analysis gives up on it (unknown) instead
// of recursing 4000 deep or taking exponential time.
__global__ void deep(const float *a, float *out, int s) {
  int idx = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 4000; ++i)
    idx = (idx ^ s) + i;
  out[threadIdx.x] = a[idx & 1023];
}
