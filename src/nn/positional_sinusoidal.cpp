// Sinusoidal positional encoding: see positional_sinusoidal.h for the formula.
// Angles are computed in double: at pos = 10⁴ a float angle would already carry an
// error of ~1e-3 rad, visible in the tutorials' heatmaps and in the tests.
//
// Legend: T tokens, C channels.
#include "nn/positional_sinusoidal.h"

#include <algorithm>
#include <cmath>

namespace tfp::nn {

double sinusoidal_frequency(int64_t C, int64_t i, double base) {
  TFP_CHECK(C > 0 && i >= 0 && 2 * i < C, "sinusoidal_frequency: need 0 <= 2i < C; got i = ", i, ", C = ", C);
  TFP_CHECK(base > 1.0, "sinusoidal_frequency: base must be > 1, got ", base);
  return std::pow(base, -static_cast<double>(2 * i) / static_cast<double>(C));
}

double timing_signal_frequency(int64_t C, int64_t i, double base) {
  TFP_CHECK(C > 0 && i >= 0 && i < C / 2, "timing_signal_frequency: need 0 <= i < C/2; got i = ", i, ", C = ", C);
  TFP_CHECK(base > 1.0, "timing_signal_frequency: base must be > 1, got ", base);
  const double increment = std::log(base) / static_cast<double>(std::max<int64_t>(C / 2 - 1, 1));
  return std::exp(-static_cast<double>(i) * increment);
}

namespace {

// tensor2tensor's get_timing_signal_1d: [sin(pos·ω_i) for i < n | cos(pos·ω_i) for i < n],
// n = C/2, a zero channel last when C is odd (its tf.pad).
Tensor timing_signal(int64_t T, int64_t C, int64_t pos0, double base) {
  Tensor pe({T, C});  // (T, C), zero-filled
  const int64_t n = C / 2;
  for (int64_t i = 0; i < n; ++i) {
    const double omega = timing_signal_frequency(C, i, base);
    for (int64_t t = 0; t < T; ++t) {
      const double angle = static_cast<double>(pos0 + t) * omega;
      float* row = pe.row(t);
      row[i] = static_cast<float>(std::sin(angle));
      row[n + i] = static_cast<float>(std::cos(angle));
    }
  }
  return pe;
}

}  // namespace

Tensor sinusoidal_encoding(int64_t T, int64_t C, int64_t pos0, double base, SinusoidalLayout layout) {
  TFP_CHECK(T >= 0 && C > 0 && pos0 >= 0, "sinusoidal_encoding: need T >= 0, C > 0, pos0 >= 0; got T = ",
            T, ", C = ", C, ", pos0 = ", pos0);
  TFP_CHECK(base > 1.0, "sinusoidal_encoding: base must be > 1, got ", base);
  if (layout == SinusoidalLayout::Tensor2Tensor) return timing_signal(T, C, pos0, base);
  const bool halves = layout == SinusoidalLayout::Halves;
  TFP_CHECK(!halves || C % 2 == 0, "sinusoidal_encoding: the halves layout needs an even C, got ", C);
  Tensor pe({T, C});  // (T, C)
  for (int64_t i = 0; 2 * i < C; ++i) {
    // Pair i: sin and cos of pos·ω_i, in channels (2i, 2i+1) or (i, C/2 + i). The angle is
    // pos / base^(2i/C), a division, not pos · ω_i: the two differ in the last bit of a few
    // angles in a million, and every model and fixture here was made with the division.
    const double one_over_omega = std::pow(base, static_cast<double>(2 * i) / static_cast<double>(C));
    const int64_t cs = halves ? i : 2 * i, cc = halves ? C / 2 + i : 2 * i + 1;
    for (int64_t t = 0; t < T; ++t) {
      const double angle = static_cast<double>(pos0 + t) / one_over_omega;
      float* row = pe.row(t);
      row[cs] = static_cast<float>(std::sin(angle));
      if (cc < C) row[cc] = static_cast<float>(std::cos(angle));
    }
  }
  return pe;
}

Tensor sinusoidal_encoding(int64_t T, int64_t C, int64_t pos0, double base) {
  return sinusoidal_encoding(T, C, pos0, base, SinusoidalLayout::Interleaved);
}

std::array<double, 4> sinusoidal_shift_matrix(int64_t C, int64_t i, int64_t k, double base) {
  // sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b - sin a sin b, b = kω.
  const double b = static_cast<double>(k) * sinusoidal_frequency(C, i, base);
  return {std::cos(b), std::sin(b), -std::sin(b), std::cos(b)};
}

void add_sinusoidal_encoding(Tensor& x, int64_t pos0, double base) {
  TFP_CHECK(x.rank() == 2, "add_sinusoidal_encoding: x must be (T, C), got ", shape_str(x.shape));
  const Tensor pe = sinusoidal_encoding(x.shape[0], x.shape[1], pos0, base);
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] += pe.data[i];
}

}  // namespace tfp::nn
