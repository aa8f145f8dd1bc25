// Additive (Bahdanau) attention. Oracle: the formula e_j = vᵀ tanh(W s + U h_j) written
// in double in this file, and one hand-derived example. Tolerance 1e-5 absolute.
#include <doctest/doctest.h>

#include <cmath>

#include "nn/additive_attention.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;

TEST_CASE("attention/additive: hand example") {
  // A = 1, W = [1], U = [1], v = [2], s = [0], h = [[0], [big]]:
  // e_0 = 2·tanh(0) = 0, e_1 = 2·tanh(big) ≈ 2 → α = softmax(0, 2) = (1, e²)/(1 + e²).
  Tensor W({1, 1}, {1.0f}), U({1, 1}, {1.0f}), v({1}, {2.0f});
  Tensor s({1, 1}, {0.0f}), h({2, 1}, {0.0f, 20.0f});
  AdditiveAttentionWeights w{Linear{W, {}, WeightLayout::OutIn}, Linear{U, {}, WeightLayout::OutIn}, v};
  AdditiveAttentionResult r = additive_attention(s, h, w);
  const double e2 = std::exp(2.0);
  CHECK(r.scores.data[0] == 0.0f);
  CHECK(r.scores.data[1] == doctest::Approx(2.0));
  CHECK(r.probs.data[0] == doctest::Approx(1.0 / (1.0 + e2)));
  CHECK(r.probs.data[1] == doctest::Approx(e2 / (1.0 + e2)));
  CHECK(r.context.data[0] == doctest::Approx(20.0 * e2 / (1.0 + e2)));
}

TEST_CASE("attention/additive: random odd sizes against double, padding, different widths") {
  testref::Rng rng(31);
  const int Tq = 3, Tk = 7, Cs = 5, Ch = 6, A = 9;
  Tensor W = rng.tensor({A, Cs}), bW = rng.tensor({A}), U = rng.tensor({Ch, A}), v = rng.tensor({A});
  Tensor s = rng.tensor({Tq, Cs}), h = rng.tensor({Tk, Ch});
  AdditiveAttentionWeights w{Linear{W, bW, WeightLayout::OutIn}, Linear{U, {}, WeightLayout::InOut}, v};
  AttentionMask m;
  m.key_padding = {0, 0, 1, 0, 0, 0, 1};
  AdditiveAttentionResult r = additive_attention(s, h, w, m);
  REQUIRE(r.context.shape == Shape{Tq, Ch});
  REQUIRE(r.probs.shape == Shape{Tq, Tk});

  std::vector<double> probs(Tq * Tk), ctx(Tq * Ch, 0.0);
  for (int i = 0; i < Tq; ++i) {
    std::vector<double> e(Tk);
    double mx = -1e300, sum = 0;
    for (int j = 0; j < Tk; ++j) {
      double acc = 0;
      for (int a = 0; a < A; ++a) {
        double ws = bW.data[a], uh = 0;
        for (int c = 0; c < Cs; ++c) ws += double(W.data[a * Cs + c]) * s.data[i * Cs + c];
        for (int c = 0; c < Ch; ++c) uh += double(U.data[c * A + a]) * h.data[j * Ch + c];  // (in, out)
        acc += v.data[a] * std::tanh(ws + uh);
      }
      e[j] = acc;
      if (!m.key_padding[j]) mx = std::max(mx, acc);
    }
    for (int j = 0; j < Tk; ++j) sum += m.key_padding[j] ? 0.0 : std::exp(e[j] - mx);
    for (int j = 0; j < Tk; ++j) {
      probs[i * Tk + j] = m.key_padding[j] ? 0.0 : std::exp(e[j] - mx) / sum;
      for (int c = 0; c < Ch; ++c) ctx[i * Ch + c] += probs[i * Tk + j] * h.data[j * Ch + c];
    }
  }
  CHECK(testref::max_abs_diff(r.probs.ptr(), probs) < 1e-5);
  CHECK(testref::max_abs_diff(r.context.ptr(), ctx) < 1e-5);
  for (int i = 0; i < Tq; ++i) {
    CHECK(r.probs.data[i * Tk + 2] == 0.0f);  // padded: exactly 0
    CHECK(std::isinf(r.scores.data[i * Tk + 6]));
  }

  AttentionMask all;
  all.key_padding.assign(Tk, 1);
  AdditiveAttentionResult z = additive_attention(s, h, w, all);
  for (float p : z.probs.data) CHECK(p == 0.0f);
  for (float c : z.context.data) CHECK(c == 0.0f);
}

TEST_CASE("attention/additive: errors") {
  Tensor W({4, 3}), U({4, 2}), v({5}), s({1, 3}), h({2, 2});
  AdditiveAttentionWeights w{Linear{W, {}, WeightLayout::OutIn}, Linear{U, {}, WeightLayout::OutIn}, v};
  CHECK_THROWS_WITH_AS(additive_attention(s, h, w),
                       "additive_attention: W [4, 3], U [4, 2] and v [5] must agree on the attention width A = 4",
                       Error);
  Tensor v4({4});
  w.v = v4;
  CHECK_THROWS_WITH_AS(additive_attention(Tensor({1, 2}), h, w),
                       "additive_attention: input has shape [1, 2] but the weight [4, 3] (out, in) expects 3 input features",
                       Error);
  CHECK_THROWS_AS(additive_attention(s, Tensor({0, 2}), w), Error);
}
