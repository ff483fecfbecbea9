// Kernel arguments the host code passes (tests/launch_args.rs): each kernel
// is launched with 32 blocks of 128 threads, and its integer arguments are
// what main passes, when every launch passes the same constant.

// Launched once with constants: n = 4096 and stride = 2 are used.
__global__ void scale(const float *in, float *out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i * stride];
}

// Launched twice, with w = 64 and w = 128: w stays unknown.
__global__ void twice(const float *in, float *out, int w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * w];
}

// Launched with a value known only at run time: m stays unknown.
__global__ void runtime(const float *in, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    out[i] = in[i];
}

// Launched with step = 4; the test's --kernel-arg=step=8 wins.
__global__ void overridden(const float *in, float *out, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * step];
}

int main(int argc, char **argv) {
  float *in, *out;
  cudaMalloc(&in, 1 << 24);
  cudaMalloc(&out, 1 << 24);
  const int n = 4096;
  scale<<<32, 128>>>(in, out, n, 2);
  twice<<<32, 128>>>(in, out, 64);
  twice<<<32, 128>>>(in, out, 128);
  runtime<<<32, 128>>>(in, out, argc * 32);
  overridden<<<32, 128>>>(in, out, 4);
  cudaDeviceSynchronize();
  return 0;
}
