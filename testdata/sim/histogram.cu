// histogram: NBINS-bin histogram of NELEM input ints. Each thread walks the input with a grid
// stride (the data loads are streamed, each element read once), maps each value through a small
// 256-entry lookup table (bin_of[value & 255], the same lines reused by every thread on the SM) and
// adds its weight into the global bins with integer atomicAdd. Integer results: the same in any order.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define NELEM 32768
#define NBINS 1024
#define LUT 256
#define BLOCK 128
#define BLOCKS 64

static uint32_t lcg_state = 13579u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void histo(const unsigned *data, const int *bin_of, unsigned *bins, int n, int nbins) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned v = data[i];
    int bin = (bin_of[v & (LUT - 1)] + (int)(v >> 8)) % nbins;
    atomicAdd(&bins[bin], 1u + (v >> 28));
  }
}

int main() {
  const int n = NELEM, nbins = NBINS;
  unsigned *data = (unsigned *)malloc(n * sizeof(unsigned));
  for (int i = 0; i < n; i++) data[i] = lcg();
  int bin_of[LUT];
  for (int i = 0; i < LUT; i++) bin_of[i] = (int)(lcg() % NBINS);
  unsigned *d_data, *d_bins;
  int *d_bin_of;
  cudaMalloc(&d_data, n * sizeof(unsigned));
  cudaMalloc(&d_bin_of, LUT * sizeof(int));
  cudaMalloc(&d_bins, nbins * sizeof(unsigned));
  cudaMemcpy(d_data, data, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemcpy(d_bin_of, bin_of, LUT * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_bins, 0, nbins * sizeof(unsigned));
  histo<<<BLOCKS, BLOCK>>>(d_data, d_bin_of, d_bins, n, nbins);
  unsigned *bins = (unsigned *)malloc(nbins * sizeof(unsigned));
  cudaMemcpy(bins, d_bins, nbins * sizeof(unsigned), cudaMemcpyDeviceToHost);
  // Host reference.
  unsigned *ref = (unsigned *)calloc(nbins, sizeof(unsigned));
  for (int i = 0; i < n; i++) {
    unsigned v = data[i];
    ref[(bin_of[v & (LUT - 1)] + (int)(v >> 8)) % nbins] += 1u + (v >> 28);
  }
  uint32_t check = 0;
  unsigned long long total = 0;
  int bad = 0, maxbin = 0;
  for (int b = 0; b < nbins; b++) {
    check = check * 31u + bins[b];
    total += bins[b];
    if (bins[b] != ref[b]) bad++;
    if (bins[b] > bins[maxbin]) maxbin = b;
  }
  printf("RESULT histogram elems=%d bins=%d lut=%d grid=%d block=%d\n", n, nbins, LUT, BLOCKS, BLOCK);
  printf("RESULT checksum=%08x total=%llu maxbin=%d (%u) host_mismatches=%d\n", check, total, maxbin,
         bins[maxbin], bad);
  free(data); free(bins); free(ref);
  cudaFree(d_data); cudaFree(d_bin_of); cudaFree(d_bins);
  return bad ? 1 : 0;
}
