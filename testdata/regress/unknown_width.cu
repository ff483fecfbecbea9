// An integer argument nobody gave: where it scales the thread's position
// (the row pitch w) the addresses are unknown per thread and must invent no
// reuse; where it only shifts the whole footprint (off) reuse stays real.
__global__ void scale2d(const float* in, float* out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * w + x] = 2.0f * in[y * w + x];
}

__global__ void pairs(const float* in, float* out, int off) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + off] + in[i + off + 1];
}

// Different multiples of one unknown: rows 0..7 of a column walk are at
// unknown distances from each other, so no load may reuse another's lines.
__global__ void column_walk(const float* a, float* out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int j = 0; j < 8; ++j) s += a[j * n + c];
  out[c] = s;
}

// An unknown that is not a linear term (a mask): unknown per thread.
__global__ void masked(const float* a, float* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = a[t & n];
}

// An unknown scaling the block index only: the warps of one block still read
// the same 128 bytes, whatever n is.
__global__ void block_row(const float* a, float* out, int n) {
  out[blockIdx.x * 256 + threadIdx.x] = a[blockIdx.x * n + (threadIdx.x & 31)];
}
