// bfs: level-synchronous breadth-first search over a CSR graph (a random graph: every vertex joined
// to DEG random others, symmetrised, fixed seed), frontier kept as a level array. One thread per
// vertex: the row_ptr/level loads are streamed, adj[] is read in short runs, level[adj[k]] is a
// gather into a table every thread reads. The host launches one level at a time and reads a
// device flag back until no vertex changed.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

#define NV 4096
#define DEG 3
#define BLOCK 64
#define MAX_LEVELS 64

static uint32_t lcg_state = 99991u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

struct Edge { int u, v; };

__global__ void bfs_level(const int *row_ptr, const int *adj, int *level, int n, int cur,
                          int *changed) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || level[v] != -1) return;
  int end = row_ptr[v + 1];
  for (int k = row_ptr[v]; k < end; k++) {
    if (level[adj[k]] == cur) {  // a neighbour is in the frontier
      level[v] = cur + 1;
      *changed = 1;
      return;
    }
  }
}

int main() {
  const int n = NV;
  // Random edges, both directions, then counting sort into CSR.
  int m = n * DEG;
  Edge *e = (Edge *)malloc(m * sizeof(Edge));
  for (int i = 0; i < m; i++) {
    int u = i / DEG, v = (int)(lcg() % n);
    if (v == u) v = (v + 1) % n;
    e[i].u = u; e[i].v = v;
  }
  int *row_ptr = (int *)calloc(n + 1, sizeof(int));
  for (int i = 0; i < m; i++) { row_ptr[e[i].u + 1]++; row_ptr[e[i].v + 1]++; }
  for (int i = 0; i < n; i++) row_ptr[i + 1] += row_ptr[i];
  int *fill = (int *)malloc(n * sizeof(int));
  memcpy(fill, row_ptr, n * sizeof(int));
  int *adj = (int *)malloc(2 * m * sizeof(int));
  for (int i = 0; i < m; i++) { adj[fill[e[i].u]++] = e[i].v; adj[fill[e[i].v]++] = e[i].u; }
  int *level = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) level[i] = -1;
  const int source = 0;
  level[source] = 0;

  int *d_row_ptr, *d_adj, *d_level, *d_changed;
  cudaMalloc(&d_row_ptr, (n + 1) * sizeof(int));
  cudaMalloc(&d_adj, 2 * m * sizeof(int));
  cudaMalloc(&d_level, n * sizeof(int));
  cudaMalloc(&d_changed, sizeof(int));
  cudaMemcpy(d_row_ptr, row_ptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_adj, adj, 2 * m * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_level, level, n * sizeof(int), cudaMemcpyHostToDevice);
  int blocks = (n + BLOCK - 1) / BLOCK;
  int cur = 0;
  for (; cur < MAX_LEVELS; cur++) {
    int changed = 0;
    cudaMemcpy(d_changed, &changed, sizeof(int), cudaMemcpyHostToDevice);
    bfs_level<<<blocks, BLOCK>>>(d_row_ptr, d_adj, d_level, n, cur, d_changed);
    cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);
    if (!changed) break;
  }
  cudaMemcpy(level, d_level, n * sizeof(int), cudaMemcpyDeviceToHost);
  // Levels are the exact BFS distances whatever the order threads ran in.
  uint32_t check = 0;
  int reached = 0, maxlev = 0;
  long long levsum = 0;
  for (int i = 0; i < n; i++) {
    check = check * 31u + (uint32_t)(level[i] + 1);
    if (level[i] >= 0) { reached++; levsum += level[i]; if (level[i] > maxlev) maxlev = level[i]; }
  }
  printf("RESULT bfs vertices=%d edges=%d blocks=%d block=%d launches=%d\n", n, 2 * m, blocks, BLOCK,
         cur + 1);
  printf("RESULT checksum=%08x reached=%d depth=%d levelsum=%lld\n", check, reached, maxlev, levsum);
  free(e); free(row_ptr); free(fill); free(adj); free(level);
  cudaFree(d_row_ptr); cudaFree(d_adj); cudaFree(d_level); cudaFree(d_changed);
  return 0;
}
