// The Learn chapter "Softmax" (api/tfp_learn_softmax_api.h, kernels/ref/softmax_steps.h):
// the stable softmax the engine uses, the naive formula kept as a counter-example, masking
// with -inf, a fully masked row, temperature.
// Oracles: softmax in double written here (max subtracted, in double exp never overflows
// for these inputs); hand-derived values (derivations in comments); IEEE float32 facts
// (ln FLT_MAX ≈ 88.72: exp(88) is finite, exp(89) is +inf).
// Tolerance: relative (16 + 2·sqrt(n))·FLT_EPSILON per probability, as
// tests/test_kernels_softmax.cpp argues it (rounding of z - max, exp, the sum, the
// division); 1e-6 absolute for hand-derived values printed to 6 digits.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "api/tfp_learn_softmax_api.h"
#include "kernels/kernels.h"
#include "kernels/ref/softmax_steps.h"
#include "nn/attention.h"
#include "test_api_params.h"

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kEps = std::numeric_limits<float>::epsilon();

std::vector<double> softmax_d(const std::vector<double>& x) {
  double mx = -INFINITY;
  for (double v : x) mx = std::max(mx, v);
  std::vector<double> y(x.size(), 0.0);
  if (mx == -INFINITY) return y;
  double s = 0;
  for (size_t j = 0; j < x.size(); ++j) s += (y[j] = std::exp(x[j] - mx));
  for (double& v : y) v /= s;
  return y;
}

struct Row {
  std::vector<float> logits, exps, probs;
  float stats[5] = {};
  int status = -1;
};

Row run(const std::vector<float>& scores, float t, int variant,
        const std::vector<uint8_t>& masked = {}) {
  Row r;
  const size_t n = scores.size();
  r.logits.assign(n, 0.0f), r.exps.assign(n, 0.0f), r.probs.assign(n, 0.0f);
  r.status = tfp_learn_softmax_row(
      tfp::testing::params(tfp_learn_softmax_params{.scores = scores.data(),
                                                    .n = static_cast<int>(n),
                                                    .temperature = t,
                                                    .masked = masked.empty() ? nullptr : masked.data(),
                                                    .variant = variant}),
      r.logits.data(), r.exps.data(), r.probs.data(), r.stats);
  return r;
}

}  // namespace

TEST_CASE("learn softmax: stable matches double at logits of 1000; naive gives inf and NaN") {
  const std::vector<float> scores = {1000.0f, 999.0f, 998.5f, 1000.0f, 990.0f};
  const Row s = run(scores, 1.0f, 0);
  REQUIRE(s.status == TFP_OK);
  const std::vector<double> want = softmax_d({1000, 999, 998.5, 1000, 990});
  const double tol = (16 + 2 * std::sqrt(5.0)) * kEps;
  double sum = 0;
  for (size_t j = 0; j < scores.size(); ++j) {
    CAPTURE(j);
    CHECK(std::fabs(s.probs[j] - want[j]) <= tol * want[j]);
    // exps are exp(z - max): 1 for the two maxima, e^-1, e^-1.5, e^-10
    CHECK(std::fabs(s.exps[j] - std::exp(scores[j] - 1000.0)) <= 4 * kEps);
    sum += s.probs[j];
  }
  CHECK(s.stats[0] == 1000.0f);                                      // shift = max
  CHECK(s.stats[1] == doctest::Approx(2 + std::exp(-1.0) + std::exp(-1.5) + std::exp(-10.0)).epsilon(1e-6));
  CHECK(std::fabs(s.stats[2] - 1.0) <= tol);                         // Σ p in float32
  CHECK(s.stats[2] == doctest::Approx(sum).epsilon(1e-7));
  CHECK(s.stats[4] == 0.0f);                                         // first of the two maxima
  CHECK(s.stats[3] == s.probs[0]);

  // Without the subtraction exp(1000) overflows float32: every term +inf, the sum +inf,
  // every probability inf/inf = NaN (exp(990) overflows too: 990 > 88.72).
  const Row nv = run(scores, 1.0f, 1);
  REQUIRE(nv.status == TFP_OK);
  for (size_t j = 0; j < scores.size(); ++j) {
    CHECK(nv.exps[j] == kInf);
    CHECK(std::isnan(nv.probs[j]));
  }
  CHECK(nv.stats[0] == 0.0f);
  CHECK(nv.stats[1] == kInf);
  CHECK(std::isnan(nv.stats[2]));
  CHECK(nv.stats[4] == -1.0f);  // no probability to pick

  // Logits of -1000: every naive exp underflows to 0 and 0/0 = NaN; the stable one is fine.
  const Row lo = run({-1000.0f, -1001.0f}, 1.0f, 1);
  CHECK(lo.exps[0] == 0.0f);
  CHECK(std::isnan(lo.probs[0]));
  const Row lo_s = run({-1000.0f, -1001.0f}, 1.0f, 0);
  CHECK(lo_s.probs[0] == doctest::Approx(1 / (1 + std::exp(-1.0))).epsilon(1e-6));
}

TEST_CASE("learn softmax: where float32 exp overflows (ln FLT_MAX ≈ 88.72)") {
  float e[1], p[1];
  const float x88[1] = {88.0f}, x89[1] = {89.0f};
  // exp(88) ≈ 1.65e38 < FLT_MAX ≈ 3.40e38: finite, and alone it is a probability of 1.
  CHECK(tfp::kernels::ref::softmax_row_steps(x88, 1, false, e, p, nullptr) == doctest::Approx(1.6516363e38).epsilon(1e-6));
  CHECK(p[0] == 1.0f);
  // exp(89) ≈ 4.49e38 > FLT_MAX: +inf, and inf/inf = NaN.
  CHECK(tfp::kernels::ref::softmax_row_steps(x89, 1, false, e, p, nullptr) == kInf);
  CHECK(std::isnan(p[0]));
  // softmax_rows_naive is the same counter-example in place; softmax_rows does not overflow.
  float rows[4] = {89.0f, 0.0f, 1.0f, 2.0f};  // (2, 2): [89, 0] and [1, 2]
  tfp::kernels::ref::softmax_rows_naive(rows, 2, 2, 2);
  CHECK(std::isnan(rows[0]));
  CHECK(rows[1] == 0.0f);  // 1/inf
  CHECK(rows[2] == doctest::Approx(1 / (1 + std::exp(1.0))).epsilon(1e-6));  // small scores: fine
  float stable[2] = {89.0f, 0.0f};
  tfp::kernels::softmax_rows(stable, 1, 2, 2);
  CHECK(stable[0] == 1.0f);  // 1/(1 + e^-89), e^-89 ≈ 2e-39 vanishes beside 1
}

TEST_CASE("learn softmax: small scores, both variants, hand-derived") {
  // [2, 1, 0.1]: e^2 = 7.389056, e^1 = 2.718282, e^0.1 = 1.105171, Σ = 11.212509
  //   -> p = [0.659001, 0.242433, 0.098566]
  const std::vector<float> x = {2.0f, 1.0f, 0.1f};
  const Row s = run(x, 1.0f, 0), nv = run(x, 1.0f, 1);
  REQUIRE(s.status == TFP_OK);
  REQUIRE(nv.status == TFP_OK);
  const double p[3] = {0.659001, 0.242433, 0.098566};
  for (int j = 0; j < 3; ++j) {
    CHECK(std::fabs(s.probs[j] - p[j]) <= 1e-6);
    CHECK(std::fabs(nv.probs[j] - p[j]) <= 1e-6);
  }
  CHECK(nv.exps[0] == doctest::Approx(7.389056).epsilon(1e-6));   // exp(2), no shift
  CHECK(nv.stats[1] == doctest::Approx(11.212509).epsilon(1e-6));
  CHECK(s.exps[0] == 1.0f);                                       // exp(2 - 2)
  CHECK(s.stats[1] == doctest::Approx(11.212509 / 7.389056).epsilon(1e-6));  // Σ e^(x - 2)
  // Adding a constant to every score changes nothing: softmax(x + c) = softmax(x).
  const Row shifted = run({102.0f, 101.0f, 100.1f}, 1.0f, 0);
  for (int j = 0; j < 3; ++j) CHECK(std::fabs(shifted.probs[j] - p[j]) <= 1e-5);  // 100.1 rounds by 4e-6
}

TEST_CASE("learn softmax: masking with -inf, and the fully masked row") {
  const std::vector<float> x = {2.0f, 1.0f, 0.1f};
  // Key 0 masked: its logit is -inf, its weight exactly 0, the others renormalised:
  // e^1 / (e^1 + e^0.1) = 2.718282 / 3.823453 = 0.710949; 1.105171 / 3.823453 = 0.289051.
  const Row m = run(x, 1.0f, 0, {1, 0, 0});
  REQUIRE(m.status == TFP_OK);
  CHECK(m.logits[0] == -kInf);
  CHECK(m.exps[0] == 0.0f);
  CHECK(m.probs[0] == 0.0f);
  CHECK(std::fabs(m.probs[1] - 0.710949) <= 1e-6);
  CHECK(std::fabs(m.probs[2] - 0.289051) <= 1e-6);
  CHECK(m.stats[0] == 1.0f);  // the max over the keys left
  // The common mistake: a score of 0 is not a mask. [0, 1, 0.1]: key 0 keeps
  // e^0 / (1 + e^1 + e^0.1) = 1 / 4.823453 = 0.207321 of the weight.
  const Row zero = run({0.0f, 1.0f, 0.1f}, 1.0f, 0);
  CHECK(std::fabs(zero.probs[0] - 0.207321) <= 1e-6);

  // Every key masked: no distribution exists. The engine writes probabilities 0 (sum 0)
  // instead of 0/0 = NaN; the naive formula gives NaN.
  const Row all = run(x, 1.0f, 0, {1, 1, 1});
  REQUIRE(all.status == TFP_OK);
  for (int j = 0; j < 3; ++j) {
    CHECK(all.logits[j] == -kInf);
    CHECK(all.exps[j] == 0.0f);
    CHECK(all.probs[j] == 0.0f);
  }
  CHECK(all.stats[0] == -kInf);
  CHECK(all.stats[1] == 0.0f);
  CHECK(all.stats[2] == 0.0f);
  CHECK(all.stats[3] == 0.0f);
  CHECK(all.stats[4] == -1.0f);
  const Row all_naive = run(x, 1.0f, 1, {1, 1, 1});
  for (int j = 0; j < 3; ++j) CHECK(std::isnan(all_naive.probs[j]));

  // In attention, a query that may see no key gets probabilities 0 and outputs the zero
  // vector (0·v), never NaN (nn/attention.h). One head, 2 queries, 3 keys, D = 2: query 1's
  // row is fully masked by an additive -inf row; query 0 sees every key.
  tfp::Tensor q({1, 2, 2}), k({1, 3, 2}), v({1, 3, 2});
  for (int i = 0; i < 4; ++i) q.ptr()[i] = 0.5f * static_cast<float>(i + 1);
  for (int i = 0; i < 6; ++i) k.ptr()[i] = 0.25f * static_cast<float>(i) - 0.5f;
  for (int i = 0; i < 6; ++i) v.ptr()[i] = static_cast<float>(i + 1);
  tfp::nn::AttentionMask mask;
  mask.additive = tfp::Tensor({2, 3});
  for (int j = 0; j < 3; ++j) mask.additive.ptr()[j] = 0.0f, mask.additive.ptr()[3 + j] = -kInf;
  const auto res = tfp::nn::scaled_dot_product_attention(q, k, v, mask, 1.0f, true);
  for (int j = 0; j < 3; ++j) CHECK(res.probs.ptr()[3 + j] == 0.0f);
  CHECK(res.out.ptr()[2] == 0.0f);
  CHECK(res.out.ptr()[3] == 0.0f);
  CHECK(std::isfinite(res.out.ptr()[0]));
  CHECK(res.probs.ptr()[0] + res.probs.ptr()[1] + res.probs.ptr()[2] == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("learn softmax: temperature") {
  const std::vector<float> x = {2.0f, 1.0f, 0.1f};
  // τ = 0.5: z = [4, 2, 0.2]; e^4 / (e^4 + e^2 + e^0.2) = 54.598150 / (54.598150 + 7.389056
  // + 1.221403) = 54.598150 / 63.208609 = 0.863777 (the chapter's exercise).
  const Row half = run(x, 0.5f, 0);
  REQUIRE(half.status == TFP_OK);
  CHECK(half.logits[0] == 4.0f);
  CHECK(std::fabs(half.stats[3] - 0.863777) <= 1e-6);
  CHECK(half.stats[4] == 0.0f);
  // τ -> 0: one-hot on the largest score. τ = 0.01: z = [200, 100, 10]; e^-100 ≈ 3.7e-44
  // is a float32 subnormal, so p0 = 1/(1 + 3.7e-44) rounds to exactly 1.
  const Row cold = run(x, 0.01f, 0);
  CHECK(cold.probs[0] == 1.0f);
  CHECK(cold.probs[1] < 1e-40f);
  CHECK(cold.probs[2] == 0.0f);  // e^-190 underflows to 0
  // ... and there the naive formula overflows already: exp(200) = +inf.
  CHECK(std::isnan(run(x, 0.01f, 1).probs[0]));
  // τ -> ∞: uniform. τ = 1e6: z ≈ [2e-6, 1e-6, 1e-7], every p within 1e-6 of 1/3.
  const Row hot = run(x, 1e6f, 0);
  for (int j = 0; j < 3; ++j) CHECK(std::fabs(hot.probs[j] - 1.0 / 3.0) <= 1e-6);
  // Masked keys stay at 0 at every temperature: uniform over the two keys left.
  const Row hot_m = run(x, 1e6f, 0, {0, 1, 0});
  CHECK(hot_m.probs[1] == 0.0f);
  CHECK(std::fabs(hot_m.probs[0] - 0.5) <= 1e-6);

  // The sweep gives, row by row, what the single-row call gives.
  const float ts[4] = {0.01f, 0.5f, 1.0f, 1e6f};
  std::vector<float> sweep(4 * 3, -1.0f);
  REQUIRE(tfp_learn_softmax_temperatures(x.data(), 3, nullptr, ts, 4, sweep.data()) == TFP_OK);
  for (int i = 0; i < 4; ++i) {
    const Row r = run(x, ts[i], 0);
    for (int j = 0; j < 3; ++j) CHECK(sweep[i * 3 + j] == r.probs[j]);
  }
}

TEST_CASE("learn softmax: bad arguments give clear errors") {
  const float x[3] = {2.0f, 1.0f, 0.1f};
  float a[3], b[3], c[3], st[5];
  auto err = [] { return std::string(tfp_last_error()); };
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = x, .n = 0, .temperature = 1.0f, .masked = nullptr, .variant = 0}),
                              a, b, c, st) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_row: n must be >= 1, got 0");
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = nullptr, .n = 3, .temperature = 1.0f, .masked = nullptr, .variant = 0}),
                              a, b, c, st) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_row: scores is NULL");
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = x, .n = 3, .temperature = 0.0f, .masked = nullptr, .variant = 0}),
                              a, b, c, st) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_row: temperature must be a finite number > 0, got 0");
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = x, .n = 3, .temperature = NAN, .masked = nullptr, .variant = 0}),
                              a, b, c, st) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = x, .n = 3, .temperature = 1.0f, .masked = nullptr, .variant = 2}),
                              a, b, c, st) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_row: variant must be 0 (stable) or 1 (naive), got 2");
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = x, .n = 3, .temperature = 1.0f, .masked = nullptr, .variant = 0}),
                              a, nullptr, c, st) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_row: an output pointer is NULL");
  const float bad[2] = {1.0f, NAN};
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = bad, .n = 2, .temperature = 1.0f, .masked = nullptr, .variant = 0}),
                              a, b, c, st) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_row: scores[1] is NaN");
  const float ts[2] = {1.0f, -1.0f};
  float out[6];
  CHECK(tfp_learn_softmax_temperatures(x, 3, nullptr, ts, 2, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_temperatures: temperatures[1] must be a finite number > 0, got -1");
  CHECK(tfp_learn_softmax_temperatures(x, 3, nullptr, ts, 0, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(err() == "tfp_learn_softmax_temperatures: m must be >= 1, got 0");
  // The engine stays usable after errors.
  CHECK(tfp_learn_softmax_row(tfp::testing::params(tfp_learn_softmax_params{
                                  .scores = x, .n = 3, .temperature = 1.0f, .masked = nullptr, .variant = 0}),
                              a, b, c, st) == TFP_OK);
}
