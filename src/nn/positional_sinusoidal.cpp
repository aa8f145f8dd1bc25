// Sinusoidal positional encoding: see positional_sinusoidal.h for the formula.
// Angles are computed in double: at pos = 10⁴ a float angle would already carry an
// error of ~1e-3 rad, visible in the tutorials' heatmaps and in the tests.
//
// Legend: T tokens, C channels.
#include "nn/positional_sinusoidal.h"

#include <cmath>

namespace tfp::nn {

Tensor sinusoidal_encoding(int64_t T, int64_t C, int64_t pos0, double base) {
  TFP_CHECK(T >= 0 && C > 0 && pos0 >= 0, "sinusoidal_encoding: need T >= 0, C > 0, pos0 >= 0; got T = ",
            T, ", C = ", C, ", pos0 = ", pos0);
  TFP_CHECK(base > 1.0, "sinusoidal_encoding: base must be > 1, got ", base);
  Tensor pe({T, C});  // (T, C)
  for (int64_t c = 0; c < C; c += 2) {
    // Channels 2i and 2i+1 share the frequency 1 / base^(2i/C); here c = 2i.
    const double inv_freq = std::pow(base, -static_cast<double>(c) / static_cast<double>(C));
    for (int64_t t = 0; t < T; ++t) {
      const double angle = static_cast<double>(pos0 + t) * inv_freq;
      float* row = pe.row(t);
      row[c] = static_cast<float>(std::sin(angle));
      if (c + 1 < C) row[c + 1] = static_cast<float>(std::cos(angle));
    }
  }
  return pe;
}

void add_sinusoidal_encoding(Tensor& x, int64_t pos0, double base) {
  TFP_CHECK(x.rank() == 2, "add_sinusoidal_encoding: x must be (T, C), got ", shape_str(x.shape));
  const Tensor pe = sinusoidal_encoding(x.shape[0], x.shape[1], pos0, base);
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] += pe.data[i];
}

}  // namespace tfp::nn
