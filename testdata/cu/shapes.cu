// One global load of each shape clang -O3 emits: 8/16/32/64-bit integers,
// half, float, double, pointers and the v2/v4 vector types.
#include <cuda_fp16.h>

struct Node {
  float value;
  const Node *next;
};

__global__ void __launch_bounds__(128)
shapes(const char *c, const short *s, const int *i, const long long *l, const __half *h, const double *d,
       const float2 *f2, const float4 *f4, const int4 *i4, const double2 *d2, const Node *nodes, const float *const *rows,
       float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = c[t] + s[t] + i[t] + (float)l[t] + __half2float(h[t]) + (float)d[t];
  float2 a = f2[t];
  float4 b = f4[t];
  int4 e = i4[t];
  double2 g = d2[t];
  const Node *n = nodes[t].next;
  acc += a.x + a.y + b.x + b.y + b.z + b.w + e.x + e.y + e.z + e.w + (float)(g.x + g.y) + n->value + rows[t][t];
  out[t] = acc;
}
