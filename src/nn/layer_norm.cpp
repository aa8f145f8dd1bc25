// LayerNorm over each token's C channels. The kernel does the arithmetic (mean, biased
// variance in double, then scale and shift); this file checks shapes and names the op.
#include "nn/layer_norm.h"

#include "kernels/kernels.h"

namespace tfp::nn {

static void check(const TensorView& x, const LayerNormWeights& w, const char* op) {
  TFP_CHECK(!w.empty(), op, ": layer norm has no gamma (weight)");
  TFP_CHECK(x.rank() >= 1, op, ": input has shape ", shape_str(x.shape), ", expected (T, C)");
  const int64_t C = x.dim(-1);
  expect_shape(op, "gamma", w.gamma.shape, {C});
  if (!w.beta.empty()) expect_shape(op, "beta", w.beta.shape, {C});
}

void layer_norm_inplace(Tensor& x, const LayerNormWeights& w, const char* op) {
  check(x.view(), w, op);
  const int64_t C = x.dim(-1);
  const int64_t T = C ? x.numel() / C : 0;
  if (T == 0) return;
  kernels::layernorm_rows(x.ptr(), w.gamma.data, w.beta.empty() ? nullptr : w.beta.data, x.ptr(),
                          static_cast<int>(T), static_cast<int>(C), w.eps);
}

Tensor layer_norm(const TensorView& x, const LayerNormWeights& w, const char* op) {
  check(x, w, op);
  Tensor y(x.shape);
  const int64_t C = x.dim(-1);
  const int64_t T = C ? x.numel() / C : 0;
  if (T == 0) return y;
  kernels::layernorm_rows(x.data, w.gamma.data, w.beta.empty() ? nullptr : w.beta.data, y.ptr(),
                          static_cast<int>(T), static_cast<int>(C), w.eps);
  return y;
}

}  // namespace tfp::nn
