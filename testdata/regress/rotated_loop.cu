// At -O3 clang rotates the loop: the test i < n before the first iteration
// guards the body, and only n threads ever enter it.
__global__ void copy_strided(const float* a, float* b, int n) {
  for (int i = threadIdx.x; i < n; i += 256) b[i] = a[i];
}
