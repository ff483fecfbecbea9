// Plain C++: blurs and limits a signal on the GPU and checks the result
// against the CPU (loosely: the GPU side uses fast math).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "signal.h"

int main() {
  if (gpu_count() == 0) {
    std::puts("no device: built, but there is no CUDA GPU to run on");
    return 0;
  }
  const int n = 100000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = std::sin(i * 0.01f) * 3.0f;
  if (blur(x.data(), y.data(), n) != 0 || scale(y.data(), n, 0.5f) != 0) return 1;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    float s = 0.0f;
    for (int k = -2; k <= 2; ++k) s += x[std::min(std::max(i + k, 0), n - 1)];
    worst = std::max(worst, double(std::fabs(0.5f * std::tanh(s / 5.0f) - y[i])));
  }
  std::printf("signal of %d samples, largest error %.2e\n", n, worst);
  return worst < 1e-3 ? 0 : 1;
}
