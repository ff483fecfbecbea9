// Back-propagation network, forward pass of one layer.  16x16 thread blocks:
// each block multiplies a 16-row slice of the input by the weight matrix and
// reduces the 16 partial products per hidden unit in shared memory.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BLOCK_SIZE 16
#define HIDDEN 16

__global__ void layerforward(const float *input, float *output_hidden_partial,
                             const float *input_weights, int in, int hid) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * BLOCK_SIZE * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = BLOCK_SIZE * by + ty + 1;

  __shared__ float input_node[BLOCK_SIZE];
  __shared__ float weight_matrix[BLOCK_SIZE][BLOCK_SIZE];

  if (tx == 0)
    input_node[ty] = input[index_in];
  __syncthreads();

  weight_matrix[ty][tx] = input_weights[index] * input_node[ty];
  __syncthreads();

  for (int stride = 2; stride <= BLOCK_SIZE; stride *= 2) {
    if (ty % stride == 0)
      weight_matrix[ty][tx] += weight_matrix[ty + stride / 2][tx];
    __syncthreads();
  }
  if (tx == 0)
    output_hidden_partial[by * hid + ty] = weight_matrix[tx][ty];
}

__global__ void adjust_weights(const float *delta, int hid, const float *ly, int in,
                               float *w, float *oldw) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * BLOCK_SIZE * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_y = BLOCK_SIZE * by + ty + 1;
  int index_x = tx + 1;
  const float eta = 0.3f, momentum = 0.3f;
  float dw = eta * delta[index_x] * ly[index_y] + momentum * oldw[index];
  w[index] += dw;
  oldw[index] = dw;
}

int main(int argc, char **argv) {
  int in = argc > 1 ? atoi(argv[1]) : 65536;   // must be a multiple of 16
  int hid = HIDDEN;
  int num_blocks = in / BLOCK_SIZE;
  size_t wbytes = (size_t)(in + 1) * (hid + 1) * sizeof(float);

  float *d_input, *d_weights, *d_prev, *d_partial, *d_delta;
  cudaMalloc((void **)&d_input, (in + 1) * sizeof(float));
  cudaMalloc((void **)&d_weights, wbytes);
  cudaMalloc((void **)&d_prev, wbytes);
  cudaMalloc((void **)&d_partial, num_blocks * hid * sizeof(float));
  cudaMalloc((void **)&d_delta, (hid + 1) * sizeof(float));
  cudaMemset(d_weights, 0, wbytes);
  cudaMemset(d_prev, 0, wbytes);

  dim3 grid(1, num_blocks);
  dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
  layerforward<<<grid, threads>>>(d_input, d_partial, d_weights, in, hid);
  adjust_weights<<<grid, threads>>>(d_delta, hid, d_input, in, d_weights, d_prev);
  cudaDeviceSynchronize();
  printf("backprop layer done\n");
  cudaFree(d_input); cudaFree(d_weights); cudaFree(d_prev);
  cudaFree(d_partial); cudaFree(d_delta);
  return 0;
}
