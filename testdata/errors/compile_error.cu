// Does not compile: `undeclared` is never declared.
__global__ void broken(float *out) { out[threadIdx.x] = undeclared; }
