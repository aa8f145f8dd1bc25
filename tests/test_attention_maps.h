// Attention maps the inspection tests build: seeded, causal, each row a softmax.
#pragma once
#include <cmath>
#include <vector>

#include "core/tensor.h"

namespace tfp::testing {

/** Random causal maps (H, T, T): softmax of seeded scores sharpness·u, u in [0, 1), over keys j <= i. */
inline Tensor causal_probs(int H, int T, unsigned seed, double sharpness) {
  Tensor p({H, T, T});
  unsigned s = seed;
  auto next = [&] { s = s * 1664525u + 1013904223u; return static_cast<double>(s >> 8) / 16777216.0; };
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      std::vector<double> e(static_cast<size_t>(i + 1));
      double sum = 0;
      for (int j = 0; j <= i; ++j) sum += (e[static_cast<size_t>(j)] = std::exp(sharpness * next()));
      for (int j = 0; j <= i; ++j) p.ptr()[(h * T + i) * T + j] = static_cast<float>(e[static_cast<size_t>(j)] / sum);
    }
  return p;
}

}  // namespace tfp::testing
