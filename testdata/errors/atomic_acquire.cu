// An acquire atomic load: clang++-19 alone stops on it with "fatal error:
// error in backend: Cannot select: ... AtomicLoad<(load acquire ...)>", a
// node dump, a bug request and a stack dump, on every arch (LLVM 19's NVPTX
// backend lowers no acquire/release/seq_cst atomic load or fence). The
// driver shows it as one line (tests/errors.rs).
__global__ void flag_reader(const int *done, int *out) {
  out[threadIdx.x] = __atomic_load_n(done + 64, __ATOMIC_ACQUIRE);
}
