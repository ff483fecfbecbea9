// Level-synchronous breadth-first search over a CSR graph.  Two kernels per
// level: expand the current frontier, then promote the "updating" mask into
// the next frontier and the visited set.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define MAX_THREADS_PER_BLOCK 256

__global__ void bfs_expand(const int *row_ptr, const int *col_idx, bool *frontier,
                           bool *updating, const bool *visited, int *cost, int num_nodes) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < num_nodes && frontier[tid]) {
    frontier[tid] = false;
    int my_cost = cost[tid];
    int begin = row_ptr[tid];
    int end = row_ptr[tid + 1];
    for (int e = begin; e < end; e++) {
      int nb = col_idx[e];
      if (!visited[nb]) {
        cost[nb] = my_cost + 1;
        updating[nb] = true;
      }
    }
  }
}

__global__ void bfs_update(bool *frontier, bool *updating, bool *visited, bool *changed,
                           int num_nodes) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < num_nodes && updating[tid]) {
    frontier[tid] = true;
    visited[tid] = true;
    *changed = true;
    updating[tid] = false;
  }
}

int main(int argc, char **argv) {
  int num_nodes = argc > 1 ? atoi(argv[1]) : (1 << 20);
  const int degree = 6;
  int num_edges = num_nodes * degree;

  int *h_row = (int *)malloc((num_nodes + 1) * sizeof(int));
  int *h_col = (int *)malloc(num_edges * sizeof(int));
  for (int i = 0; i <= num_nodes; i++) h_row[i] = i * degree;
  for (int e = 0; e < num_edges; e++) h_col[e] = rand() % num_nodes;

  int *d_row, *d_col, *d_cost;
  bool *d_frontier, *d_updating, *d_visited, *d_changed;
  cudaMalloc((void **)&d_row, (num_nodes + 1) * sizeof(int));
  cudaMalloc((void **)&d_col, num_edges * sizeof(int));
  cudaMalloc((void **)&d_cost, num_nodes * sizeof(int));
  cudaMalloc((void **)&d_frontier, num_nodes * sizeof(bool));
  cudaMalloc((void **)&d_updating, num_nodes * sizeof(bool));
  cudaMalloc((void **)&d_visited, num_nodes * sizeof(bool));
  cudaMalloc((void **)&d_changed, sizeof(bool));
  cudaMemcpy(d_row, h_row, (num_nodes + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, h_col, num_edges * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_cost, 0xff, num_nodes * sizeof(int));
  cudaMemset(d_frontier, 0, num_nodes * sizeof(bool));
  cudaMemset(d_updating, 0, num_nodes * sizeof(bool));
  cudaMemset(d_visited, 0, num_nodes * sizeof(bool));
  bool t = true;
  int zero = 0;
  cudaMemcpy(d_frontier, &t, sizeof(bool), cudaMemcpyHostToDevice);
  cudaMemcpy(d_visited, &t, sizeof(bool), cudaMemcpyHostToDevice);
  cudaMemcpy(d_cost, &zero, sizeof(int), cudaMemcpyHostToDevice);

  int num_blocks = (num_nodes + MAX_THREADS_PER_BLOCK - 1) / MAX_THREADS_PER_BLOCK;
  dim3 grid(num_blocks, 1, 1);
  dim3 threads(MAX_THREADS_PER_BLOCK, 1, 1);
  int level = 0;
  bool h_changed;
  do {
    h_changed = false;
    cudaMemcpy(d_changed, &h_changed, sizeof(bool), cudaMemcpyHostToDevice);
    bfs_expand<<<grid, threads>>>(d_row, d_col, d_frontier, d_updating, d_visited, d_cost,
                                  num_nodes);
    bfs_update<<<grid, threads>>>(d_frontier, d_updating, d_visited, d_changed, num_nodes);
    cudaMemcpy(&h_changed, d_changed, sizeof(bool), cudaMemcpyDeviceToHost);
    level++;
  } while (h_changed);
  printf("bfs finished after %d levels\n", level);

  cudaFree(d_row); cudaFree(d_col); cudaFree(d_cost); cudaFree(d_frontier);
  cudaFree(d_updating); cudaFree(d_visited); cudaFree(d_changed);
  free(h_row); free(h_col);
  return 0;
}
