// A struct passed by value lives in param/local memory, not global memory: its own fields must be
// left alone (the backend reads them with ld.param / ld.local). t.p[i] reads through a pointer the
// host put in the struct, which the backend reads with ld.global: a global load.
struct Table {
  const float *p;
  int n;
  int m[8];
};

__global__ void byval(Table t, float *out, int j) { out[threadIdx.x] = t.p[threadIdx.x] + t.m[j & 7]; }
