// A non-inlined device function called only with global pointers: its load
// is global in whole-program compilation, unknown with -fgpu-rdc (another
// translation unit may call it with a shared pointer).
__device__ __noinline__ float get(const float *p, int i) { return p[i]; }

__global__ void callee(const float *a, float *out) { out[threadIdx.x] = get(a, threadIdx.x); }
