// The sample kernel of the README: one load of each locality class the
// ICS'12 paper names, in a kernel launched with 256-thread blocks.
#define N 256

__global__ void __launch_bounds__(N) sample(const float *coalesced, const float *table, const float *strided,
                                            const int *indices, const float *gathered, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a = coalesced[i];               // within-warp: coalescing already merges it
  float b = table[threadIdx.x % 16];    // within-block: every warp reads the same 64 bytes
  float c = strided[34 * i];            // scattered: one 4-byte word per 136-byte stride
  float d = gathered[indices[i]];       // indirect: the address comes from memory
  out[i] = a + b + c + d;
}
