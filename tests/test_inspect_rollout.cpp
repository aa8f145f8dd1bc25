// Attention rollout and head statistics (inspect/rollout.h) and their C API.
// Oracles: hand-derived small cases (derivations in comments); a naive double-precision
// chain of matrix products written here independently of the engine's loop; exact
// identities (α = 1 gives I, rows sum to 1, uniform rows have entropy ln Tk).
// Tolerance: 1e-6 absolute (float32 results of double-precision sums over ≤ 8 terms).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/tfp_inspect_api.h"
#include "test_attention_maps.h"
#include "inspect/rollout.h"

using namespace tfp;
using inspect::attention_head_stats;
using inspect::attention_rollout;

namespace {

Tensor causal_probs(int H, int T, unsigned seed) { return testing::causal_probs(H, T, seed, 3.0); }

// Head statistics by their definition, written here apart from the engine's loop:
// `allowed` (Tq, Tk) says which keys each query may see; a row counts when it has at
// least two; the previous-token share counts the rows whose key pos − 1 is allowed.
// Returns (H, 4) doubles, NaN where no row counts.
std::vector<double> stats_oracle(const Tensor& p, const std::vector<std::vector<bool>>& allowed) {
  const int H = static_cast<int>(p.shape[0]), Tq = static_cast<int>(p.shape[1]), Tk = static_cast<int>(p.shape[2]);
  std::vector<double> out;
  for (int h = 0; h < H; ++h) {
    std::vector<double> ent, dist, first, prev;
    for (int i = 0; i < Tq; ++i) {
      int n = 0;
      for (int j = 0; j < Tk; ++j) n += allowed[i][j] ? 1 : 0;
      if (n < 2) continue;
      const int pos = i + (Tk - Tq);
      double e = 0, d = 0;
      for (int j = 0; j < Tk; ++j) {
        const double v = p.data[static_cast<size_t>((h * Tq + i) * Tk + j)];
        if (v > 0) e -= v * std::log(v);
        d += v * std::abs(pos - j);
      }
      ent.push_back(e);
      dist.push_back(d);
      first.push_back(p.data[static_cast<size_t>((h * Tq + i) * Tk)]);
      if (pos >= 1 && allowed[i][pos - 1]) prev.push_back(p.data[static_cast<size_t>((h * Tq + i) * Tk + pos - 1)]);
    }
    for (const auto* v : {&ent, &dist, &first, &prev}) {
      double sum = 0;
      for (double x : *v) sum += x;
      out.push_back(v->empty() ? std::nan("") : sum / static_cast<double>(v->size()));
    }
  }
  return out;
}

// Engine and oracle agree: equal within 1e-6, or both NaN.
void check_stats(const Tensor& got, const std::vector<double>& want, const char* what) {
  REQUIRE(got.data.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    INFO(what, ": head ", k / 4, " column ", k % 4, ": engine ", got.data[k], ", oracle ", want[k]);
    if (std::isnan(want[k])) CHECK(std::isnan(got.data[k]));
    else CHECK(std::abs(got.data[k] - want[k]) < 1e-6);
  }
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
  // rows 1..3 (row 0 has no previous token and is left out of this mean) give 0.25.
  // Head 1 puts everything on the previous token (row 0 on itself): entropy 0,
  // distance (0+1+1+1)/4 = 0.75, first (1+1+0+0)/4 = 0.5, previous 3/3 = 1.
  // The map is not causal: every row may see 4 keys, so every row counts.
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
  CHECK(s.data[3] == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(s.data[4] == 0.0f);
  CHECK(s.data[5] == doctest::Approx(0.75).epsilon(1e-6));
  CHECK(s.data[6] == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(s.data[7] == doctest::Approx(1.0).epsilon(1e-6));

  // KV-cache shape: 1 query over 3 keys sits at position 2; all weight on key 1 is the
  // previous token at distance 1. An all-zero (fully masked) row is skipped.
  Tensor q({1, 2, 3}, std::vector<float>{0, 0, 0, 0, 1, 0});
  Tensor sq = attention_head_stats(q.view());
  CHECK(sq.data[1] == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(sq.data[3] == doctest::Approx(1.0).epsilon(1e-6));
  CHECK_THROWS_WITH_AS(attention_head_stats(TensorView(p.ptr(), Shape{16})),
                       "attention_head_stats: probs has shape [16], expected [H, Tq, Tk]", Error);
}

TEST_CASE("inspect head stats: causal maps leave out the rows with one allowed key") {
  // One causal head, T = 3: row 0 can only attend to key 0 (no choice: left out).
  // Rows 1 and 2 count:
  //   entropy  (ln 2 + −(0.2 ln 0.2 + 0.3 ln 0.3 + 0.5 ln 0.5)) / 2 = (0.693147 + 1.029653) / 2 = 0.861400
  //   distance (0.5·1 + 0.2·2 + 0.3·1) / 2 = 0.6
  //   first    (0.5 + 0.2) / 2 = 0.35     (with row 0: (1 + 0.5 + 0.2) / 3 = 0.567)
  //   previous (p_10 + p_21) / 2 = (0.5 + 0.3) / 2 = 0.4
  Tensor p({1, 3, 3}, std::vector<float>{1, 0, 0, 0.5f, 0.5f, 0, 0.2f, 0.3f, 0.5f});
  Tensor s = attention_head_stats(p.view(), /*causal=*/true);
  CHECK(s.data[0] == doctest::Approx(0.861400).epsilon(1e-5));
  CHECK(s.data[1] == doctest::Approx(0.6).epsilon(1e-6));
  CHECK(s.data[2] == doctest::Approx(0.35).epsilon(1e-6));
  CHECK(s.data[3] == doctest::Approx(0.4).epsilon(1e-6));
  // Not causal, the same numbers are three rows of a full map (row 0 had 3 keys to choose from).
  Tensor f = attention_head_stats(p.view(), /*causal=*/false);
  CHECK(f.data[2] == doctest::Approx(1.7 / 3).epsilon(1e-6));
  CHECK(f.data[3] == doctest::Approx(0.4).epsilon(1e-6));

  // Random causal maps, with and without a KV-cache offset, against the oracle.
  for (int T : {2, 3, 5, 8}) {
    Tensor c = causal_probs(3, T, 40u + static_cast<unsigned>(T));
    std::vector<std::vector<bool>> causal(T, std::vector<bool>(T));
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) causal[i][j] = j <= i;
    check_stats(attention_head_stats(c.view(), true), stats_oracle(c, causal), "causal");
    // The last 2 queries over all T keys (a KV cache): query i sits at position i + T − 2.
    if (T >= 3) {
      Tensor last({3, 2, T});
      for (int h = 0; h < 3; ++h)
        for (int k = 0; k < 2 * T; ++k) last.ptr()[h * 2 * T + k] = c.data[static_cast<size_t>(h * T * T + (T - 2) * T + k)];
      std::vector<std::vector<bool>> tail(causal.end() - 2, causal.end());
      check_stats(attention_head_stats(last.view(), true), stats_oracle(last, tail), "causal, KV cache");
    }
  }
  // Non-causal random maps (every key allowed): every row counts.
  Tensor full({2, 4, 4});
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) full.ptr()[(h * 4 + i) * 4 + j] = static_cast<float>(1 + ((h + 2 * i + 3 * j) % 5)) / 10.0f;
  for (int h = 0; h < 2; ++h)  // rows summing to 1
    for (int i = 0; i < 4; ++i) {
      float sum = 0;
      for (int j = 0; j < 4; ++j) sum += full.data[static_cast<size_t>((h * 4 + i) * 4 + j)];
      for (int j = 0; j < 4; ++j) full.ptr()[(h * 4 + i) * 4 + j] /= sum;
    }
  check_stats(attention_head_stats(full.view()), stats_oracle(full, std::vector<std::vector<bool>>(4, std::vector<bool>(4, true))),
              "bidirectional");

  // T = 1: no row has a choice: NaN in every column, causal or not. T = 2 causal: row 1 only.
  Tensor one({2, 1, 1}, std::vector<float>{1, 1});
  for (bool causal : {false, true}) {
    Tensor s1 = attention_head_stats(one.view(), causal);
    for (float v : s1.data) CHECK(std::isnan(v));
  }
  Tensor two({1, 2, 2}, std::vector<float>{1, 0, 0.25f, 0.75f});
  Tensor s2 = attention_head_stats(two.view(), true);
  CHECK(s2.data[2] == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(s2.data[3] == doctest::Approx(0.25).epsilon(1e-6));
}

TEST_CASE("inspect head stats: key padding masks padded keys and padded queries' rows") {
  // An encoder map (BERT-like, not causal) of T = 5 with the last token padded: the model
  // still computes row 4 (its output is thrown away) and gives key 4 ~0. Masking key 4 in
  // every row and row 4 whole leaves rows 0..3 over keys 0..3.
  const int T = 5;
  Tensor p({2, T, T});
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < T; ++i) {
      double sum = 0;
      std::vector<double> e(T);
      for (int j = 0; j < T; ++j) sum += (e[j] = j == 4 ? 0.0 : std::exp(0.7 * ((h + 1) * (i - j) % 3)));
      for (int j = 0; j < T; ++j) p.ptr()[(h * T + i) * T + j] = static_cast<float>(e[j] / sum);
    }
  std::vector<uint8_t> masked(T * T, 0);
  std::vector<std::vector<bool>> allowed(T, std::vector<bool>(T, true));
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      if (i == 4 || j == 4) { masked[i * T + j] = 1; allowed[i][j] = false; }
  Tensor s = attention_head_stats(p.view(), false, masked.data());
  check_stats(s, stats_oracle(p, allowed), "right padding");
  // The same as the unpadded 4-token map: padding changes nothing.
  Tensor q({2, 4, 4});
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) q.ptr()[(h * 4 + i) * 4 + j] = p.data[static_cast<size_t>((h * T + i) * T + j)];
  Tensor sq = attention_head_stats(q.view());
  for (size_t k = 0; k < s.data.size(); ++k) CHECK(s.data[k] == doctest::Approx(sq.data[k]).epsilon(1e-6));

  // Left padding with a causal mask: key 0 is padding. Row 0 is a padded query (left out);
  // row 1 may see only key 1 (one key: left out); rows 2..4 count; row 2's previous key
  // is 1 (allowed), and no counted row's previous key is the padded one.
  Tensor c = causal_probs(2, T, 77u);
  for (int h = 0; h < 2; ++h)  // move key 0's weight to key 1 (key 0 is padding)
    for (int i = 0; i < T; ++i) {
      float* row = c.ptr() + (h * T + i) * T;
      if (i >= 1) { row[1] += row[0]; row[0] = 0; }
    }
  std::vector<uint8_t> lm(T * T, 0);
  std::vector<std::vector<bool>> la(T, std::vector<bool>(T));
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      lm[i * T + j] = (i == 0 || j == 0) ? 1 : 0;
      la[i][j] = !lm[i * T + j] && j <= i;
    }
  check_stats(attention_head_stats(c.view(), true, lm.data()), stats_oracle(c, la), "left padding, causal");
  // Bidirectional with key 0 padded: row 1's previous key is the padding, left out of column 3 only.
  Tensor b = c;
  std::vector<std::vector<bool>> ba(T, std::vector<bool>(T));
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) ba[i][j] = !lm[i * T + j];
  check_stats(attention_head_stats(b.view(), false, lm.data()), stats_oracle(b, ba), "left padding, bidirectional");
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

  // The masked form: causal, and a (Tq, Tk) mask (1 = masked).
  REQUIRE(tfp_attention_head_stats_masked(a.ptr(), 2, 3, 3, 1, nullptr, stats.data()) == TFP_OK);
  Tensor wc = attention_head_stats(a.view(), true);
  for (size_t i = 0; i < stats.size(); ++i) CHECK(stats[i] == wc.data[i]);
  const std::vector<uint8_t> pad{0, 0, 1, 0, 0, 1, 1, 1, 1};  // token 2 is padding
  REQUIRE(tfp_attention_head_stats_masked(a.ptr(), 2, 3, 3, 0, pad.data(), stats.data()) == TFP_OK);
  Tensor wm = attention_head_stats(a.view(), false, pad.data());
  for (size_t i = 0; i < stats.size(); ++i) CHECK(stats[i] == wm.data[i]);
  CHECK(tfp_attention_head_stats_masked(a.ptr(), 2, 3, 3, 2, nullptr, stats.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_attention_head_stats_masked: causal 2 is not 0 or 1");
  CHECK(tfp_attention_head_stats_masked(nullptr, 2, 3, 3, 1, nullptr, stats.data()) == TFP_ERR_INVALID_ARGUMENT);
}
