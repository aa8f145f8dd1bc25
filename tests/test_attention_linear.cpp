// Linear attention (φ = elu + 1). Oracle: the quadratic form in double written here,
// out_i = Σ_j φ(q_i)·φ(k_j) v_j / Σ_j φ(q_i)·φ(k_j) over visible j. Tolerance 1e-5
// absolute (inputs in [-2, 2], D <= 8).
#include <doctest/doctest.h>

#include <cmath>

#include "nn/linear_attention.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;

namespace {

double phi(double x) { return x > 0 ? x + 1.0 : std::exp(x); }

void check_linear(int H, int Tq, int Tk, int D, int Dv, const LinearAttentionOptions& opt, uint64_t seed) {
  testref::Rng rng(seed);
  Tensor q = rng.tensor({H, Tq, D}, 2.0f), k = rng.tensor({H, Tk, D}, 2.0f), v = rng.tensor({H, Tk, Dv});
  AttentionResult r = linear_attention(q, k, v, opt, true);
  REQUIRE(r.out.shape == Shape{H, Tq, Dv});
  REQUIRE(r.probs.shape == Shape{H, Tq, Tk});
  std::vector<double> out(H * Tq * Dv, 0.0), probs(H * Tq * Tk, 0.0);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < Tq; ++i) {
      std::vector<double> w(Tk, 0.0);
      double sum = 0;
      for (int j = 0; j < Tk; ++j) {
        if (opt.causal && j > i + (Tk - Tq)) continue;
        if (!opt.key_padding.empty() && opt.key_padding[j]) continue;
        double s = 0;
        for (int d = 0; d < D; ++d) s += phi(q.data[(h * Tq + i) * D + d]) * phi(k.data[(h * Tk + j) * D + d]);
        sum += (w[j] = s);
      }
      for (int j = 0; j < Tk; ++j) {
        const double p = sum > 0 ? w[j] / sum : 0.0;
        probs[(h * Tq + i) * Tk + j] = p;
        for (int c = 0; c < Dv; ++c) out[(h * Tq + i) * Dv + c] += p * v.data[(h * Tk + j) * Dv + c];
      }
    }
  CHECK(testref::max_abs_diff(r.out.ptr(), out) < 1e-5);
  CHECK(testref::max_abs_diff(r.probs.ptr(), probs) < 1e-5);
  for (size_t i = 0; i < probs.size(); ++i)
    if (probs[i] == 0.0) CHECK(r.probs.data[i] == 0.0f);  // invisible keys: exactly 0
  // The fast path does not depend on computing the matrix.
  AttentionResult fast = linear_attention(q, k, v, opt, false);
  CHECK(fast.probs.empty());
  CHECK(fast.out.data == r.out.data);
}

}  // namespace

TEST_CASE("attention/linear: feature map elu(x)+1") {
  float x[4] = {-1.0f, 0.0f, 0.5f, 3.0f};
  elu_plus_one(x, 4);
  CHECK(x[0] == doctest::Approx(std::exp(-1.0)));
  CHECK(x[1] == 1.0f);
  CHECK(x[2] == 1.5f);
  CHECK(x[3] == 4.0f);
}

TEST_CASE("attention/linear: non-causal and causal against the quadratic form") {
  check_linear(1, 1, 1, 1, 1, {}, 1);
  check_linear(2, 5, 5, 4, 3, {}, 2);
  check_linear(3, 3, 7, 5, 6, {}, 3);
  LinearAttentionOptions causal;
  causal.causal = true;
  check_linear(2, 6, 6, 4, 4, causal, 4);
  check_linear(2, 2, 7, 8, 3, causal, 5);  // KV offset: queries are the last 2 positions
  check_linear(1, 4, 2, 3, 3, causal, 6);  // Tq > Tk: first queries see nothing → 0
  LinearAttentionOptions pad;
  pad.key_padding = {0, 1, 0, 0, 1};
  check_linear(2, 3, 5, 4, 2, pad, 7);
  pad.causal = true;
  check_linear(2, 5, 5, 4, 2, pad, 8);
  LinearAttentionOptions allpad;
  allpad.key_padding = {1, 1};
  check_linear(1, 2, 2, 3, 3, allpad, 9);
}

TEST_CASE("attention/linear: errors") {
  Tensor q({2, 3, 4}), k({2, 5, 4}), v({2, 5, 4});
  CHECK_THROWS_AS(linear_attention(q, Tensor({2, 5, 3}), v), Error);
  LinearAttentionOptions bad;
  bad.key_padding = {0};
  CHECK_THROWS_WITH_AS(linear_attention(q, k, v, bad),
                       "linear_attention: key_padding has 1 entries, expected Tk = 5", Error);
}
