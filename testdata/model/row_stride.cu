// Issue 19, fact 8: each thread sums the first 32 floats (one 128 B line)
// of its own row of a matrix of 1024-float (4 KB) rows. Rows are 32 lines
// apart, so with a linear set index (line mod sets) and a power-of-two set
// count up to 32 every row falls in set 0.
__global__ void rows(const float *m, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < 32; ++k)
    s += m[r * 1024 + k];
  out[r] = s;
}
