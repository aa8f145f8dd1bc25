// LayerNorm over each token's C channels. The kernel (kernels/simd/layernorm.cpp) does the
// arithmetic in float (mean, then a corrected two-pass biased variance, then scale and
// shift); RMSNorm is here, its mean square summed in double. This file also checks shapes
// and names the op.
#include "nn/layer_norm.h"

#include <cmath>

#include "kernels/kernels.h"

namespace tfp::nn {

namespace {
// RMSNorm of T rows of C channels, x → y (may alias).
void rms_rows(const float* x, const LayerNormWeights& w, float* y, int64_t T, int64_t C) {
  for (int64_t t = 0; t < T; ++t) {
    const float* xr = x + t * C;
    float* yr = y + t * C;
    double ss = 0;
    for (int64_t c = 0; c < C; ++c) ss += static_cast<double>(xr[c]) * xr[c];
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(C) + w.eps);
    for (int64_t c = 0; c < C; ++c) {
      const double g = w.plus_one ? 1.0 + w.gamma.data[c] : w.gamma.data[c];
      yr[c] = static_cast<float>(xr[c] * inv * g);
    }
  }
}

void norm_rows(const float* x, const LayerNormWeights& w, float* y, int64_t T, int64_t C) {
  if (w.rms) return rms_rows(x, w, y, T, C);
  if (!w.plus_one) {
    kernels::layernorm_rows(x, w.gamma.data, w.beta.empty() ? nullptr : w.beta.data, y,
                            static_cast<int>(T), static_cast<int>(C), w.eps);
    return;
  }
  std::vector<float> g(w.gamma.data, w.gamma.data + C);
  for (float& v : g) v += 1.0f;
  kernels::layernorm_rows(x, g.data(), w.beta.empty() ? nullptr : w.beta.data, y,
                          static_cast<int>(T), static_cast<int>(C), w.eps);
}
}  // namespace

static void check(const TensorView& x, const LayerNormWeights& w, const char* op) {
  TFP_CHECK(!w.empty(), op, ": layer norm has no gamma (weight)");
  TFP_CHECK(x.rank() >= 1, op, ": input has shape ", shape_str(x.shape), ", expected (T, C)");
  const int64_t C = x.dim(-1);
  expect_shape(op, "gamma", w.gamma.shape, {C});
  if (!w.beta.empty()) expect_shape(op, "beta", w.beta.shape, {C});
  TFP_CHECK(!(w.rms && !w.beta.empty()), op, ": an RMSNorm has no beta (bias)");
}

void layer_norm_inplace(Tensor& x, const LayerNormWeights& w, const char* op) {
  check(x.view(), w, op);
  const int64_t C = x.dim(-1);
  const int64_t T = C ? x.numel() / C : 0;
  if (T == 0) return;
  norm_rows(x.ptr(), w, x.ptr(), T, C);
}

void norm_rows_inplace(float* x, int64_t rows, int64_t C, const LayerNormWeights& w, const char* op) {
  check(TensorView(x, {rows, C}), w, op);
  norm_rows(x, w, x, rows, C);
}

Tensor layer_norm(const TensorView& x, const LayerNormWeights& w, const char* op) {
  check(x, w, op);
  Tensor y(x.shape);
  const int64_t C = x.dim(-1);
  const int64_t T = C ? x.numel() / C : 0;
  if (T == 0) return y;
  norm_rows(x.data, w, y.ptr(), T, C);
  return y;
}

}  // namespace tfp::nn
