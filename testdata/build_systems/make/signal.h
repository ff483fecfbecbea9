#pragma once

// Host launchers of the kernels in blur.cu and scale.cu; each returns 0 on
// success, -1 on a CUDA error (printed).
int gpu_count();
int blur(const float *in, float *out, int n);
int scale(float *x, int n, float gain);
