// sim-data: gpucc-cache "$PROGRAM" -o gen && ./gen --dump-kernel-data "$WORK"
// sim-data-flags: --kernel-data=idx=$WORK/idx.i32 --kernel-data=offsets=$WORK/offsets.i32
// embedding_bag: NBAGS bags of BAGSZ indices each; every bag sums BAGSZ rows of a TABLE x DIM
// float table, gathered by an index array. One warp-wide group per bag: DIM/4 threads, each loads a
// float4 of every gathered row (a row = DIM*4 = 256 B: two lines per row). Indices are skewed
// (a hot set of 64 rows gets half the lookups), so rows repeat across bags.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "../sim/kernel_data_dump.h"

#define TABLE 2048
#define DIM 64
#define NBAGS 512
#define BAGSZ 12
#define BLOCK 128            // 8 bags per block (16 threads each)

static uint32_t lcg_state = 31337u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void embag(const float4 *table, const int *idx, const int *offsets, float4 *out, int nbags) {
  const int vec = DIM / 4;
  int g = (blockIdx.x * blockDim.x + threadIdx.x) / vec;
  int lane = threadIdx.x % vec;
  if (g >= nbags) return;
  int beg = offsets[g], end = offsets[g + 1];
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int i = beg; i < end; i++) {
    int row = idx[i];
    float4 v = table[row * vec + lane];
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
  }
  out[g * vec + lane] = acc;
}

int main(int argc, char **argv) {
  const int nidx = NBAGS * BAGSZ;
  float *tab = (float *)malloc(sizeof(float) * TABLE * DIM);
  for (int i = 0; i < TABLE * DIM; i++) tab[i] = (float)((int)(lcg() % 129) - 64) / 64.0f;
  int *idx = (int *)malloc(sizeof(int) * nidx);
  int *off = (int *)malloc(sizeof(int) * (NBAGS + 1));
  for (int i = 0; i < nidx; i++) idx[i] = (lcg() & 1) ? (int)((lcg() >> 8) % 64) : (int)((lcg() >> 8) % TABLE);
  for (int b = 0; b <= NBAGS; b++) off[b] = b * BAGSZ;
  // --dump-kernel-data DIR: write the index arrays the kernel reads (for the driver's --kernel-data,
  // bench/sim/run --with-data) and stop before any CUDA call.
  if (dump_kernel_data_asked(argc, argv)) {
    dump(argv[2], "idx.i32", idx, sizeof(int) * nidx);
    dump(argv[2], "offsets.i32", off, sizeof(int) * (NBAGS + 1));
    return 0;
  }
  float4 *dtab, *dout; int *didx, *doff;
  cudaMalloc(&dtab, sizeof(float) * TABLE * DIM);
  cudaMalloc(&didx, sizeof(int) * nidx);
  cudaMalloc(&doff, sizeof(int) * (NBAGS + 1));
  cudaMalloc(&dout, sizeof(float) * NBAGS * DIM);
  cudaMemcpy(dtab, tab, sizeof(float) * TABLE * DIM, cudaMemcpyHostToDevice);
  cudaMemcpy(didx, idx, sizeof(int) * nidx, cudaMemcpyHostToDevice);
  cudaMemcpy(doff, off, sizeof(int) * (NBAGS + 1), cudaMemcpyHostToDevice);
  embag<<<(NBAGS * (DIM / 4) + BLOCK - 1) / BLOCK, BLOCK>>>(dtab, didx, doff, dout, NBAGS);
  float *out = (float *)malloc(sizeof(float) * NBAGS * DIM);
  cudaMemcpy(out, dout, sizeof(float) * NBAGS * DIM, cudaMemcpyDeviceToHost);
  int bad = 0; double sum = 0; uint32_t check = 0;
  for (int b = 0; b < NBAGS; b++)
    for (int d = 0; d < DIM; d++) {
      float ref = 0.0f;
      for (int i = off[b]; i < off[b + 1]; i++) ref += tab[idx[i] * DIM + d];
      float v = out[b * DIM + d];
      if (v != ref) bad++;
      sum += v;
      uint32_t bits; memcpy(&bits, &v, 4); check = check * 31u + bits;
    }
  printf("RESULT embedding_bag table=%d dim=%d bags=%d bagsz=%d\n", TABLE, DIM, NBAGS, BAGSZ);
  printf("RESULT checksum=%08x sum=%.5f host_mismatches=%d\n", check, sum, bad);
  cudaFree(dtab); cudaFree(didx); cudaFree(doff); cudaFree(dout); free(tab); free(idx); free(off); free(out);
  return bad ? 1 : 0;
}
