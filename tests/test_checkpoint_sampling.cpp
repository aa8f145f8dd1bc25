// Sampling and generation. Oracles: the PCG32 reference outputs (pcg32-demo, seed 42,
// stream 54); exact distributions for temperature / top-k / top-p (frequencies over
// 20000 draws within 0.02 — binomial sd ≤ 0.0036, so > 5 sd); and the golden greedy
// continuation of gen_checkpoints.py, recomputed there without a cache at every step.
#include <doctest/doctest.h>

#include <cmath>

#include "model/generate.h"
#include "model/model.h"
#include "model/sampling.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;

TEST_CASE("sampling: PCG32 matches the reference sequence") {
  Pcg32 rng(42, 54);
  const uint32_t want[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u, 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
  for (uint32_t w : want) CHECK(rng.next_u32() == w);
  Pcg32 a(7), b(7), c(8);
  for (int i = 0; i < 100; ++i) {
    const double x = a.next_double();
    CHECK(x >= 0.0);
    CHECK(x < 1.0);
    CHECK(x == b.next_double());
  }
  CHECK(Pcg32(7).next_u32() != c.next_u32());
}

namespace {

std::vector<double> frequencies(const std::vector<float>& logits, const SamplingOptions& opt, int n = 20000) {
  Pcg32 rng(123);
  std::vector<double> f(logits.size(), 0.0);
  for (int i = 0; i < n; ++i) f[static_cast<size_t>(sample_token(logits, opt, rng))] += 1.0 / n;
  return f;
}

}  // namespace

TEST_CASE("sampling: temperature, top-k and top-p give the stated distributions") {
  // logits = log p for p = (0.5, 0.3, 0.2): softmax recovers p at temperature 1.
  const std::vector<float> logits{std::log(0.5f), std::log(0.3f), std::log(0.2f)};
  Pcg32 rng(1);
  CHECK(sample_token(logits, {0.0f, 0, 1.0f}, rng) == 0);  // greedy
  CHECK(sample_token(std::vector<float>{1, 3, 3}, {0.0f, 0, 1.0f}, rng) == 1);  // ties → lower id
  CHECK(sample_token(logits, {5.0f, 1, 1.0f}, rng) == 0);  // top_k 1 is greedy

  auto f = frequencies(logits, {1.0f, 0, 1.0f});
  CHECK(f[0] == doctest::Approx(0.5).epsilon(0.04));
  CHECK(f[1] == doctest::Approx(0.3).epsilon(0.07));
  CHECK(f[2] == doctest::Approx(0.2).epsilon(0.1));
  // top_k 2 renormalises over {0, 1}: 0.5/0.8 and 0.3/0.8.
  f = frequencies(logits, {1.0f, 2, 1.0f});
  CHECK(f[2] == 0.0);
  CHECK(std::fabs(f[0] - 0.625) < 0.02);
  // top_p 0.6: 0.5 < 0.6, 0.5 + 0.3 ≥ 0.6 → {0, 1}. top_p 0.45: 0.5 ≥ 0.45 → {0}.
  f = frequencies(logits, {1.0f, 0, 0.6f});
  CHECK(f[2] == 0.0);
  CHECK(std::fabs(f[1] - 0.375) < 0.02);
  f = frequencies(logits, {1.0f, 0, 0.45f});
  CHECK(f[1] == 0.0);
  CHECK(f[2] == 0.0);
  // Temperature 2: p_i ∝ sqrt(p_i) → (0.7071, 0.5477, 0.4472) / 1.7020.
  f = frequencies(logits, {2.0f, 0, 1.0f});
  CHECK(std::fabs(f[0] - 0.4155) < 0.02);
  CHECK(std::fabs(f[2] - 0.2628) < 0.02);
  // Same seed, same draws.
  Pcg32 r1(9), r2(9);
  for (int i = 0; i < 50; ++i) CHECK(sample_token(logits, {1.0f, 0, 0.9f}, r1) == sample_token(logits, {1.0f, 0, 0.9f}, r2));
}

TEST_CASE("sampling: bad options and logits are errors") {
  Pcg32 rng;
  const std::vector<float> logits{0, 1};
  CHECK_THROWS_WITH_AS(sample_token(logits, {-1.0f, 0, 1.0f}, rng),
                       "sampling: temperature must be >= 0 (0 = greedy), got -1", Error);
  CHECK_THROWS_WITH_AS(sample_token(logits, {1.0f, -2, 1.0f}, rng),
                       "sampling: top_k must be >= 0 (0 = all tokens), got -2", Error);
  CHECK_THROWS_WITH_AS(sample_token(logits, {1.0f, 0, 0.0f}, rng), "sampling: top_p must be in (0, 1], got 0", Error);
  CHECK_THROWS_WITH_AS(sample_token(std::vector<float>{0, NAN}, {1.0f, 0, 1.0f}, rng), "sampling: logit 1 is NaN",
                       Error);
  CHECK_THROWS_WITH_AS(sample_token(std::vector<float>{}, {1.0f, 0, 1.0f}, rng), "sampling: no logits", Error);
}

TEST_CASE("sampling: report_token (float, SIMD softmax) agrees with token_probabilities (double)") {
  // a vocabulary-sized row with ties, -inf (a banned token) and a wide range; float sums over
  // 50,257 terms: relative differences of a few 1e-6
  std::vector<float> logits(50257);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i))) * 9.0f;
  logits[7] = logits[11] = 12.0f;  // tied for the top: the lower id first
  logits[3] = -INFINITY;
  const std::vector<double> p = token_probabilities(logits);
  for (const int32_t id : {0, 3, 7, 11, 50256}) {
    const TokenReport r = report_token(logits, id, 4);
    CAPTURE(id);
    CHECK(std::fabs(r.prob - p[static_cast<size_t>(id)]) <= 2e-5 * p[static_cast<size_t>(id)] + 1e-12);
    REQUIRE(r.top.size() == 4);
    CHECK(r.top[0].first == 7);
    CHECK(r.top[1].first == 11);
    const auto want = top_probabilities(p, 4);
    for (size_t i = 0; i < 4; ++i) {
      CHECK(r.top[i].first == want[i].first);
      CHECK(std::fabs(r.top[i].second - want[i].second) <= 2e-5 * want[i].second);
    }
  }
  // Without a top-n the probability comes from the softmax's sum alone (no V-long copy):
  // the same value within float rounding, for every id kind (top, tie, banned, last).
  for (const int32_t id : {0, 3, 7, 11, 12345, 50256}) {
    CAPTURE(id);
    const float fast = report_token(logits, id).prob, full = report_token(logits, id, 1).prob;
    CHECK(std::fabs(fast - p[static_cast<size_t>(id)]) <= 2e-5 * p[static_cast<size_t>(id)] + 1e-12);
    CHECK(std::fabs(fast - full) <= 1e-5 * full);
  }
  const std::vector<float> one = {-2.5f}, banned(5, -INFINITY);
  CHECK(report_token(one, 0).prob == 1.0f);
  CHECK(report_token(banned, 2).prob == 0.0f);  // no distribution: 0, as the softmax gives
  CHECK(report_token(banned, 2, 3).prob == 0.0f);
  CHECK(report_token(logits, 3).prob == 0.0f);
  CHECK(report_token(logits, 5, 0).top.empty());
  CHECK_THROWS_WITH_AS(report_token(logits, 50257), "report_token: id 50257 outside the 50257 logits", Error);
}

TEST_CASE("sampling: KV-cached greedy generation equals the golden greedy continuation") {
  const std::string dir = tfp::testing::checkpoint_dir("gpt2_tiny");
  const LoadedModel m = load_model_dir(dir);
  const nlohmann::json want = tfp::testing::read_json(dir + "/expected.json");
  const auto prompt = want["greedy_prompt"].get<std::vector<int32_t>>();
  const auto cont = want["greedy_continuation"].get<std::vector<int32_t>>();
  GenerateOptions opt;
  opt.max_tokens = static_cast<int>(cont.size());
  opt.sampling.temperature = 0.0f;
  int seen = 0;
  const GenerateResult r = generate(m.config(), m.weights(), prompt, opt, [&](const GeneratedToken& t) {
    CHECK(t.prob > 0.0f);
    CHECK(t.prob <= 1.0f);
    ++seen;
    return true;
  });
  CHECK(r.reason == StopReason::max_tokens);
  REQUIRE(r.tokens.size() == cont.size());
  CHECK(seen == static_cast<int>(cont.size()));
  for (size_t i = 0; i < cont.size(); ++i) CHECK(r.tokens[i].id == cont[i]);

  // Sampled runs: reproducible per seed, stopped by the callback or the context.
  opt.sampling = {0.8f, 20, 0.95f};
  opt.seed = 5;
  opt.max_tokens = 10;
  const GenerateResult a = generate(m.config(), m.weights(), prompt, opt);
  const GenerateResult b = generate(m.config(), m.weights(), prompt, opt);
  REQUIRE(a.tokens.size() == 10);
  for (size_t i = 0; i < 10; ++i) CHECK(a.tokens[i].id == b.tokens[i].id);
  const GenerateResult stopped = generate(m.config(), m.weights(), prompt, opt, [](const GeneratedToken&) { return false; });
  CHECK(stopped.reason == StopReason::stopped);
  CHECK(stopped.tokens.size() == 1);
  opt.max_tokens = 100;  // context is 32: 4 prompt tokens + 28 generated fill it, a 29th is still chosen
  const GenerateResult full = generate(m.config(), m.weights(), prompt, opt);
  CHECK(full.reason == StopReason::context_full);
  CHECK(full.tokens.size() == 29);
  opt.eos_token_ids = {a.tokens[2].id};
  opt.max_tokens = 10;
  const GenerateResult eos = generate(m.config(), m.weights(), prompt, opt);
  CHECK(eos.reason == StopReason::eos);
  CHECK(eos.tokens.size() <= 3);
}
