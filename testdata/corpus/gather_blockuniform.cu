// Segmented gather where the source address depends on a block-uniform
// value (a per-block offset read from global memory), plus a kernel whose
// parameters come from a __constant__ table.  One launch goes through
// cudaLaunchKernel with explicit dim3 shapes.
#include <cuda_runtime.h>
#include <cstdio>

struct LayerParams {
  int offset;
  int stride;
  float scale;
  float bias;
};

__constant__ LayerParams c_layers[8];
__constant__ int c_num_layers;

__global__ void gather_segments(const int *offsets, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int base = offsets[blockIdx.x];
  out[i] = in[base + threadIdx.x];
}

__global__ void apply_layer(const float *__restrict__ in, float *__restrict__ out, int n,
                            int layer) {
  LayerParams p = c_layers[layer];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && layer < c_num_layers)
    out[i] = p.scale * in[p.offset + i * p.stride] + p.bias;
}

// Row scale read once per block: blockIdx.y selects the row.
__global__ void scale_rows(const float *row_scale, const float *in, float *out, int cols) {
  float s = row_scale[blockIdx.y];
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols)
    out[(size_t)blockIdx.y * cols + c] = s * in[(size_t)blockIdx.y * cols + c];
}

int main() {
  const int segs = 4096, seg_len = 256, n = segs * seg_len, rows = 1024, cols = 4096;
  int *d_off;
  float *d_in, *d_out, *d_scale;
  cudaMalloc(&d_off, segs * sizeof(int));
  cudaMalloc(&d_in, 2 * n * sizeof(float));
  cudaMalloc(&d_out, 2 * n * sizeof(float));
  cudaMalloc(&d_scale, rows * sizeof(float));
  cudaMemset(d_off, 0, segs * sizeof(int));

  LayerParams h_layers[8];
  for (int l = 0; l < 8; l++) h_layers[l] = {l * 1024, 1, 0.5f, 0.1f * l};
  int h_num = 8;
  cudaMemcpyToSymbol(c_layers, h_layers, sizeof(h_layers));
  cudaMemcpyToSymbol(c_num_layers, &h_num, sizeof(int));

  dim3 grid(segs), block(seg_len);
  void *args[] = {&d_off, &d_in, &d_out};
  cudaLaunchKernel((const void *)gather_segments, grid, block, args, 0, 0);

  for (int l = 0; l < h_num; l++)
    apply_layer<<<n / 512, 512>>>(d_in, d_out, n, l);

  dim3 rgrid((cols + 127) / 128, rows);
  scale_rows<<<rgrid, 128>>>(d_scale, d_in, d_out, cols);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(d_off); cudaFree(d_in); cudaFree(d_out); cudaFree(d_scale);
  return 0;
}
