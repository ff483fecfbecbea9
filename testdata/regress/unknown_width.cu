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
