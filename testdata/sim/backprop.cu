// backprop: one fully connected layer in the spirit of Rodinia's backprop. Forward: each thread one
// output neuron j, out[j] = sigmoid(b[j] + sum_k in[k] * w[k * NOUT + j]) with expf; the in[k] load
// is the same address for every thread (reused by the whole SM), the w loads are coalesced rows
// streamed once. Backward: a 2-D kernel (16x16 blocks) updating w[k][j] += eta * delta[j] * in[k]
// plus momentum from the previous change; delta[j] is reused along k, in[k] along j.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define NIN 32
#define NOUT 4096
#define BLOCK 64
#define TILE 16

static uint32_t lcg_state = 8675309u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float lcg_sym() { return ((float)(lcg() >> 8) * (1.0f / 16777216.0f)) - 0.5f; }

__global__ void forward(const float *in, const float *w, const float *bias, float *out, int nin,
                        int nout) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nout) return;
  float s = bias[j];
  for (int k = 0; k < nin; k++) s += in[k] * w[k * nout + j];
  out[j] = 1.0f / (1.0f + expf(-s));
}

__global__ void delta_out(const float *out, const float *target, float *delta, int nout) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nout) return;
  float o = out[j];
  delta[j] = o * (1.0f - o) * (target[j] - o);
}

__global__ void update(float *w, float *oldw, const float *delta, const float *in, int nin, int nout,
                       float eta, float momentum) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int k = blockIdx.y * blockDim.y + threadIdx.y;
  if (j >= nout || k >= nin) return;
  int idx = k * nout + j;
  float change = eta * delta[j] * in[k] + momentum * oldw[idx];
  w[idx] += change;
  oldw[idx] = change;
}

int main() {
  const int nin = NIN, nout = NOUT;
  float *in = (float *)malloc(nin * sizeof(float));
  float *w = (float *)malloc(nin * nout * sizeof(float));
  float *bias = (float *)malloc(nout * sizeof(float));
  float *target = (float *)malloc(nout * sizeof(float));
  for (int k = 0; k < nin; k++) in[k] = lcg_sym() * 2.0f;
  for (int i = 0; i < nin * nout; i++) w[i] = lcg_sym() * 0.5f;
  for (int j = 0; j < nout; j++) { bias[j] = lcg_sym() * 0.1f; target[j] = (lcg() & 1) ? 0.9f : 0.1f; }
  float *d_in, *d_w, *d_oldw, *d_bias, *d_out, *d_target, *d_delta;
  cudaMalloc(&d_in, nin * sizeof(float));
  cudaMalloc(&d_w, nin * nout * sizeof(float));
  cudaMalloc(&d_oldw, nin * nout * sizeof(float));
  cudaMalloc(&d_bias, nout * sizeof(float));
  cudaMalloc(&d_out, nout * sizeof(float));
  cudaMalloc(&d_target, nout * sizeof(float));
  cudaMalloc(&d_delta, nout * sizeof(float));
  cudaMemcpy(d_in, in, nin * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, w, nin * nout * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_oldw, 0, nin * nout * sizeof(float));
  cudaMemcpy(d_bias, bias, nout * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_target, target, nout * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = (nout + BLOCK - 1) / BLOCK;
  forward<<<blocks, BLOCK>>>(d_in, d_w, d_bias, d_out, nin, nout);
  delta_out<<<blocks, BLOCK>>>(d_out, d_target, d_delta, nout);
  dim3 ublock(TILE, TILE);
  dim3 ugrid((nout + TILE - 1) / TILE, (nin + TILE - 1) / TILE);
  update<<<ugrid, ublock>>>(d_w, d_oldw, d_delta, d_in, nin, nout, 0.3f, 0.3f);
  forward<<<blocks, BLOCK>>>(d_in, d_w, d_bias, d_out, nin, nout);
  float *out = (float *)malloc(nout * sizeof(float));
  cudaMemcpy(out, d_out, nout * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(w, d_w, nin * nout * sizeof(float), cudaMemcpyDeviceToHost);
  uint32_t bits = 0;
  double osum = 0.0, err = 0.0, wsum = 0.0;
  for (int j = 0; j < nout; j++) {
    uint32_t b; memcpy(&b, &out[j], 4);
    bits = bits * 31u + b;
    osum += out[j];
    err += (target[j] - out[j]) * (target[j] - out[j]);
  }
  for (int i = 0; i < nin * nout; i++) {
    uint32_t b; memcpy(&b, &w[i], 4);
    bits = bits * 31u + b;
    wsum += w[i];
  }
  printf("RESULT backprop in=%d out=%d forward blocks=%d x %d, update grid=%dx%d block=%dx%d\n", nin,
         nout, blocks, BLOCK, ugrid.x, ugrid.y, TILE, TILE);
  printf("RESULT checksum=%08x outsum=%.6f sqerr=%.6f wsum=%.6f\n", bits, osum, err, wsum);
  free(in); free(w); free(bias); free(target); free(out);
  cudaFree(d_in); cudaFree(d_w); cudaFree(d_oldw); cudaFree(d_bias); cudaFree(d_out);
  cudaFree(d_target); cudaFree(d_delta);
  return 0;
}
