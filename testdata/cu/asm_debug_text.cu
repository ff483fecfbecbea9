// Inline asm whose text looks like what the driver removes from the PTX it
// keys: a label named as LLVM names its debug labels ($L__tmp0), one named
// as its function-end label, and a .loc line. The user's asm is theirs:
// ptxas needs the labels (branches go to them), and the .loc is the user's
// line information. Found by the ninth session's adversarial review: the
// labels were deleted (ptxas: "Unknown symbol '$L__tmp0'"), and the .loc
// too, even under --cache-policy=off.
__global__ void clamp_add(const float *a, float *out, int n) {
  int r;
  asm volatile(
      "{\n\t.reg .pred p;\n\tmov.u32 %0, 0;\n\tsetp.lt.s32 p, %1, 3;\n\t@p bra $L__tmp0;\n\t"
      "mov.u32 %0, 7;\n$L__tmp0:\n\t}"
      : "=r"(r)
      : "r"(n));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + r;
}

__global__ void end_label(const float *a, float *out, int n) {
  int r;
  asm volatile(
      "{\n\t.reg .pred q;\n\tmov.u32 %0, 1;\n\tsetp.gt.s32 q, %1, 5;\n\t@q bra $L__func_end9;\n\t"
      "mov.u32 %0, 2;\n$L__func_end9:\n\t}"
      : "=r"(r)
      : "r"(n));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[2 * i] * r;
}

__global__ void asm_loc(const float *a, float *out) {
  float v;
  asm volatile(".loc 1 5 0\n\tld.global.f32 %0, [%1];" : "=f"(v) : "l"(a + threadIdx.x));
  out[threadIdx.x] = v + a[threadIdx.x + 32];
}
