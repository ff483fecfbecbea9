// Block-uniform values in addresses (issue 6 §4): a value read from a
// block-uniform address, an integer argument nobody gave, fields of a struct
// passed by value. They shift a block's addresses without changing their
// pattern; only a per-thread unknown makes an address unknown.
// Written for gpucc-cache's analysis tests (tests/analysis.rs).
struct Rows { const float *data; int pitch; };

__global__ void segment(const int *offsets, const float *in, float *out) {
  int base = offsets[blockIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[base + threadIdx.x];
}

__global__ void row_of(const float *in, float *out, int n) {
  int i = blockIdx.y * n + threadIdx.x;
  out[i] = in[i];
}

__global__ void stride_of(const float *in, float *out, int n) {
  out[threadIdx.x] = in[threadIdx.x * n];
}

__global__ void field(Rows r, float *out) {
  out[threadIdx.x] = r.data[blockIdx.x * r.pitch + threadIdx.x];
}

__global__ void per_thread(const int *idx, const float *in, float *out) {
  out[threadIdx.x] = in[idx[threadIdx.x]];
}

__global__ void flag(volatile int *offsets, const float *in, float *out) {
  out[threadIdx.x] = in[offsets[0] + threadIdx.x];
}
