#pragma once

// Advances n particles by `steps` steps on the GPU and returns the mean
// speed in *mean; 0 on success, 1 when there is no CUDA device, -1 on a
// CUDA error (printed).
int simulate(int n, int steps, float *mean);
