// cc_labelprop: connected components of an undirected graph (CSR, both directions stored) by
// synchronous min-label propagation. init_labels writes lab[v] = v. Then, launched from the host
// until nothing changes (at most MAXIT launches): each thread takes one vertex, reads its own
// label, row_off[v] and row_off[v + 1] (short runs of up to 15 neighbours, none for the isolated
// vertices), walks adj[] (streamed per vertex) and gathers lab_in[adj[k]] (random vertex
// numbering, so the gathers are scattered; each label is read by all of its neighbours), writes
// the minimum to lab_out (double buffered, so the result is deterministic) and counts changed
// vertices with one global atomicAdd per change; the host reads the counter back after each
// launch. Finally comp_sizes does an atomicAdd on size[lab[v]] (heavy contention: up to 900
// vertices per address). The graph has 2048 vertices in 7 components (random recursive trees
// plus extra edges) and 40 isolated vertices.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define NV 2048
#define BLOCK 128
#define MAXIT 32
#define NCOMP 7

static uint32_t lcg_state = 4242001u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void init_labels(int *lab, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) lab[v] = v;
}

__global__ void propagate(const int *row_off, const int *adj, const int *lab_in, int *lab_out,
                          int *changed, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int mine = lab_in[v];
  int best = mine;
  int end = row_off[v + 1];
  for (int k = row_off[v]; k < end; k++) best = min(best, lab_in[adj[k]]);
  lab_out[v] = best;
  if (best != mine) atomicAdd(changed, 1);
}

__global__ void comp_sizes(const int *lab, int *size, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) atomicAdd(&size[lab[v]], 1);
}

int main() {
  const int n = NV;
  // random numbering: perm[i] = vertex id of the i-th generated vertex
  int *perm = (int *)malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)((lcg() >> 8) % (uint32_t)(i + 1));
    int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
  const int comp_size[NCOMP] = {900, 500, 300, 150, 80, 50, 28};  // + 40 isolated = 2048
  int cap = 8 * n;
  int *eu = (int *)malloc(sizeof(int) * cap), *ev = (int *)malloc(sizeof(int) * cap);
  int ne = 0, base = 0;
  for (int c = 0; c < NCOMP; c++) {
    int s = comp_size[c];
    for (int i = 1; i < s; i++) {  // random recursive tree
      int j = (int)((lcg() >> 8) % (uint32_t)i);
      eu[ne] = perm[base + i]; ev[ne] = perm[base + j]; ne++;
    }
    for (int e = 0; e < s; e++) {  // about one extra edge per vertex
      int i = (int)((lcg() >> 8) % (uint32_t)s), j = (int)((lcg() >> 8) % (uint32_t)s);
      if (i == j) continue;
      eu[ne] = perm[base + i]; ev[ne] = perm[base + j]; ne++;
    }
    base += s;
  }
  int *deg = (int *)calloc(n, sizeof(int));
  for (int e = 0; e < ne; e++) { deg[eu[e]]++; deg[ev[e]]++; }
  int *row_off = (int *)malloc(sizeof(int) * (n + 1));
  row_off[0] = 0;
  int maxdeg = 0;
  for (int v = 0; v < n; v++) {
    row_off[v + 1] = row_off[v] + deg[v];
    if (deg[v] > maxdeg) maxdeg = deg[v];
  }
  int narcs = row_off[n];
  int *adj = (int *)malloc(sizeof(int) * narcs), *fill = (int *)malloc(sizeof(int) * n);
  for (int v = 0; v < n; v++) fill[v] = row_off[v];
  for (int e = 0; e < ne; e++) { adj[fill[eu[e]]++] = ev[e]; adj[fill[ev[e]]++] = eu[e]; }

  int *drow, *dadj, *dla, *dlb, *dchanged, *dsize;
  cudaMalloc(&drow, sizeof(int) * (n + 1));
  cudaMalloc(&dadj, sizeof(int) * narcs);
  cudaMalloc(&dla, sizeof(int) * n);
  cudaMalloc(&dlb, sizeof(int) * n);
  cudaMalloc(&dchanged, sizeof(int));
  cudaMalloc(&dsize, sizeof(int) * n);
  cudaMemcpy(drow, row_off, sizeof(int) * (n + 1), cudaMemcpyHostToDevice);
  cudaMemcpy(dadj, adj, sizeof(int) * narcs, cudaMemcpyHostToDevice);
  int *zeros = (int *)calloc(n, sizeof(int));
  cudaMemcpy(dsize, zeros, sizeof(int) * n, cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  init_labels<<<blocks, BLOCK>>>(dla, n);
  int iters = 0, changes_total = 0, changes_first = 0;
  while (iters < MAXIT) {
    int changed = 0;
    cudaMemcpy(dchanged, &changed, sizeof(int), cudaMemcpyHostToDevice);
    propagate<<<blocks, BLOCK>>>(drow, dadj, dla, dlb, dchanged, n);
    cudaMemcpy(&changed, dchanged, sizeof(int), cudaMemcpyDeviceToHost);
    int *t = dla; dla = dlb; dlb = t;
    iters++;
    if (iters == 1) changes_first = changed;
    changes_total += changed;
    if (changed == 0) break;
  }
  comp_sizes<<<blocks, BLOCK>>>(dla, dsize, n);
  cudaDeviceSynchronize();
  int *olab = (int *)malloc(sizeof(int) * n), *osize = (int *)malloc(sizeof(int) * n);
  cudaMemcpy(olab, dla, sizeof(int) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(osize, dsize, sizeof(int) * n, cudaMemcpyDeviceToHost);

  // host reference: the same synchronous propagation (same iteration count and change counts),
  // checked against union-find minimum labels
  int *ra = (int *)malloc(sizeof(int) * n), *rb = (int *)malloc(sizeof(int) * n);
  for (int v = 0; v < n; v++) ra[v] = v;
  int riters = 0, rtotal = 0, rfirst = 0;
  while (riters < MAXIT) {
    int ch = 0;
    for (int v = 0; v < n; v++) {
      int b = ra[v];
      for (int k = row_off[v]; k < row_off[v + 1]; k++) if (ra[adj[k]] < b) b = ra[adj[k]];
      rb[v] = b;
      if (b != ra[v]) ch++;
    }
    int *t = ra; ra = rb; rb = t;
    riters++;
    if (riters == 1) rfirst = ch;
    rtotal += ch;
    if (ch == 0) break;
  }
  int *uf = (int *)malloc(sizeof(int) * n);
  for (int v = 0; v < n; v++) uf[v] = v;
  for (int e = 0; e < ne; e++) {
    int a = eu[e], b = ev[e];
    while (uf[a] != a) a = uf[a];
    while (uf[b] != b) b = uf[b];
    if (a < b) uf[b] = a; else if (b < a) uf[a] = b;
  }
  int bad = 0, ncomp = 0, largest = 0;
  for (int v = 0; v < n; v++) {
    int r = v;
    while (uf[r] != r) r = uf[r];
    if (ra[v] != r) bad++;  // host propagation converged to the component minimum
    if (olab[v] != ra[v]) bad++;
  }
  int *rsize = (int *)calloc(n, sizeof(int));
  for (int v = 0; v < n; v++) rsize[ra[v]]++;
  uint32_t check = 0;
  for (int v = 0; v < n; v++) {
    if (osize[v] != rsize[v]) bad++;
    if (rsize[v]) ncomp++;
    if (rsize[v] > largest) largest = rsize[v];
    check = check * 31u + (uint32_t)olab[v];
    check = check * 31u + (uint32_t)osize[v];
  }
  if (iters != riters || changes_total != rtotal || changes_first != rfirst) bad++;
  check = check * 31u + (uint32_t)iters;
  check = check * 31u + (uint32_t)changes_total;
  printf("RESULT cc_labelprop n=%d arcs=%d max_deg=%d grid=%dx%d iterations=%d\n", n, narcs, maxdeg,
         blocks, BLOCK, iters);
  printf("RESULT checksum=%08x components=%d largest=%d changes=%d first=%d host_mismatches=%d\n",
         check, ncomp, largest, changes_total, changes_first, bad);
  cudaFree(drow); cudaFree(dadj); cudaFree(dla); cudaFree(dlb); cudaFree(dchanged); cudaFree(dsize);
  free(perm); free(eu); free(ev); free(deg); free(row_off); free(adj); free(fill); free(zeros);
  free(olab); free(osize); free(ra); free(rb); free(uf); free(rsize);
  return bad ? 1 : 0;
}
