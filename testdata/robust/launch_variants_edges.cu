// Edges of the launch-variant rule (analysis/launch.rs, model/sm_model.rs),
// each found by an adversarial review:
// - `taps`: the first launch runs its loop once, the second nine times; the
//   second's walk costs far more than the first's and must still get a
//   budget of its own (it was cut at twice the first's cost, no scenario
//   made, and the unrolled loop's loads left undecided);
// - `pick`: in[i * s] with s = 16, then s = 0 (every thread reads in[0]):
//   read once in the first launch, reused by all in the second, so the
//   read-once rule (which looks at one trace) must not bypass it;
// - `stepped`: launched from a loop the optimiser unrolls, three launches
//   at one source line: which values go together is not known, so no value
//   is taken and no launch is a scenario.
// tests/robust_decisions.rs checks them on the GTX480 description.
#include <cuda_runtime.h>

__global__ void taps(const float *in, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < n; k++) s += in[i + k] * w[k];
  out[i] = s;
}

__global__ void pick(const float *in, float *out, int s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * s];
}

__global__ void stepped(const float *in, float *out, int a, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * a + b];
}

int main() {
  float *x, *y, *z;
  cudaMalloc(&x, 1 << 24);
  cudaMalloc(&y, 1 << 24);
  cudaMalloc(&z, 1 << 24);
  taps<<<64, 128>>>(x, y, z, 1);
  taps<<<64, 128>>>(x, y, z, 9);
  pick<<<64, 128>>>(x, z, 16);
  pick<<<64, 128>>>(x, z, 0);
  for (int j = 0; j < 3; j++) stepped<<<64, 128>>>(x, z, 3 - j, 1000 * j);
  cudaDeviceSynchronize();
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  return 0;
}
