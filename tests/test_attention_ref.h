// Test oracles for attention: the same maths as src/nn/attention.cpp written the
// obvious way in double precision, with no kernels and no strides, plus a seeded RNG.
// Shared by tests/test_attention*.cpp and tests/test_positional*.cpp.
//
// Legend: Tq query tokens, Tk key/value tokens, C model width, H heads, D head size.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "core/tensor.h"

namespace tfp::testref {

// xorshift-style seeded generator: same numbers natively and in WASM.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double uniform() {  // [0, 1)
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  float sym(float a = 1.0f) { return static_cast<float>((2.0 * uniform() - 1.0) * a); }
  Tensor tensor(Shape shape, float a = 1.0f) {
    Tensor t(shape);
    for (float& x : t.data) x = sym(a);
    return t;
  }
};

// allowed(h, i, j) false → masked; bias(h, i, j) is added to the scaled score.
using Allowed = std::function<bool(int, int, int)>;
using Bias = std::function<double(int, int, int)>;

// Double-precision attention on per-head (H, T, D) arrays.
// Outputs out (H, Tq, Dv) and probs (H, Tq, Tk); a row with nothing allowed is all 0.
inline void sdpa(const std::vector<double>& q, const std::vector<double>& k,
                 const std::vector<double>& v, int H, int Tq, int Tk, int D, int Dv, double scale,
                 const Allowed& allowed, const Bias& bias, std::vector<double>& out,
                 std::vector<double>& probs) {
  out.assign(static_cast<size_t>(H) * Tq * Dv, 0.0);
  probs.assign(static_cast<size_t>(H) * Tq * Tk, 0.0);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < Tq; ++i) {
      std::vector<double> s(Tk);
      double mx = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < Tk; ++j) {
        if (allowed && !allowed(h, i, j)) { s[j] = -std::numeric_limits<double>::infinity(); continue; }
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += q[(static_cast<size_t>(h) * Tq + i) * D + d] * k[(static_cast<size_t>(h) * Tk + j) * D + d];
        s[j] = dot * scale + (bias ? bias(h, i, j) : 0.0);
        mx = std::max(mx, s[j]);
      }
      if (mx == -std::numeric_limits<double>::infinity()) continue;  // all masked: zeros
      double sum = 0;
      for (int j = 0; j < Tk; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (int j = 0; j < Tk; ++j) {
        const double p = s[j] / sum;
        probs[(static_cast<size_t>(h) * Tq + i) * Tk + j] = p;
        for (int d = 0; d < Dv; ++d)
          out[(static_cast<size_t>(h) * Tq + i) * Dv + d] += p * v[(static_cast<size_t>(h) * Tk + j) * Dv + d];
      }
    }
}

// y (T, O) = x (T, I) · Wᵀ + b with W given as (O, I) row-major, in double.
inline std::vector<double> linear_oi(const std::vector<double>& x, int T, int I,
                                     const float* W, const float* b, int O) {
  std::vector<double> y(static_cast<size_t>(T) * O);
  for (int t = 0; t < T; ++t)
    for (int o = 0; o < O; ++o) {
      double acc = b ? b[o] : 0.0;
      for (int i = 0; i < I; ++i) acc += x[static_cast<size_t>(t) * I + i] * W[static_cast<size_t>(o) * I + i];
      y[static_cast<size_t>(t) * O + o] = acc;
    }
  return y;
}

inline std::vector<double> to_double(const float* p, size_t n) { return std::vector<double>(p, p + n); }

// (T, C) → (H, T, D)
inline std::vector<double> split_heads(const std::vector<double>& x, int T, int H, int D) {
  std::vector<double> y(x.size());
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      for (int d = 0; d < D; ++d)
        y[(static_cast<size_t>(h) * T + t) * D + d] = x[static_cast<size_t>(t) * H * D + h * D + d];
  return y;
}
// (H, T, D) → (T, C)
inline std::vector<double> merge_heads(const std::vector<double>& x, int T, int H, int D) {
  std::vector<double> y(x.size());
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      for (int d = 0; d < D; ++d)
        y[static_cast<size_t>(t) * H * D + h * D + d] = x[(static_cast<size_t>(h) * T + t) * D + d];
  return y;
}

inline double max_abs_diff(const float* a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - b[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();  // NaN fails any bound
    m = std::max(m, d);
  }
  return m;
}

}  // namespace tfp::testref
