// sim-prepare: gpucc-cache partition gen:mesh2d:64x64 --block-dim=64 --out="$WORK/grape"
// sim-validate: -DGRAPE_ORDER="$WORK/grape/vertex_order.u32"
// sim-data: gpucc-cache "-DGRAPE_ORDER=\"$WORK/grape/vertex_order.u32\"" "$PROGRAM" -o gen && ./gen --dump-kernel-data "$WORK"
// sim-data-flags: --kernel-data=row_ptr=$WORK/row_ptr.i32 --kernel-data=col=$WORK/col.i32
// spmv_grape: the CSR SpMV of spmv_csr.cu (one thread per row, 5-point Laplacian), on the mesh that
// the partitioner's `gen:mesh2d:64x64` generates (same vertex numbering: SplitMix64(seed 1) shuffle
// of the cells, ported below from grape/src/generate.rs), with rows and columns renumbered by the
// vertex order the partitioner writes.
//
// Expected order file: vertex_order.u32 as written by
//     gpucc-cache partition gen:mesh2d:64x64 --block-dim=64 --out=DIR
// i.e. DIR/vertex_order.u32: binary, little-endian uint32, one per vertex (4096 = 16384 bytes), entry
// p = the old (generator) vertex at new position p. Build with
//     -DGRAPE_ORDER="\"/abs/DIR/vertex_order.u32\""
// Without GRAPE_ORDER the identity order (the generator's numbering) is used and a line says so.
//
// Matrix entries and x are small integers, so every float sum is exact and the checksum (taken in
// the generator's numbering) is the same for every order; the mean |row - col| line shows the
// locality the order gives the x[col] gathers.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>
#include "kernel_data_dump.h"

#define W 64
#define H 64
#define MESH_SEED 1
#define BLOCK 64

struct SplitMix64 {
  uint64_t s;
  uint64_t next() {
    s += 0x9E3779B97F4A7C15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t bound) { return ((next() >> 32) * bound) >> 32; }
};

static uint32_t lcg_state = 4242u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void spmv(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                     int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float sum = 0.0f;
  int end = row_ptr[row + 1];
  for (int k = row_ptr[row]; k < end; k++) sum += val[k] * x[col[k]];
  y[row] = sum;
}

int main(int argc, char **argv) {
  const int n = W * H;
  // The generator's numbering: id_of_cell[cell] for cell = y * W + x.
  uint32_t *id_of_cell = (uint32_t *)malloc(n * sizeof(uint32_t));
  for (int i = 0; i < n; i++) id_of_cell[i] = (uint32_t)i;
  SplitMix64 rng = {MESH_SEED};
  for (int i = n - 1; i >= 1; i--) {
    int j = (int)rng.below((uint64_t)i + 1);
    uint32_t t = id_of_cell[i]; id_of_cell[i] = id_of_cell[j]; id_of_cell[j] = t;
  }
  uint32_t *cell_of_id = (uint32_t *)malloc(n * sizeof(uint32_t));
  for (int c = 0; c < n; c++) cell_of_id[id_of_cell[c]] = (uint32_t)c;

  // order[p] = old vertex at new position p.
  uint32_t *order = (uint32_t *)malloc(n * sizeof(uint32_t));
#ifdef GRAPE_ORDER
  {
    FILE *fp = fopen(GRAPE_ORDER, "rb");
    if (!fp) { printf("RESULT error: cannot open %s\n", GRAPE_ORDER); return 1; }
    size_t got = fread(order, sizeof(uint32_t), n, fp);
    int extra = fgetc(fp);
    fclose(fp);
    if (got != (size_t)n || extra != EOF) {
      printf("RESULT error: %s does not hold %d uint32 entries\n", GRAPE_ORDER, n);
      return 1;
    }
    printf("RESULT order from %s\n", GRAPE_ORDER);
  }
#else
  for (int i = 0; i < n; i++) order[i] = (uint32_t)i;
  printf("RESULT GRAPE_ORDER not defined: identity order (the generator's numbering)\n");
#endif
  int *new_of_old = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) new_of_old[i] = -1;
  for (int p = 0; p < n; p++) {
    if (order[p] >= (uint32_t)n || new_of_old[order[p]] != -1) {
      printf("RESULT error: the order is not a permutation of 0..%d\n", n - 1);
      return 1;
    }
    new_of_old[order[p]] = p;
  }

  // Per-old-vertex data, independent of the order.
  float *x_old = (float *)malloc(n * sizeof(float));
  float *diag_old = (float *)malloc(n * sizeof(float));
  for (int v = 0; v < n; v++) {
    x_old[v] = (float)(lcg() % 64);
    diag_old[v] = (float)(4 + lcg() % 4);
  }

  int *row_ptr = (int *)malloc((n + 1) * sizeof(int));
  int *col = (int *)malloc(5 * n * sizeof(int));
  float *val = (float *)malloc(5 * n * sizeof(float));
  float *x = (float *)malloc(n * sizeof(float));
  int nnz = 0;
  double dist = 0.0;
  for (int p = 0; p < n; p++) {
    uint32_t v = order[p];
    x[p] = x_old[v];
    row_ptr[p] = nnz;
    int c = (int)cell_of_id[v], cx = c % W, cy = c / W;
    int nb[5], m = 0;
    nb[m++] = p;
    if (cx > 0) nb[m++] = new_of_old[id_of_cell[c - 1]];
    if (cx < W - 1) nb[m++] = new_of_old[id_of_cell[c + 1]];
    if (cy > 0) nb[m++] = new_of_old[id_of_cell[c - W]];
    if (cy < H - 1) nb[m++] = new_of_old[id_of_cell[c + W]];
    for (int a = 1; a < m; a++)
      for (int b = a; b > 0 && nb[b - 1] > nb[b]; b--) { int t = nb[b]; nb[b] = nb[b - 1]; nb[b - 1] = t; }
    for (int a = 0; a < m; a++) {
      col[nnz] = nb[a];
      val[nnz] = nb[a] == p ? diag_old[v] : -1.0f;
      dist += abs(nb[a] - p);
      nnz++;
    }
  }
  row_ptr[n] = nnz;
  // --dump-kernel-data DIR: write the index arrays the kernel reads (for the driver's --kernel-data,
  // bench/sim/run --with-data) and stop before any CUDA call.
  if (dump_kernel_data_asked(argc, argv)) {
    dump(argv[2], "row_ptr.i32", row_ptr, (n + 1) * sizeof(int));
    dump(argv[2], "col.i32", col, nnz * sizeof(int));
    return 0;
  }

  int *d_row_ptr, *d_col;
  float *d_val, *d_x, *d_y, *d_z;
  cudaMalloc(&d_row_ptr, (n + 1) * sizeof(int));
  cudaMalloc(&d_col, nnz * sizeof(int));
  cudaMalloc(&d_val, nnz * sizeof(float));
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_z, n * sizeof(float));
  cudaMemcpy(d_row_ptr, row_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, col, nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_val, val, nnz * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  spmv<<<blocks, BLOCK>>>(d_row_ptr, d_col, d_val, d_x, d_y, n);
  spmv<<<blocks, BLOCK>>>(d_row_ptr, d_col, d_val, d_y, d_z, n);
  float *z = (float *)malloc(n * sizeof(float));
  cudaMemcpy(z, d_z, n * sizeof(float), cudaMemcpyDeviceToHost);
  // Checksum in the generator's numbering: the same for every order.
  uint32_t bits = 0;
  double sum = 0.0;
  for (int v = 0; v < n; v++) {
    float zv = z[new_of_old[v]];
    uint32_t b; memcpy(&b, &zv, 4);
    bits = bits * 31u + b;
    sum += zv;
  }
  printf("RESULT spmv_grape mesh %dx%d (gen:mesh2d:%dx%d:seed=%d) rows=%d nnz=%d blocks=%d block=%d\n",
         W, H, W, H, MESH_SEED, n, nnz, blocks, BLOCK);
  printf("RESULT mean |row-col| = %.1f\n", dist / nnz);
  printf("RESULT checksum=%08x sum=%.1f\n", bits, sum);
  free(id_of_cell); free(cell_of_id); free(order); free(new_of_old); free(x_old); free(diag_old);
  free(row_ptr); free(col); free(val); free(x); free(z);
  cudaFree(d_row_ptr); cudaFree(d_col); cudaFree(d_val); cudaFree(d_x); cudaFree(d_y); cudaFree(d_z);
  return 0;
}
