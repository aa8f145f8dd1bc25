// Multi-head attention: projections + per-head attention + output projection, against
// a double-precision reference built from the same weights (tests/test_attention_ref.h).
// Tolerance 2e-5 absolute (inputs and weights in [-0.5, 0.5], C <= 24: f32 rounding in
// three chained matmuls stays well below it).
#include <doctest/doctest.h>

#include <cmath>

#include "nn/attention.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;
using testref::Rng;

namespace {

struct Weights {  // PyTorch layout: in_proj (3C, Ckv... ) stored as separate (C, Cin) blocks
  Tensor Wq, Wk, Wv, bq, bk, bv, Wo, bo;
};

Weights random_weights(Rng& rng, int C, int Ckv) {
  return {rng.tensor({C, C}, 0.5f),  rng.tensor({C, Ckv}, 0.5f), rng.tensor({C, Ckv}, 0.5f),
          rng.tensor({C}, 0.5f),     rng.tensor({C}, 0.5f),      rng.tensor({C}, 0.5f),
          rng.tensor({C, C}, 0.5f),  rng.tensor({C}, 0.5f)};
}

// The double-precision oracle: out (Tq, C), probs (H, Tq, Tk).
void reference_mha(const Tensor& xq, const Tensor& xkv, const Weights& w, int H, bool causal,
                   std::vector<double>& out, std::vector<double>& probs) {
  const int Tq = static_cast<int>(xq.shape[0]), Tk = static_cast<int>(xkv.shape[0]);
  const int C = static_cast<int>(xq.shape[1]), Ckv = static_cast<int>(xkv.shape[1]), D = C / H;
  auto dq = testref::to_double(xq.ptr(), xq.data.size());
  auto dkv = testref::to_double(xkv.ptr(), xkv.data.size());
  auto q = testref::split_heads(testref::linear_oi(dq, Tq, C, w.Wq.ptr(), w.bq.ptr(), C), Tq, H, D);
  auto k = testref::split_heads(testref::linear_oi(dkv, Tk, Ckv, w.Wk.ptr(), w.bk.ptr(), C), Tk, H, D);
  auto v = testref::split_heads(testref::linear_oi(dkv, Tk, Ckv, w.Wv.ptr(), w.bv.ptr(), C), Tk, H, D);
  std::vector<double> heads;
  testref::Allowed allowed;
  if (causal) allowed = [&](int, int i, int j) { return j <= i + (Tk - Tq); };
  testref::sdpa(q, k, v, H, Tq, Tk, D, D, 1.0 / std::sqrt(static_cast<double>(D)), allowed, {}, heads, probs);
  out = testref::linear_oi(testref::merge_heads(heads, Tq, H, D), Tq, C, w.Wo.ptr(), w.bo.ptr(), C);
}

// Stack q | k | v into PyTorch's in_proj_weight (3C, C) and bias (3C).
void fuse(const Weights& w, Tensor& W, Tensor& b) {
  W = Tensor({3 * w.Wq.shape[0], w.Wq.shape[1]});
  b = Tensor({3 * w.bq.shape[0]});
  std::copy(w.Wq.data.begin(), w.Wq.data.end(), W.data.begin());
  std::copy(w.Wk.data.begin(), w.Wk.data.end(), W.data.begin() + w.Wq.numel());
  std::copy(w.Wv.data.begin(), w.Wv.data.end(), W.data.begin() + 2 * w.Wq.numel());
  std::copy(w.bq.data.begin(), w.bq.data.end(), b.data.begin());
  std::copy(w.bk.data.begin(), w.bk.data.end(), b.data.begin() + w.bq.numel());
  std::copy(w.bv.data.begin(), w.bv.data.end(), b.data.begin() + 2 * w.bq.numel());
}

Tensor transpose(const Tensor& W) {  // (R, S) → (S, R)
  const int64_t R = W.shape[0], S = W.shape[1];
  Tensor t({S, R});
  for (int64_t r = 0; r < R; ++r)
    for (int64_t s = 0; s < S; ++s) t.data[s * R + r] = W.data[r * S + s];
  return t;
}

void check_close(const AttentionResult& r, const std::vector<double>& out, const std::vector<double>& probs) {
  CHECK(testref::max_abs_diff(r.out.ptr(), out) < 2e-5);
  CHECK(testref::max_abs_diff(r.probs.ptr(), probs) < 2e-5);
}

}  // namespace

TEST_CASE("attention/mha: self-attention, fused OutIn, fused InOut (GPT-2), separate agree with double") {
  for (int H : {1, 2, 3, 6}) {
    Rng rng(100 + H);
    const int C = 12, T = 5;
    Weights w = random_weights(rng, C, C);
    Tensor x = rng.tensor({T, C}, 0.5f);
    for (bool causal : {false, true}) {
      CAPTURE(H);
      CAPTURE(causal);
      std::vector<double> out, probs;
      reference_mha(x, x, w, H, causal, out, probs);
      AttentionMask m;
      m.causal = causal;

      Tensor W, b;
      fuse(w, W, b);
      AttentionWeights fused;
      fused.qkv = Linear{W, b, WeightLayout::OutIn};
      fused.out = Linear{w.Wo, w.bo, WeightLayout::OutIn};
      AttentionResult r = multi_head_attention(x, x, fused, H, m, true);
      REQUIRE(r.out.shape == Shape{T, C});
      REQUIRE(r.probs.shape == Shape{H, T, T});
      check_close(r, out, probs);

      // GPT-2 Conv1D: c_attn (C, 3C), c_proj (C, C), both (in, out).
      Tensor Wt = transpose(W), Wot = transpose(w.Wo);
      AttentionWeights gpt2;
      gpt2.qkv = Linear{Wt, b, WeightLayout::InOut};
      gpt2.out = Linear{Wot, w.bo, WeightLayout::InOut};
      check_close(multi_head_attention(x, x, gpt2, H, m, true), out, probs);

      AttentionWeights sep;
      sep.q = Linear{w.Wq, w.bq, WeightLayout::OutIn};
      sep.k = Linear{w.Wk, w.bk, WeightLayout::OutIn};
      sep.v = Linear{w.Wv, w.bv, WeightLayout::OutIn};
      sep.out = fused.out;
      check_close(multi_head_attention(x, x, sep, H, m, true), out, probs);
    }
  }
}

TEST_CASE("attention/mha: cross-attention Tk != Tq, fused and separate, kdim != C") {
  Rng rng(5);
  const int C = 8, H = 2, Tq = 3, Tk = 7;
  Weights w = random_weights(rng, C, C);
  Tensor xq = rng.tensor({Tq, C}, 0.5f), xkv = rng.tensor({Tk, C}, 0.5f);
  std::vector<double> out, probs;
  reference_mha(xq, xkv, w, H, false, out, probs);
  Tensor W, b;
  fuse(w, W, b);
  AttentionWeights fused;
  fused.qkv = Linear{W, b, WeightLayout::OutIn};
  fused.out = Linear{w.Wo, w.bo, WeightLayout::OutIn};
  check_close(multi_head_attention(xq, xkv, fused, H, {}, true), out, probs);
  Tensor Wt = transpose(W);
  AttentionWeights gpt2 = fused;
  gpt2.qkv = Linear{Wt, b, WeightLayout::InOut};
  check_close(multi_head_attention(xq, xkv, gpt2, H, {}, true), out, probs);

  // Memory of another width (PyTorch kdim = vdim = 5) needs separate k, v.
  Weights w5 = random_weights(rng, C, 5);
  Tensor mem = rng.tensor({Tk, 5}, 0.5f);
  reference_mha(xq, mem, w5, H, false, out, probs);
  AttentionWeights sep;
  sep.q = Linear{w5.Wq, w5.bq, WeightLayout::OutIn};
  sep.k = Linear{w5.Wk, w5.bk, WeightLayout::OutIn};
  sep.v = Linear{w5.Wv, w5.bv, WeightLayout::OutIn};
  sep.out = Linear{w5.Wo, w5.bo, WeightLayout::OutIn};
  check_close(multi_head_attention(xq, mem, sep, H, {}, true), out, probs);
}

TEST_CASE("attention/mha: T=1 and no output projection gives concatenated heads") {
  Rng rng(9);
  const int C = 6, H = 3;
  Weights w = random_weights(rng, C, C);
  Tensor x = rng.tensor({1, C}, 0.5f);
  AttentionWeights sep;
  sep.q = Linear{w.Wq, w.bq, WeightLayout::OutIn};
  sep.k = Linear{w.Wk, w.bk, WeightLayout::OutIn};
  sep.v = Linear{w.Wv, w.bv, WeightLayout::OutIn};
  AttentionResult r = multi_head_attention(x, x, sep, H, {}, true);
  // One key: probability 1, so the output is exactly the value projection.
  for (float p : r.probs.data) CHECK(p == doctest::Approx(1.0f));
  auto v = testref::linear_oi(testref::to_double(x.ptr(), C), 1, C, w.Wv.ptr(), w.bv.ptr(), C);
  CHECK(testref::max_abs_diff(r.out.ptr(), v) < 1e-5);
}

TEST_CASE("attention/mha: errors name the op and shapes") {
  Tensor W({12, 4}), b({12}), Wo({4, 4}), x({3, 4});
  AttentionWeights w;
  w.qkv = Linear{W, b, WeightLayout::OutIn};
  w.out = Linear{Wo, {}, WeightLayout::OutIn};
  CHECK_THROWS_WITH_AS(multi_head_attention(x, x, w, 3, {}, false),
                       "multi_head_attention: n_heads = 3 does not divide the model width C = 4", Error);
  CHECK_THROWS_WITH_AS(multi_head_attention(x, x, w, 0, {}, false),
                       "multi_head_attention: n_heads must be > 0, got 0", Error);
  CHECK_THROWS_WITH_AS(multi_head_attention(Tensor({3, 5}), x, w, 2, {}, false),
                       "multi_head_attention: query [3, 5] and key/value [3, 4] must be C = 4 wide for "
                       "fused qkv weight [12, 4]",
                       Error);
  CHECK_THROWS_WITH_AS(multi_head_attention(Tensor({0, 4}), x, w, 2, {}, false),
                       "multi_head_attention: empty sequence: query [0, 4], key/value [3, 4]", Error);
  AttentionWeights bad = w;
  Tensor W2({8, 4});
  bad.qkv = Linear{W2, {}, WeightLayout::OutIn};
  CHECK_THROWS_WITH_AS(multi_head_attention(x, x, bad, 2, {}, false),
                       "multi_head_attention: fused qkv weight [8, 4] (out, in) must map C to 3C (q | k | v)",
                       Error);
  AttentionWeights none;
  CHECK_THROWS_WITH_AS(multi_head_attention(x, x, none, 2, {}, false),
                       "multi_head_attention: weights need either a fused qkv projection or all of q, k, v",
                       Error);
  AttentionMask m;
  m.additive = Tensor({3, 4});
  CHECK_THROWS_WITH_AS(multi_head_attention(x, x, w, 2, m, false),
                       "multi_head_attention: additive mask has shape [3, 4], expected [3, 3] or [2, 3, 3] "
                       "(H, Tq, Tk)",
                       Error);
}
