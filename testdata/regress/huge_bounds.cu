// __launch_bounds__ beyond CUDA's 1024 threads per block: ignored, with a warning.
__global__ void __launch_bounds__(2000000000) huge_bounds(const float *a, float *out) { out[threadIdx.x] = a[threadIdx.x]; }
