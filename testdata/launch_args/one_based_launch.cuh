// A helper for code ported from Fortran: the kernel indexes its arrays
// from 1, so the helper passes each one element before its start.
#pragma once

inline void relax_one_based(const float *src, float *dst, int n) {
  relax<<<n / THREADS, THREADS>>>(src - 1, dst - 1, n);
}
