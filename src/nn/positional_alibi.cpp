// ALiBi: a fixed linear distance penalty per head. See positional_alibi.h.
//
// Legend: Tq query tokens, Tk key tokens, H heads.
#include "nn/positional_alibi.h"

#include <cmath>

namespace tfp::nn {

// 2^(-8(h+1)/n) for h = 0 .. n-1: ratio and first term are both 2^(-8/n).
static std::vector<double> geometric_slopes(int n) {
  std::vector<double> s(n);
  for (int h = 0; h < n; ++h) s[h] = std::exp2(-8.0 * (h + 1) / n);
  return s;
}

std::vector<float> alibi_slopes(int H) {
  TFP_CHECK(H > 0, "alibi_slopes: H must be > 0, got ", H);
  int n = 1;  // largest power of two <= H
  while (n * 2 <= H) n *= 2;
  std::vector<double> s = geometric_slopes(n);
  if (n < H) {  // interpolate: every other slope of the next power of two
    const std::vector<double> s2 = geometric_slopes(2 * n);
    for (int k = 0; static_cast<int>(s.size()) < H; k += 2) s.push_back(s2[k]);
  }
  return std::vector<float>(s.begin(), s.end());
}

static void add_alibi(float slope, float* scores, int Tq, int Tk, int64_t ld, int64_t q_pos0,
                      int64_t k_pos0, bool symmetric) {
  for (int i = 0; i < Tq; ++i)
    for (int j = 0; j < Tk; ++j) {
      const int64_t dist = (q_pos0 + i) - (k_pos0 + j);  // how far back key j lies
      scores[i * ld + j] -= slope * static_cast<float>(symmetric ? std::llabs(dist) : dist);
    }
}

Tensor alibi_bias(int H, int Tq, int Tk, int64_t q_pos0, int64_t k_pos0, bool symmetric) {
  TFP_CHECK(Tq > 0 && Tk > 0, "alibi_bias: Tq and Tk must be > 0, got ", Tq, ", ", Tk);
  const std::vector<float> slopes = alibi_slopes(H);
  Tensor b({H, Tq, Tk});  // (H, Tq, Tk)
  for (int h = 0; h < H; ++h)
    add_alibi(slopes[h], b.ptr() + static_cast<int64_t>(h) * Tq * Tk, Tq, Tk, Tk, q_pos0, k_pos0,
              symmetric);
  return b;
}

AttentionHooks::ScoreBiasFn alibi_score_bias(int n_heads, bool symmetric) {
  std::vector<float> slopes = alibi_slopes(n_heads);
  return [slopes, symmetric](int head, float* scores, int Tq, int Tk, int64_t ld, int64_t q_pos0,
                             int64_t k_pos0) {
    TFP_CHECK(head >= 0 && head < static_cast<int>(slopes.size()), "alibi: head ", head,
              " out of range for ", slopes.size(), " slopes (built for a different n_heads)");
    add_alibi(slopes[head], scores, Tq, Tk, ld, q_pos0, k_pos0, symmetric);
  };
}

}  // namespace tfp::nn
