// Attention rollout and head statistics (inspect/rollout.h) and their C API.
// Oracles: hand-derived small cases (derivations in comments); a naive double-precision
// chain of matrix products written here independently of the engine's loop; exact
// identities (α = 1 gives I, rows sum to 1, uniform rows have entropy ln Tk).
// Tolerance: 1e-6 absolute (float32 results of double-precision sums over ≤ 8 terms).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api/tfp_inspect_api.h"
#include "inspect/rollout.h"

using namespace tfp;
using inspect::attention_head_stats;
using inspect::attention_rollout;

namespace {

// Random causal attention maps (H, T, T): softmax of seeded scores over keys j <= i.
Tensor causal_probs(int H, int T, unsigned seed) {
  Tensor p({H, T, T});
  unsigned s = seed;
  auto next = [&] { s = s * 1664525u + 1013904223u; return static_cast<double>(s >> 8) / 16777216.0; };
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      std::vector<double> e(static_cast<size_t>(i + 1));
      double sum = 0;
      for (int j = 0; j <= i; ++j) sum += (e[static_cast<size_t>(j)] = std::exp(3.0 * next()));
      for (int j = 0; j <= i; ++j) p.ptr()[(h * T + i) * T + j] = static_cast<float>(e[static_cast<size_t>(j)] / sum);
    }
  return p;
}

}  // namespace

TEST_CASE("inspect rollout: one layer, hand-derived") {
  // A = [[1, 0], [0.5, 0.5]], one head, α = 0.5:
  // Â = 0.5·I + 0.5·A = [[1, 0], [0.25, 0.75]]; rows already sum to 1.
  Tensor a({1, 2, 2}, std::vector<float>{1, 0, 0.5f, 0.5f});
  Tensor r = attention_rollout({a.view()}, 0.5f);
  REQUIRE(r.shape == Shape{1, 2, 2});
  CHECK(r.data[0] == doctest::Approx(1.0).epsilon(1e-7));
  CHECK(r.data[1] == doctest::Approx(0.0));
  CHECK(r.data[2] == doctest::Approx(0.25).epsilon(1e-7));
  CHECK(r.data[3] == doctest::Approx(0.75).epsilon(1e-7));
  // Two identical layers: Â² = [[1, 0], [0.25 + 0.75·0.25, 0.75²]] = [[1, 0], [0.4375, 0.5625]].
  Tensor r2 = attention_rollout({a.view(), a.view()}, 0.5f);
  CHECK(r2.data[4 + 2] == doctest::Approx(0.4375).epsilon(1e-7));
  CHECK(r2.data[4 + 3] == doctest::Approx(0.5625).epsilon(1e-7));
}

TEST_CASE("inspect rollout: three layers of two heads equal a naive product chain") {
  const int L = 3, H = 2, T = 5;
  std::vector<Tensor> maps;
  std::vector<TensorView> views;
  for (int l = 0; l < L; ++l) maps.push_back(causal_probs(H, T, 17u + static_cast<unsigned>(l)));
  for (auto& m : maps) views.push_back(m.view());
  const float alpha = 0.3f;
  Tensor r = attention_rollout(views, alpha);
  REQUIRE(r.shape == Shape{L, T, T});

  // Oracle: R = I; for each layer R ← normalise(α·I + (1−α)·mean_h A) · R.
  std::vector<double> R(T * T, 0.0);
  for (int i = 0; i < T; ++i) R[i * T + i] = 1.0;
  double worst = 0, worst_rowsum = 0;
  for (int l = 0; l < L; ++l) {
    std::vector<double> M(T * T), N(T * T, 0.0);
    for (int i = 0; i < T; ++i) {
      double sum = 0;
      for (int j = 0; j < T; ++j) {
        double m = 0;
        for (int h = 0; h < H; ++h) m += maps[l].data[(h * T + i) * T + j];
        M[i * T + j] = (1 - alpha) * m / H + (i == j ? alpha : 0.0);
        sum += M[i * T + j];
      }
      for (int j = 0; j < T; ++j) M[i * T + j] /= sum;
    }
    for (int k = 0; k < T; ++k)
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) N[i * T + j] += M[i * T + k] * R[k * T + j];
    R = N;
    for (int i = 0; i < T; ++i) {
      double rowsum = 0;
      for (int j = 0; j < T; ++j) {
        const double got = r.data[(l * T + i) * T + j];
        worst = std::max(worst, std::abs(got - R[i * T + j]));
        rowsum += got;
        // Causal maps stay causal through the chain: nothing flows from later tokens.
        if (j > i) CHECK(got == 0.0f);
      }
      worst_rowsum = std::max(worst_rowsum, std::abs(rowsum - 1.0));
    }
  }
  CHECK(worst < 1e-6);
  CHECK(worst_rowsum < 1e-6);
}

TEST_CASE("inspect rollout: α = 1 is the identity; max/min fusion; errors name the layer") {
  Tensor a = causal_probs(3, 4, 5);
  Tensor id = attention_rollout({a.view(), a.view()}, 1.0f);
  for (int l = 0; l < 2; ++l)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) CHECK(id.data[(l * 4 + i) * 4 + j] == (i == j ? 1.0f : 0.0f));

  // α = 0, max over heads: row 0 of a causal map is [1, 0, 0, 0] in every head.
  Tensor mx = attention_rollout({a.view()}, 0.0f, inspect::HeadFusion::max);
  CHECK(mx.data[0] == 1.0f);
  double rowsum = 0;
  for (int j = 0; j < 4; ++j) rowsum += mx.data[3 * 4 + j];
  CHECK(rowsum == doctest::Approx(1.0).epsilon(1e-6));

  Tensor b({2, 3, 3});
  CHECK_THROWS_WITH_AS(attention_rollout({a.view(), b.view()}),
                       "attention_rollout: layer 1 has shape [2, 3, 3], expected [H, 4, 4] like layer 0", Error);
  CHECK_THROWS_WITH_AS(attention_rollout({}), "attention_rollout: no layers given", Error);
  CHECK_THROWS_WITH_AS(attention_rollout({a.view()}, 1.5f),
                       "attention_rollout: residual weight 1.5 is outside [0, 1]", Error);
}

TEST_CASE("inspect head stats: uniform, previous-token and first-token heads") {
  // Head 0 uniform over 4 keys on every row (not causal): entropy ln 4; distance for
  // query i is mean_j |i − j|: i=0: (0+1+2+3)/4 = 1.5, i=1: (1+0+1+2)/4 = 1,
  // i=2: 1, i=3: 1.5 → mean 1.25; first-token share 0.25; previous-token share:
  // rows 1..3 give 0.25, row 0 gives 0 → 0.75/4 = 0.1875.
  // Head 1 puts everything on the previous token (row 0 on itself): entropy 0,
  // distance (0+1+1+1)/4 = 0.75, first (1+1+0+0)/4 = 0.5, previous 3/4.
  const int T = 4;
  Tensor p({2, T, T});
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      p.ptr()[i * T + j] = 0.25f;
      p.ptr()[(T + i) * T + j] = (j == std::max(0, i - 1)) ? 1.0f : 0.0f;
    }
  Tensor s = attention_head_stats(p.view());
  REQUIRE(s.shape == Shape{2, 4});
  CHECK(s.data[0] == doctest::Approx(std::log(4.0)).epsilon(1e-6));
  CHECK(s.data[1] == doctest::Approx(1.25).epsilon(1e-6));
  CHECK(s.data[2] == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(s.data[3] == doctest::Approx(0.1875).epsilon(1e-6));
  CHECK(s.data[4] == 0.0f);
  CHECK(s.data[5] == doctest::Approx(0.75).epsilon(1e-6));
  CHECK(s.data[6] == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(s.data[7] == doctest::Approx(0.75).epsilon(1e-6));

  // KV-cache shape: 1 query over 3 keys sits at position 2; all weight on key 1 is the
  // previous token at distance 1. An all-zero (fully masked) row is skipped.
  Tensor q({1, 2, 3}, std::vector<float>{0, 0, 0, 0, 1, 0});
  Tensor sq = attention_head_stats(q.view());
  CHECK(sq.data[1] == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(sq.data[3] == doctest::Approx(1.0).epsilon(1e-6));
  CHECK_THROWS_WITH_AS(attention_head_stats(TensorView(p.ptr(), Shape{16})),
                       "attention_head_stats: probs has shape [16], expected [H, Tq, Tk]", Error);
}

TEST_CASE("inspect C API: rollout and head stats through tfp_inspect_api.h") {
  Tensor a = causal_probs(2, 3, 9);
  std::vector<float> two(a.data);
  two.insert(two.end(), a.data.begin(), a.data.end());  // (L=2, H=2, T=3, T=3)
  std::vector<float> out(2 * 3 * 3, -1.0f);
  REQUIRE(tfp_attention_rollout(two.data(), 2, 2, 3, 0.5f, 0, out.data()) == TFP_OK);
  Tensor want = attention_rollout({a.view(), a.view()}, 0.5f);
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i] == want.data[i]);

  CHECK(tfp_attention_rollout(two.data(), 2, 2, 3, 0.5f, 7, out.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_attention_rollout: fusion 7 is not 0 (mean), 1 (max) or 2 (min)");
  CHECK(tfp_attention_rollout(two.data(), 2, 2, 3, -0.5f, 0, out.data()) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()) == "attention_rollout: residual weight -0.5 is outside [0, 1]");
  CHECK(tfp_attention_rollout(nullptr, 2, 2, 3, 0.5f, 0, out.data()) == TFP_ERR_INVALID_ARGUMENT);

  std::vector<float> stats(2 * 4);
  REQUIRE(tfp_attention_head_stats(a.ptr(), 2, 3, 3, stats.data()) == TFP_OK);
  Tensor ws = attention_head_stats(a.view());
  for (size_t i = 0; i < stats.size(); ++i) CHECK(stats[i] == ws.data[i]);
  CHECK(tfp_attention_head_stats(a.ptr(), 0, 3, 3, stats.data()) == TFP_ERR_INVALID_ARGUMENT);
}
