// Lanes that load one value get one value: each group of 16 lanes reads one
// index, idx[t / 16], and then 16 consecutive floats of the table row it
// names (an embedding lookup, a warp-per-row CSR start). The index is data
// the compiler cannot know; that the 16 lanes read it at one address, in one
// warp instruction, it can: they get the same row.
__global__ void __launch_bounds__(128) gather_rows(const float *table, const int *idx, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = table[idx[t / 16] * 16 + t % 16];
}

// The same rows walked by a loop whose start is the shared value: each group
// sums row idx[g] from its start, one element per lane per step.
__global__ void __launch_bounds__(128) sum_rows(const float *table, const int *starts, float *out, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = starts[t / 32]; k < starts[t / 32] + len; k += 32) s += table[k + t % 32];
  out[t] = s;
}
