// A device function called through a pointer (here with a shared-memory
// argument) has callers the analysis cannot see: its loads are left alone.
typedef float (*Getter)(const float *, int);

__device__ __noinline__ float get(const float *p, int i) { return p[i]; }
__device__ Getter table[1] = {get};

__global__ void indirect_call(const float *a, float *out, int sel) {
  __shared__ float s[256];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  Getter f = sel ? table[0] : get;
  out[threadIdx.x] = f(s, threadIdx.x);
}
