// pagerank_pull: ITERS iterations of pull-style PageRank on a random directed graph, fixed-point
// integer ranks (total mass 2^30, damping 85/100, integer division, so the result is exact).
// Per iteration two launches, thread per vertex: contrib[u] = rank[u] / outdeg[u] (rank[],
// outdeg[] streamed, contrib[] written coalesced), then pull: vertex v walks its in-neighbour
// list through CSR offsets (in_off[v], in_off[v+1]: neighbouring threads read neighbouring
// entries), reads in_src[e] (short contiguous runs per thread, different runs per lane) and
// gathers contrib[in_src[e]] (a data-dependent gather: half of the edges come from a popular
// set of 256 vertices, so those contrib[] lines are read by many threads; the rest are uniform,
// plus the ring edge v-1 -> v). In-degrees are 1-6, with 1 vertex in 128 a hub of 11-16, so warps
// holding a hub run longer. rank_next[] is written once per vertex.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define NV 4096
#define POPULAR 256
#define ITERS 3
#define BLOCK 128
#define TOTAL_MASS (1u << 30)

static uint32_t lcg_state = 99991u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void compute_contrib(const unsigned *rank, const int *outdeg, unsigned *contrib, int n) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u < n) contrib[u] = rank[u] / (unsigned)outdeg[u];
}

__global__ void pull_ranks(const int *in_off, const int *in_src, const unsigned *contrib,
                           unsigned *rank_next, unsigned base, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  unsigned long long acc = 0;
  int beg = in_off[v], end = in_off[v + 1];
  for (int e = beg; e < end; e++) acc += contrib[in_src[e]];
  // floor(acc * 85 / 100) in 32-bit arithmetic (acc <= the total mass, 2^30): GPGPU-Sim 4.2 has no
  // 64-bit mul.hi, which clang's 64-bit division by a constant becomes.
  unsigned a = (unsigned)acc;
  rank_next[v] = base + a / 100u * 85u + a % 100u * 85u / 100u;
}

int main() {
  const int n = NV;
  int *off = (int *)malloc(sizeof(int) * (n + 1));
  int cap = n * 17;
  int *src = (int *)malloc(sizeof(int) * cap);
  int *outdeg = (int *)calloc(n, sizeof(int));
  int m = 0;
  for (int v = 0; v < n; v++) {
    off[v] = m;
    int deg = 1 + (int)((lcg() >> 8) % 6);
    if ((lcg() >> 8) % 128 == 0) deg += 10;
    int beg = m;
    src[m++] = (v + n - 1) % n;  // ring edge: every vertex has out-degree >= 1
    for (int e = 1; e < deg; e++) {
      int u = ((lcg() >> 9) & 1) ? (int)((lcg() >> 8) % POPULAR) * (n / POPULAR)
                                 : (int)((lcg() >> 8) % n);
      src[m++] = u;
    }
    for (int i = beg + 1; i < m; i++) {  // sort the in-list by source, as a CSR builder would
      int x = src[i], j = i - 1;
      while (j >= beg && src[j] > x) { src[j + 1] = src[j]; j--; }
      src[j + 1] = x;
    }
    for (int i = beg; i < m; i++) outdeg[src[i]]++;
  }
  off[n] = m;
  unsigned *rank = (unsigned *)malloc(sizeof(unsigned) * n);
  for (int v = 0; v < n; v++) rank[v] = TOTAL_MASS / n;
  const unsigned base = (unsigned)((15ull * (TOTAL_MASS / n)) / 100ull);

  int *doff, *dsrc, *ddeg; unsigned *dra, *drb, *dcon;
  cudaMalloc(&doff, sizeof(int) * (n + 1));
  cudaMalloc(&dsrc, sizeof(int) * m);
  cudaMalloc(&ddeg, sizeof(int) * n);
  cudaMalloc(&dra, sizeof(unsigned) * n);
  cudaMalloc(&drb, sizeof(unsigned) * n);
  cudaMalloc(&dcon, sizeof(unsigned) * n);
  cudaMemcpy(doff, off, sizeof(int) * (n + 1), cudaMemcpyHostToDevice);
  cudaMemcpy(dsrc, src, sizeof(int) * m, cudaMemcpyHostToDevice);
  cudaMemcpy(ddeg, outdeg, sizeof(int) * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dra, rank, sizeof(unsigned) * n, cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  for (int it = 0; it < ITERS; it++) {
    compute_contrib<<<blocks, BLOCK>>>(dra, ddeg, dcon, n);
    pull_ranks<<<blocks, BLOCK>>>(doff, dsrc, dcon, drb, base, n);
    unsigned *t = dra; dra = drb; drb = t;
  }
  unsigned *out = (unsigned *)malloc(sizeof(unsigned) * n);
  cudaMemcpy(out, dra, sizeof(unsigned) * n, cudaMemcpyDeviceToHost);

  unsigned *con = (unsigned *)malloc(sizeof(unsigned) * n), *nxt = (unsigned *)malloc(sizeof(unsigned) * n);
  for (int it = 0; it < ITERS; it++) {
    for (int u = 0; u < n; u++) con[u] = rank[u] / (unsigned)outdeg[u];
    for (int v = 0; v < n; v++) {
      unsigned long long acc = 0;
      for (int e = off[v]; e < off[v + 1]; e++) acc += con[src[e]];
      nxt[v] = base + (unsigned)((acc * 85ull) / 100ull);
    }
    memcpy(rank, nxt, sizeof(unsigned) * n);
  }
  int bad = 0, top = 0; unsigned long long mass = 0; uint32_t check = 0;
  for (int v = 0; v < n; v++) {
    if (out[v] != rank[v]) bad++;
    mass += out[v];
    if (out[v] > out[top]) top = v;
    check = check * 31u + out[v];
  }
  printf("RESULT pagerank_pull nv=%d edges=%d iters=%d grid=%dx%d\n", n, m, ITERS, blocks, BLOCK);
  printf("RESULT checksum=%08x mass=%llu top=%d top_rank=%u host_mismatches=%d\n", check, mass, top,
         out[top], bad);
  cudaFree(doff); cudaFree(dsrc); cudaFree(ddeg); cudaFree(dra); cudaFree(drb); cudaFree(dcon);
  free(off); free(src); free(outdeg); free(rank); free(con); free(nxt); free(out);
  return bad ? 1 : 0;
}
