// RoPE: rotate channel pairs of queries and keys by position-dependent angles.
// See positional_rope.h for the maths and the two pairing conventions.
// Angles are formed in double (pos·θ reaches 10⁴ rad and beyond with a long context;
// a float product would lose ~1e-3 rad) and only cos/sin are stored as float.
//
// Legend: T tokens, H heads, D head size, R rotated channels.
#include "nn/positional_rope.h"

#include <cmath>
#include <vector>

namespace tfp::nn {

static int rotary_dim_of(const RopeConfig& cfg, int D) {
  const int R = cfg.rotary_dim == 0 ? D : cfg.rotary_dim;
  TFP_CHECK(R > 0 && R <= D && R % 2 == 0, "rope: rotary_dim must be even and in 1..D = ", D,
            " (0 = D), got ", cfg.rotary_dim);
  TFP_CHECK(cfg.base > 1.0, "rope: base must be > 1, got ", cfg.base);
  return R;
}

void apply_rope(float* x,  // (T, D), row stride ld
                int T, int D, int64_t ld, int64_t pos0, const RopeConfig& cfg) {
  TFP_CHECK(T >= 0 && D > 0 && ld >= D && pos0 >= 0, "rope: bad block T = ", T, ", D = ", D,
            ", ld = ", ld, ", pos0 = ", pos0);
  const int R = rotary_dim_of(cfg, D);
  const int half = R / 2;
  std::vector<double> inv_freq(half);  // θ_p = base^(-2p/R)
  for (int p = 0; p < half; ++p) inv_freq[p] = std::pow(cfg.base, -2.0 * p / R);
  for (int t = 0; t < T; ++t) {
    float* row = x + t * ld;
    const double pos = static_cast<double>(pos0 + t);
    for (int p = 0; p < half; ++p) {
      const double angle = pos * inv_freq[p];
      const float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
      // The two channels that form pair p under each convention.
      const int a = cfg.pairing == RopePairing::Interleaved ? 2 * p : p;
      const int b = cfg.pairing == RopePairing::Interleaved ? 2 * p + 1 : p + half;
      const float xa = row[a], xb = row[b];
      row[a] = xa * c - xb * s;
      row[b] = xa * s + xb * c;
    }
  }
}

Tensor rope(const TensorView& x, int64_t pos0, const RopeConfig& cfg) {
  TFP_CHECK(x.rank() == 2 || x.rank() == 3, "rope: x must be (T, D) or (H, T, D), got ",
            shape_str(x.shape));
  Tensor y(x.shape, std::vector<float>(x.data, x.data + x.numel()));
  const int64_t H = x.rank() == 3 ? x.shape[0] : 1;
  const int64_t T = x.dim(-2), D = x.dim(-1);
  for (int64_t h = 0; h < H; ++h)
    apply_rope(y.ptr() + h * T * D, static_cast<int>(T), static_cast<int>(D), D, pos0, cfg);
  return y;
}

AttentionHooks::RotateFn rope_rotation(const RopeConfig& cfg) {
  return [cfg](float* x, int T, int D, int64_t ld, int64_t pos0) {
    apply_rope(x, T, D, ld, pos0, cfg);
  };
}

}  // namespace tfp::nn
