// Plain C++ (compiled by the C++ compiler): runs the simulation on the GPU
// and checks it against the same simulation on the CPU.
#include <cmath>
#include <cstdio>
#include <vector>

#include "particles.h"

static float simulate_on_cpu(int n, int steps) {
  double total = 0;
  for (int i = 0; i < n; ++i) {
    float x = float(i % 97), y = float(i % 89), vx = 1.0f + (i % 7), vy = 0.5f * (i % 5);
    for (int t = 0; t < steps; ++t) {
      vy -= 9.81f * 0.01f;
      x += vx * 0.01f;
      y += vy * 0.01f;
      if (y < 0.0f) { y = -y; vy = -0.9f * vy; }
      if (x < 0.0f || x > 100.0f) vx = -vx;
    }
    total += std::sqrt(vx * vx + vy * vy);
  }
  return float(total / n);
}

int main() {
  const int n = 1 << 16, steps = 100;
  float mean = 0.0f;
  switch (simulate(n, steps, &mean)) {
  case 1:
    std::puts("no device: built, but there is no CUDA GPU to run on");
    return 0;
  case 0: {
    float cpu = simulate_on_cpu(n, steps);
    std::printf("mean speed %.4f (CPU %.4f)\n", mean, cpu);
    return std::fabs(mean - cpu) <= 1e-3f * cpu ? 0 : 1;
  }
  default:
    return 1;
  }
}
