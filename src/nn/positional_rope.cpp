// RoPE: rotate channel pairs of queries and keys by position-dependent angles.
// See positional_rope.h for the maths and the two pairing conventions.
// Angles are formed in double (pos·θ reaches 10⁴ rad and beyond with a long context;
// a float product would lose ~1e-3 rad) and only cos/sin are stored as float.
//
// Legend: T tokens, H heads, D head size, R rotated channels.
#include "nn/positional_rope.h"

#include <cmath>
#include <memory>
#include <vector>

namespace tfp::nn {

static int rotary_dim_of(const RopeConfig& cfg, int D) {
  const int R = cfg.rotary_dim == 0 ? D : cfg.rotary_dim;
  TFP_CHECK(R > 0 && R <= D && R % 2 == 0, "rope: rotary_dim must be even and in 1..D = ", D,
            " (0 = D), got ", cfg.rotary_dim);
  TFP_CHECK(cfg.base > 1.0, "rope: base must be > 1, got ", cfg.base);
  return R;
}

std::vector<double> rope_inv_freq(const RopeConfig& cfg, int R) {
  TFP_CHECK(R > 0 && R % 2 == 0, "rope: rotary_dim must be even and positive, got ", R);
  TFP_CHECK(cfg.base > 1.0, "rope: base must be > 1, got ", cfg.base);
  const int half = R / 2;
  std::vector<double> f(half);  // θ_p = base^(-2p/R)
  for (int p = 0; p < half; ++p) f[p] = std::pow(cfg.base, -2.0 * p / R);
  if (cfg.scaling == RopeScaling::None) return f;
  TFP_CHECK(cfg.factor >= 1.0, "rope: scaling factor must be >= 1, got ", cfg.factor);
  if (cfg.scaling == RopeScaling::Linear) {
    for (double& x : f) x /= cfg.factor;
    return f;
  }
  // Llama3: by wavelength λ = 2π/θ against the trained context length L.
  const double L = static_cast<double>(cfg.original_max_positions);
  TFP_CHECK(L > 0 && cfg.high_freq_factor > cfg.low_freq_factor && cfg.low_freq_factor > 0,
            "rope: llama3 scaling needs original_max_position_embeddings > 0 and "
            "high_freq_factor > low_freq_factor > 0");
  const double low_wavelen = L / cfg.low_freq_factor, high_wavelen = L / cfg.high_freq_factor;
  for (double& x : f) {
    const double wavelen = 6.283185307179586 / x;  // 2π/θ
    if (wavelen > low_wavelen) {
      x /= cfg.factor;  // slow pairs: interpolate positions
    } else if (wavelen >= high_wavelen) {  // the band between: blend
      const double smooth = (L / wavelen - cfg.low_freq_factor) / (cfg.high_freq_factor - cfg.low_freq_factor);
      x = (1.0 - smooth) * x / cfg.factor + smooth * x;
    }
  }
  return f;
}

namespace {
void rotate_rows(float* x, int T, int64_t ld, int64_t pos0, int R, const std::vector<double>& inv_freq,
                 RopePairing pairing) {
  const int half = R / 2;
  for (int t = 0; t < T; ++t) {
    float* row = x + t * ld;
    const double pos = static_cast<double>(pos0 + t);
    for (int p = 0; p < half; ++p) {
      const double angle = pos * inv_freq[p];
      const float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
      // The two channels that form pair p under each convention.
      const int a = pairing == RopePairing::Interleaved ? 2 * p : p;
      const int b = pairing == RopePairing::Interleaved ? 2 * p + 1 : p + half;
      const float xa = row[a], xb = row[b];
      row[a] = xa * c - xb * s;
      row[b] = xa * s + xb * c;
    }
  }
}
}  // namespace

void apply_rope(float* x,  // (T, D), row stride ld
                int T, int D, int64_t ld, int64_t pos0, const RopeConfig& cfg) {
  TFP_CHECK(T >= 0 && D > 0 && ld >= D && pos0 >= 0, "rope: bad block T = ", T, ", D = ", D,
            ", ld = ", ld, ", pos0 = ", pos0);
  const int R = rotary_dim_of(cfg, D);
  rotate_rows(x, T, ld, pos0, R, rope_inv_freq(cfg, R), cfg.pairing);
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
  // θ once per hook, not once per head and call.
  auto inv_freq = std::make_shared<std::vector<double>>();
  return [cfg, inv_freq](float* x, int T, int D, int64_t ld, int64_t pos0) {
    TFP_CHECK(T >= 0 && D > 0 && ld >= D && pos0 >= 0, "rope: bad block T = ", T, ", D = ", D,
              ", ld = ", ld, ", pos0 = ", pos0);
    const int R = rotary_dim_of(cfg, D);
    if (static_cast<int>(inv_freq->size()) * 2 != R) *inv_freq = rope_inv_freq(cfg, R);
    rotate_rows(x, T, ld, pos0, R, *inv_freq, cfg.pairing);
  };
}

}  // namespace tfp::nn
