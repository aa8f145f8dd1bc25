// The random q·k experiment of Learn chapter 5 (api/tfp_learn_scaling_api.h).
// Oracles:
//   - theory: components i.i.d., mean 0, variance 1 ⇒ E[q·k] = 0 and
//     Var(q·k) = Σ_i E[q_i²]E[k_i²] = d_k (unscaled), 1 (÷√d_k), 1/d_k (÷d_k);
//   - statistics: the sample variance of N scores has relative standard deviation
//     ≈ √((κ − 1)/N), κ the kurtosis of q·k (≈ 3: a sum of d_k i.i.d. products, each of
//     kurtosis (9/5)² = 3.24, so κ = 3 + 0.24/d_k). The two keys of one sample share q,
//     which correlates their squares by 0.4/d_k at most (≤ 10% more variance at d_k = 4).
//     With N = 80 000 scores the relative SD is ≈ 0.55%; we allow 3% (> 5 SD). The mean's
//     SD is √(d_k/N) (scores of one sample are uncorrelated); we allow 5 of them;
//   - exact facts: probabilities sum to 1 and equal a double-precision softmax of the
//     returned scores (1e-6); uniform p over n keys has ||diag(p) − p pᵀ||_F = √(n−1)/n
//     (eigenvalues 1/n, n−1 times, and 0), one-hot p has 0, and any p at most trace J;
//   - the same seed gives the same bits; sample s of the row call is sample s of the
//     statistics (their mean max p over samples 0 and 1 agree to 1e-6).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/tfp_learn_scaling_api.h"

namespace {

constexpr int kScalings = 3, kStats = 4;

std::vector<float> stats(const std::vector<int32_t>& dks, int n, int samples, uint32_t seed) {
  std::vector<float> out(dks.size() * kScalings * kStats, -1.0f);
  REQUIRE(tfp_learn_scaling_stats(dks.data(), static_cast<int>(dks.size()), n, samples, seed,
                                  out.data()) == TFP_OK);
  return out;
}

float at(const std::vector<float>& s, int i, int scaling, int stat) {
  return s[(static_cast<size_t>(i) * kScalings + scaling) * kStats + stat];
}

std::string error_of(int status) {
  CHECK(status == TFP_ERR_INVALID_ARGUMENT);
  return tfp_last_error();
}

}  // namespace

TEST_CASE("learn scaling: Var(q·k) is d_k unscaled, 1 divided by sqrt(d_k), 1/d_k divided by d_k") {
  const std::vector<int32_t> dks = {4, 16, 256};
  const int n = 2, samples = 40000;
  const double N = static_cast<double>(n) * samples;
  const auto s = stats(dks, n, samples, 7);
  for (size_t i = 0; i < dks.size(); ++i) {
    const double d = dks[i];
    const double expect[kScalings] = {d, 1.0, 1.0 / d};
    const double scale[kScalings] = {1.0, 1.0 / std::sqrt(d), 1.0 / d};
    for (int c = 0; c < kScalings; ++c) {
      CAPTURE(d);
      CAPTURE(c);
      CHECK(at(s, static_cast<int>(i), c, 1) == doctest::Approx(expect[c]).epsilon(0.03));
      CHECK(std::abs(at(s, static_cast<int>(i), c, 0)) < 5.0 * scale[c] * std::sqrt(d / N));
    }
  }
}

TEST_CASE("learn scaling: without scaling the softmax saturates and its Jacobian vanishes") {
  const std::vector<int32_t> dks = {4, 64, 1024};
  const int n = 8;
  const auto s = stats(dks, n, 2000, 1);
  const double uniform_norm = std::sqrt(n - 1.0) / n;  // 0.3307 for n = 8
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < kScalings; ++c) {
      CHECK(at(s, i, c, 2) >= 1.0f / n);            // max p is at least the average 1/n
      CHECK(at(s, i, c, 2) <= 1.0f);
      // J = diag(p) − p pᵀ is positive semi-definite, so ||J||_F ≤ trace J = 1 − Σp² ≤ 1 − 1/n.
      CHECK(at(s, i, c, 3) <= 1.0 - 1.0 / n);
    }
  // Unscaled: the spread grows like √d_k, so max p climbs towards 1 and ||J||_F falls.
  CHECK(at(s, 0, 0, 2) < at(s, 1, 0, 2));
  CHECK(at(s, 1, 0, 2) < at(s, 2, 0, 2));
  CHECK(at(s, 2, 0, 2) > 0.9f);
  CHECK(at(s, 2, 0, 3) < 0.1f);
  // ÷√d_k: variance 1 at every d_k, so the same typical max p and gradient (±0.05).
  CHECK(at(s, 0, 1, 2) == doctest::Approx(at(s, 2, 1, 2)).epsilon(0.1));
  CHECK(at(s, 0, 1, 3) == doctest::Approx(at(s, 2, 1, 3)).epsilon(0.1));
  CHECK(at(s, 2, 1, 2) < 0.7f);
  // ÷d_k: variance 1/1024, scores ≈ 0, so p ≈ uniform: max p ≈ 1/8, ||J||_F ≈ √7/8.
  CHECK(at(s, 2, 2, 2) == doctest::Approx(1.0 / n).epsilon(0.05));
  CHECK(at(s, 2, 2, 3) == doctest::Approx(uniform_norm).epsilon(0.01));
}

TEST_CASE("learn scaling: same seed same numbers; each d_k its own stream; rows are samples") {
  const auto a = stats({8, 64}, 8, 500, 42);
  const auto b = stats({8, 64}, 8, 500, 42);
  CHECK(a == b);
  CHECK(stats({8, 64}, 8, 500, 43) != a);
  // d_k = 64 alone gives what it gave beside d_k = 8: the reader's own d_k joins the
  // list without changing the others.
  const auto only = stats({64}, 8, 500, 42);
  for (int k = 0; k < kScalings * kStats; ++k) CHECK(only[static_cast<size_t>(k)] == a[kScalings * kStats + k]);

  // Rows 0 and 1 of d_k = 32 against the statistics of 2 samples.
  const int d_k = 32, n = 5;
  const auto two = stats({d_k}, n, 2, 9);
  std::vector<float> scores(kScalings * n), probs(kScalings * n);
  double top_sum[kScalings] = {};
  for (int sample = 0; sample < 2; ++sample) {
    REQUIRE(tfp_learn_scaling_row(d_k, n, sample, 9, scores.data(), probs.data()) == TFP_OK);
    std::vector<float> again(kScalings * n), again_p(kScalings * n);
    REQUIRE(tfp_learn_scaling_row(d_k, n, sample, 9, again.data(), again_p.data()) == TFP_OK);
    CHECK(again == scores);
    for (int c = 0; c < kScalings; ++c) {
      const float* s = scores.data() + c * n;
      const float* p = probs.data() + c * n;
      double mx = s[0], sum = 0, top = 0, psum = 0;
      for (int j = 0; j < n; ++j) mx = std::max(mx, static_cast<double>(s[j]));
      for (int j = 0; j < n; ++j) sum += std::exp(s[j] - mx);
      for (int j = 0; j < n; ++j) {
        CHECK(std::abs(p[j] - std::exp(s[j] - mx) / sum) < 1e-6);
        top = std::max(top, static_cast<double>(p[j]));
        psum += p[j];
      }
      CHECK(psum == doctest::Approx(1.0).epsilon(1e-6));
      top_sum[c] += top;
      // The scalings share one raw score: row 1 is row 0 ÷ √32, row 2 is row 0 ÷ 32.
      const float raw0 = scores[0];
      if (c > 0) CHECK(s[0] * (c == 1 ? std::sqrt(32.0f) : 32.0f) == doctest::Approx(raw0).epsilon(1e-5));
    }
  }
  for (int c = 0; c < kScalings; ++c) CHECK(at(two, 0, c, 2) == doctest::Approx(top_sum[c] / 2).epsilon(1e-6));
}

TEST_CASE("learn scaling: a one-hot softmax has a zero Jacobian, so the unscaled gradient is ~0") {
  // d_k = 65536 unscaled, 2 keys: p_max = σ(g) with g = |s_1 − s_2| half-normal of scale
  // 256·√2 ≈ 362 (density f(0) ≈ 0.0022 at 0), so E[1 − p_max] ≈ f(0)·∫(1 − σ) = f(0)·ln 2
  // ≈ 0.0015, and E[||J||_F] = E[2 p_1 p_2] ≈ 2 f(0)·∫σ(1 − σ) = 2 f(0) ≈ 0.0044.
  const auto s = stats({65536}, 2, 100, 3);
  CHECK(at(s, 0, 0, 2) > 0.99f);
  CHECK(at(s, 0, 0, 3) < 0.01f);
}

TEST_CASE("learn scaling: bad arguments give clear errors") {
  float out[kScalings * kStats * 2] = {};
  float scores[kScalings * 8] = {}, probs[kScalings * 8] = {};
  int32_t zero[] = {0}, neg[] = {-4}, big[] = {65537}, ok[] = {64}, large[] = {1024};
  CHECK(error_of(tfp_learn_scaling_stats(zero, 1, 8, 100, 1, out)) ==
        "tfp_learn_scaling_stats: d_k must be 1..65536, got 0");
  CHECK(error_of(tfp_learn_scaling_stats(neg, 1, 8, 100, 1, out)) ==
        "tfp_learn_scaling_stats: d_k must be 1..65536, got -4");
  CHECK(error_of(tfp_learn_scaling_stats(big, 1, 8, 100, 1, out)).find("got 65537") != std::string::npos);
  CHECK(error_of(tfp_learn_scaling_stats(ok, 1, 1, 100, 1, out)).find("n_keys must be 2..1024") != std::string::npos);
  CHECK(error_of(tfp_learn_scaling_stats(ok, 1, 8, 1, 1, out)) ==
        "tfp_learn_scaling_stats: samples must be 2..1000000 (a variance needs two), got 1");
  CHECK(error_of(tfp_learn_scaling_stats(ok, 1, 8, 2000000000, 1, out)).find("got 2000000000") != std::string::npos);
  // Within each limit, too much together: 1e6 samples × (9 × 1024 + 3 × 64) values.
  const std::string huge = error_of(tfp_learn_scaling_stats(large, 1, 8, 1000000, 1, out));
  CHECK(huge.find("1000000 samples x 9408") != std::string::npos);
  CHECK(huge.find("more than the limit 268435456 (2^28)") != std::string::npos);
  CHECK(error_of(tfp_learn_scaling_stats(ok, 0, 8, 100, 1, out)) ==
        "tfp_learn_scaling_stats: n_dk must be 1..64, got 0");
  CHECK(error_of(tfp_learn_scaling_stats(nullptr, 1, 8, 100, 1, out)) == "tfp_learn_scaling_stats: NULL dks");
  CHECK(error_of(tfp_learn_scaling_stats(ok, 1, 8, 100, 1, nullptr)) == "tfp_learn_scaling_stats: NULL out");

  CHECK(error_of(tfp_learn_scaling_row(0, 8, 0, 1, scores, probs)) ==
        "tfp_learn_scaling_row: d_k must be 1..65536, got 0");
  CHECK(error_of(tfp_learn_scaling_row(64, 8, -1, 1, scores, probs)) ==
        "tfp_learn_scaling_row: sample must be 0..999999, got -1");
  CHECK(error_of(tfp_learn_scaling_row(64, 8, 0, 1, scores, nullptr)) == "tfp_learn_scaling_row: NULL probs");
  // The engine stays usable after errors.
  CHECK(tfp_learn_scaling_row(64, 8, 0, 1, scores, probs) == TFP_OK);
}
