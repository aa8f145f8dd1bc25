// GRU forward at inference. See gru.h for the formulas.
#include "nn/gru.h"

#include <cmath>
#include <cstring>

namespace tfp::nn {

namespace {

void check_weights(const GruWeights& w, const char* op) {
  TFP_CHECK(!w.ih.empty() && !w.hh.empty(), op, ": GRU weights need ih and hh");
  const int64_t H = w.hh.in_features();
  TFP_CHECK(w.hh.out_features() == 3 * H && w.ih.out_features() == 3 * H, op, ": weight_ih ",
            shape_str(w.ih.weight.shape), " and weight_hh ", shape_str(w.hh.weight.shape),
            " must both have 3·H rows with H = ", H);
}

// The gate maths of one row, given gi = W_i·x + b_i and gh = W_h·h + b_h (each 3H).
void gates(float* h_out, const float* gi, const float* gh, const float* h, int64_t H) {
  for (int64_t k = 0; k < H; ++k) {
    const float r = 1.0f / (1.0f + std::exp(-(gi[k] + gh[k])));
    const float z = 1.0f / (1.0f + std::exp(-(gi[H + k] + gh[H + k])));
    const float n = std::tanh(gi[2 * H + k] + r * gh[2 * H + k]);
    h_out[k] = (1.0f - z) * n + z * h[k];
  }
}

}  // namespace

Tensor gru_step(const TensorView& x,  // (N, I)
                const TensorView& h,  // (N, H)
                const GruWeights& w) {
  const char* op = "gru_step";
  check_weights(w, op);
  const int64_t H = w.hidden();
  TFP_CHECK(x.rank() == 2 && h.rank() == 2 && h.shape[0] == x.shape[0] && h.shape[1] == H, op,
            ": x must be (N, I) and h (N, ", H, "); got ", shape_str(x.shape), " and ", shape_str(h.shape));
  const Tensor gi = linear(x, w.ih, op);  // (N, 3H)
  const Tensor gh = linear(h, w.hh, op);  // (N, 3H)
  Tensor out({x.shape[0], H});
  for (int64_t i = 0; i < x.shape[0]; ++i) gates(out.row(i), gi.row(i), gh.row(i), h.data + i * H, H);
  return out;
}

Tensor gru_sequence(const TensorView& x,  // (T, I)
                    const GruWeights& w, bool reverse, const TensorView& h0) {
  const char* op = "gru_sequence";
  check_weights(w, op);
  const int64_t H = w.hidden();
  TFP_CHECK(x.rank() == 2 && x.shape[0] > 0, op, ": x must be (T, I) with T > 0; got ", shape_str(x.shape));
  TFP_CHECK(h0.empty() || h0.numel() == H, op, ": h0 must have ", H, " values; got ", shape_str(h0.shape));
  const int64_t T = x.shape[0];
  const Tensor gi = linear(x, w.ih, op);  // (T, 3H): every step's input product at once
  Tensor out({T, H});
  std::vector<float> h(static_cast<size_t>(H), 0.0f);
  if (!h0.empty()) std::memcpy(h.data(), h0.data, sizeof(float) * H);
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = reverse ? T - 1 - s : s;
    const Tensor gh = linear(TensorView{h.data(), {1, H}}, w.hh, op);  // (1, 3H)
    gates(out.row(t), gi.row(t), gh.ptr(), h.data(), H);
    std::memcpy(h.data(), out.row(t), sizeof(float) * H);
  }
  return out;
}

}  // namespace tfp::nn
