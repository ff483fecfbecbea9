// Pointer fields of a struct passed by value that name another address space: the backend reads
// them with ld.shared and ld.const (a generic pointer in such a struct is global, these are not).
// The generic reads through them, here and in the device function, must be left alone. Found by an
// adversarial review: a first version took every pointer read from the struct as global.
typedef __attribute__((address_space(3))) float sfloat;
typedef __attribute__((address_space(4))) float cfloat;
struct S {
  sfloat *sp;
  cfloat *cp;
  float *gp;
};
__device__ __noinline__ float g(const float *p, int i) { return p[i]; }
__global__ void k(S s, float *out) {
  int i = threadIdx.x;
  float a = ((float *)s.sp)[i];
  float b = ((float *)s.cp)[i];
  out[i] = a + b + s.gp[i] + g((float *)s.sp, i + 1);
}
