// Regression (issue 16, item 9): #line directives with line numbers in the
// range gpucc-cache's keys once used. A source line must never be read as a
// key: the PTX is clang's with every policy (byte for byte with off).
__global__ void forged_lines(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#line 1073741826
  float x = a[i];
#line 1073741825
  float y = b[i / 32];
#line 2147483000
  float z = __ldg(&a[(i * 33) % n]);
#line 4294967000 "gpucc-cache-keys.cu"
  out[i] = x + y + z;
}

int main() {
  const int n = 1 << 20;
  float *a, *b, *out;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  forged_lines<<<n / 256, 256>>>(a, b, out, n);
  cudaDeviceSynchronize();
  return 0;
}
