// A switch whose cases cover every value of its operand (`x & 3` with four
// cases): clang makes its default `unreachable`. The kernel-level model must
// still run the code after it (found by an adversarial review: the walk sent
// every lane to the dead default and simulated only the first load).
#include <cuda_runtime.h>

__global__ void pick(const int *sel, const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  switch (sel[i] & 3) {
  case 0: s = a[i]; break;
  case 1: s = a[i + 1]; break;
  case 2: s = a[i + 2]; break;
  case 3: s = a[i + 3]; break;
  }
  for (int k = 0; k < 16; ++k)
    s += a[i + 32 * k];
  out[i] = s;
}
