// B+tree lookup (Rodinia b+tree style): the tree is an array of nodes, each
// holding sorted keys[] and children[] indices.  Each thread walks one query
// from the root to a leaf, then scans the leaf for the record.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define ORDER 32

struct knode {
  int location;
  int indices[ORDER + 1];
  int keys[ORDER + 1];
  bool is_leaf;
  int num_keys;
};

struct record {
  int value;
};

__global__ void find_k(int height, const knode *knodes, long knodes_elem, const record *records,
                       const int *keys, record *ans, int count) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count)
    return;
  int key = keys[q];
  long cur = 0;   // root
  for (int level = 0; level < height; level++) {
    const knode *node = &knodes[cur];
    int n = node->num_keys;
    int slot = 0;
    while (slot < n && node->keys[slot + 1] <= key)
      slot++;
    long next = node->indices[slot];
    if (next < 0 || next >= knodes_elem)
      break;
    cur = next;
  }
  ans[q].value = -1;
  const knode *leaf = &knodes[cur];
  for (int s = 0; s < leaf->num_keys; s++)
    if (leaf->keys[s] == key)
      ans[q].value = records[leaf->indices[s]].value;
}

// Range query: find the leaf slot of both ends and report the span length.
__global__ void find_range(int height, const knode *__restrict__ knodes, const int *__restrict__ start,
                           const int *__restrict__ end, int *recstart, int *reclength, int count) {
  int q = blockIdx.x;
  int t = threadIdx.x;   // one thread per key slot, ORDER threads per block
  long a = 0, b = 0;
  for (int level = 0; level < height; level++) {
    if (knodes[a].keys[t] <= start[q] && knodes[a].keys[t + 1] > start[q])
      a = knodes[a].indices[t];
    if (knodes[b].keys[t] <= end[q] && knodes[b].keys[t + 1] > end[q])
      b = knodes[b].indices[t];
    __syncthreads();
  }
  if (knodes[a].keys[t] == start[q])
    recstart[q] = knodes[a].indices[t];
  __syncthreads();
  if (knodes[b].keys[t] == end[q] && q < count)
    reclength[q] = knodes[b].indices[t] - recstart[q] + 1;
}

int main(int argc, char **argv) {
  int nnodes = argc > 1 ? atoi(argv[1]) : 33000;
  int count = argc > 2 ? atoi(argv[2]) : 10000;
  int height = 3;
  knode *d_nodes;
  record *d_records, *d_ans;
  int *d_keys, *d_start, *d_end, *d_rs, *d_rl;
  cudaMalloc(&d_nodes, nnodes * sizeof(knode));
  cudaMalloc(&d_records, nnodes * ORDER * sizeof(record));
  cudaMalloc(&d_ans, count * sizeof(record));
  cudaMalloc(&d_keys, count * sizeof(int));
  cudaMalloc(&d_start, count * sizeof(int));
  cudaMalloc(&d_end, count * sizeof(int));
  cudaMalloc(&d_rs, count * sizeof(int));
  cudaMalloc(&d_rl, count * sizeof(int));
  cudaMemset(d_nodes, 0, nnodes * sizeof(knode));

  int threads = 256;
  find_k<<<(count + threads - 1) / threads, threads>>>(height, d_nodes, nnodes, d_records,
                                                       d_keys, d_ans, count);
  find_range<<<count, ORDER>>>(height, d_nodes, d_start, d_end, d_rs, d_rl, count);
  cudaDeviceSynchronize();
  printf("b+tree queries done\n");
  cudaFree(d_nodes); cudaFree(d_records); cudaFree(d_ans); cudaFree(d_keys);
  cudaFree(d_start); cudaFree(d_end); cudaFree(d_rs); cudaFree(d_rl);
  return 0;
}
