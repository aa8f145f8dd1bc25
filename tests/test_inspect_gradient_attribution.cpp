// Gradient attribution (inspect/gradient_attribution.h):
//   * on gpt2_tiny and the Llama GQA family fixture, gradient × input, the gradient's norm,
//     integrated gradients at 64 steps and the baseline metric equal torch's autograd on the
//     float64 references (tests/fixtures/gen_patching.py), for both metrics; on GPT-2 the
//     completeness gap is under 1 % of the metric's change;
//   * on every decoder-only family fixture (LayerNorm, RMSNorm and 1 + w, GELU, SiLU, gated
//     MLPs, RoPE of every kind, ALiBi, GQA, windows, q/k norms, both soft-caps, sandwich norms,
//     parallel residuals, bf16 and f16 weights) and BERT's masked-LM head: the metric is the
//     engine's forward pass's, and the gradient agrees with central finite differences of the
//     metric along random directions and along each position's row;
//   * encoder–decoders, an encoder without an LM head, a position or step count out of range
//     are refused by name.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "api/tfp_attribution_api.h"
#include "inspect/activation_patching.h"
#include "inspect/gradient_attribution.h"
#include "model/model.h"
#include "test_api_tensors.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {

std::string family_dir(const std::string& name) { return std::string(TFP_FIXTURES_DIR) + "/families/" + name; }

bool near(double got, double want, double rel = 1e-3, double abs = 2e-5) {
  return std::abs(got - want) <= abs + rel * std::abs(want);
}

void check_against_torch(const model::LoadedModel& lm, const std::vector<int32_t>& ids, int32_t answer, int32_t foil,
                         const nlohmann::json& want) {
  for (const auto& named : {std::pair{"logit_diff", inspect::GradMetric::logit_diff},
                            std::pair{"logprob", inspect::GradMetric::logprob}}) {
    const char* name = named.first;
    const inspect::GradMetric metric = named.second;
    CAPTURE(name);
    const nlohmann::json& w = want[name];
    const inspect::GradientAttribution r = inspect::gradient_attribution(lm.config(), lm.weights(), ids, answer, foil, metric, 64);
    CHECK(near(r.value, w["value"].get<double>(), 1e-4));
    CHECK(near(r.baseline_value, w["baseline"].get<double>(), 1e-4));
    for (const auto& part : {std::pair{"grad_x_input", &r.grad_x_input}, std::pair{"grad_norm", &r.grad_norm},
                             std::pair{"integrated", &r.integrated}}) {
      const char* key = part.first;
      const std::vector<float>* got = part.second;
      const auto ref = w[key].get<std::vector<double>>();
      REQUIRE(got->size() == ref.size());
      for (size_t t = 0; t < ref.size(); ++t) {
        CAPTURE(key);
        CAPTURE(t);
        CHECK(near((*got)[t], ref[t], 2e-3, 1e-4));
      }
    }
    CHECK(near(r.completeness_gap, w["completeness_gap"].get<double>(), 2e-2, 1e-3));
  }
}

// The metric of the engine's own forward pass at position p.
double engine_metric(const model::LoadedModel& lm, const std::vector<int32_t>& ids, int32_t answer, int32_t foil,
                     inspect::GradMetric metric, int64_t p) {
  const model::ModelConfig& cfg = lm.config();
  const model::ForwardResult out = cfg.architecture == model::Architecture::encoder_only
                                       ? model::forward_encoder_only(cfg, lm.weights(), ids)
                                       : model::forward_decoder_only(cfg, lm.weights(), ids);
  const int64_t V = out.logits.dim(1);
  const auto [diff, logprob] = inspect::patching_metric(std::span<const float>(out.logits.ptr() + p * V, static_cast<size_t>(V)),
                                                        answer, foil);
  return metric == inspect::GradMetric::logit_diff ? diff : logprob;
}

// The gradient along direction u against (f(e + h·u) − f(e − h·u)) / 2h.
void check_direction(const model::LoadedModel& lm, const std::vector<int32_t>& ids, const Tensor& rows,
                     const inspect::MetricGradient& g, const std::vector<float>& u, int32_t answer, int32_t foil,
                     inspect::GradMetric metric, int64_t p, const std::string& what) {
  double un = 0;  // u is made a unit vector: the tolerance reads in the metric's units
  for (float v : u) un += static_cast<double>(v) * v;
  double gu = 0;
  for (size_t i = 0; i < u.size(); ++i) gu += static_cast<double>(g.grad[i]) * u[i] / std::sqrt(un);
  const double h = 1e-2 / std::sqrt(un);
  Tensor plus = rows, minus = rows;
  for (size_t i = 0; i < u.size(); ++i) {
    plus.data[i] += static_cast<float>(h * u[i]);
    minus.data[i] -= static_cast<float>(h * u[i]);
  }
  const double fp = inspect::metric_gradient(lm.config(), lm.weights(), ids, plus, answer, foil, metric, p).value;
  const double fm = inspect::metric_gradient(lm.config(), lm.weights(), ids, minus, answer, foil, metric, p).value;
  const double fd = (fp - fm) / (2e-2);
  CAPTURE(what);
  CAPTURE(gu);
  CAPTURE(fd);
  CHECK(std::abs(fd - gu) <= 1e-3 + 2e-2 * std::abs(gu));
}

void check_family(const std::string& dir, std::vector<int32_t> ids, int32_t answer, int32_t foil, int64_t position = -1) {
  CAPTURE(dir);
  const model::LoadedModel lm = model::load_model_dir(dir);
  const int64_t T = static_cast<int64_t>(ids.size()), C = lm.config().d_model, p = position < 0 ? T - 1 : position;
  const Tensor rows = model::token_rows(lm.config(), lm.weights().embed, ids);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (const auto metric : {inspect::GradMetric::logit_diff, inspect::GradMetric::logprob}) {
    const inspect::MetricGradient g = inspect::metric_gradient(lm.config(), lm.weights(), ids, rows, answer, foil, metric, position);
    CHECK(near(g.value, engine_metric(lm, ids, answer, foil, metric, p), 1e-4, 1e-4));
    REQUIRE(g.grad.size() == static_cast<size_t>(T * C));
    for (int k = 0; k < 3; ++k) {  // random directions over every position
      std::vector<float> u(g.grad.size());
      for (float& v : u) v = normal(rng);
      check_direction(lm, ids, rows, g, u, answer, foil, metric, position, "random direction " + std::to_string(k));
    }
    for (int64_t t = 0; t < T; ++t) {  // each position's own row (causal: later rows pass nothing to p)
      std::vector<float> u(g.grad.size(), 0.0f);
      for (int64_t c = 0; c < C; ++c) u[t * C + c] = normal(rng);
      check_direction(lm, ids, rows, g, u, answer, foil, metric, position, "row " + std::to_string(t));
    }
  }
}

}  // namespace

TEST_CASE("gradient attribution: gpt2_tiny equals torch's autograd; completeness within 1 % at 64 steps") {
  const nlohmann::json g = testing::read_json(std::string(TFP_FIXTURES_DIR) + "/patching/gpt2_tiny.json");
  const model::LoadedModel lm = model::load_model_dir(testing::checkpoint_dir("gpt2_tiny"));
  const auto ids = g["clean"].get<std::vector<int32_t>>();
  check_against_torch(lm, ids, g["answer"].get<int32_t>(), g["foil"].get<int32_t>(), g["gradients"]);
  const inspect::GradientAttribution r = inspect::gradient_attribution(lm.config(), lm.weights(), ids, g["answer"].get<int32_t>(),
                                                                       g["foil"].get<int32_t>(), inspect::GradMetric::logit_diff, 64);
  CHECK(std::abs(r.completeness_gap) <= 0.01 * std::abs(r.value - r.baseline_value));
  CHECK(r.steps == 64);
  CHECK(r.position == static_cast<int64_t>(ids.size()) - 1);
}

TEST_CASE("gradient attribution: Llama GQA equals torch's autograd (RMSNorm, RoPE, grouped heads, SwiGLU)") {
  const nlohmann::json g = testing::read_json(std::string(TFP_FIXTURES_DIR) + "/patching/llama_gqa_gradients.json");
  const model::LoadedModel lm = model::load_model_dir(family_dir("llama_gqa"));
  check_against_torch(lm, g["ids"].get<std::vector<int32_t>>(), g["answer"].get<int32_t>(), g["foil"].get<int32_t>(), g);
}

TEST_CASE("gradient attribution: the backward agrees with finite differences on every decoder-only family") {
  const std::vector<int32_t> ids = {5, 17, 3, 42, 8, 29};
  for (const char* name : {"llama_gqa", "llama3_scaled_tied", "llama_bf16", "mistral_window", "qwen2", "qwen3",
                           "pythia_parallel", "pythia_sequential", "bloom_alibi", "gpt_neo_local", "gemma2", "gemma3_text"})
    check_family(family_dir(name), ids, 7, 13);
  check_family(testing::checkpoint_dir("gpt2_tiny"), {256, 72, 101, 108, 111, 44}, 100, 119);
  check_family(testing::checkpoint_dir("gpt2_tiny_lmhead_f16"), {256, 72, 101, 108, 111, 44}, 100, 119);
}

TEST_CASE("gradient attribution: BERT's masked-LM head, at a chosen position, agrees with finite differences") {
  check_family(testing::checkpoint_dir("bert_mlm_tiny"), {2, 11, 4, 19, 7, 3}, 9, 12, 3);
  check_family(testing::checkpoint_dir("bert_mlm_tiny_f16"), {2, 11, 4, 19, 7, 3}, 9, 12, 1);
}

TEST_CASE("gradient attribution under a head mask: the masked model's metric and gradient") {
  const model::LoadedModel lm = model::load_model_dir(family_dir("llama_gqa"));
  const std::vector<int32_t> ids = {5, 17, 3, 42, 8, 29};
  inspect::HeadMask mask;
  mask.set("dec.0.attn", {0.0f, 1.0f, 0.5f, 2.0f});
  inspect::HeadMaskObserver masked(mask);
  const model::ForwardResult out = model::forward_decoder_only(lm.config(), lm.weights(), ids, &masked);
  const int64_t V = out.logits.dim(1), T = static_cast<int64_t>(ids.size());
  const double want = inspect::patching_metric(std::span<const float>(out.logits.ptr() + (T - 1) * V, static_cast<size_t>(V)), 7, 13).first;
  const Tensor rows = model::token_rows(lm.config(), lm.weights().embed, ids);
  const auto f = [&](const Tensor& x) {
    return inspect::metric_gradient(lm.config(), lm.weights(), ids, x, 7, 13, inspect::GradMetric::logit_diff, -1, &mask);
  };
  const inspect::MetricGradient g = f(rows);
  CHECK(near(g.value, want, 1e-4, 1e-4));
  CHECK(std::abs(g.value - f(rows).value) < 1e-9);
  const double unmasked = inspect::metric_gradient(lm.config(), lm.weights(), ids, rows, 7, 13, inspect::GradMetric::logit_diff).value;
  CHECK(std::abs(g.value - unmasked) > 1e-3);  // the mask changes the model
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  double gu = 0, un = 0;
  std::vector<float> u(g.grad.size());
  for (float& v : u) {
    v = normal(rng);
    un += static_cast<double>(v) * v;
  }
  for (float& v : u) v = static_cast<float>(v / std::sqrt(un));
  Tensor plus = rows, minus = rows;
  for (size_t i = 0; i < u.size(); ++i) {
    gu += static_cast<double>(g.grad[i]) * u[i];
    plus.data[i] += 1e-2f * u[i];
    minus.data[i] -= 1e-2f * u[i];
  }
  const double fd = (f(plus).value - f(minus).value) / 2e-2;
  CHECK(std::abs(fd - gu) <= 1e-3 + 2e-2 * std::abs(gu));
}

TEST_CASE("integrated gradients in ranges of steps add up to the whole run, and the baseline is the zero-row metric") {
  const model::LoadedModel lm = model::load_model_dir(family_dir("llama_gqa"));
  const std::vector<int32_t> ids = {5, 17, 3, 42, 8, 29};
  const auto metric = inspect::GradMetric::logit_diff;
  const inspect::GradientAttribution whole = inspect::gradient_attribution(lm.config(), lm.weights(), ids, 7, 13, metric, 10);
  std::vector<double> sum(ids.size(), 0.0);
  for (const auto& [first, count] : {std::pair{0, 3}, std::pair{3, 1}, std::pair{4, 6}}) {
    const std::vector<double> part = inspect::integrated_gradients_part(lm.config(), lm.weights(), ids, 7, 13, metric, 10, first, count);
    REQUIRE(part.size() == ids.size());
    for (size_t t = 0; t < ids.size(); ++t) sum[t] += part[t];
  }
  for (size_t t = 0; t < ids.size(); ++t) CHECK(near(sum[t], whole.integrated[t], 1e-5, 1e-4));
  CHECK(inspect::zero_baseline_metric(lm.config(), lm.weights(), ids, 7, 13, metric) == doctest::Approx(whole.baseline_value));
  CHECK_THROWS_WITH(inspect::integrated_gradients_part(lm.config(), lm.weights(), ids, 7, 13, metric, 10, 8, 3),
                    doctest::Contains("steps 8..10 are not a range of 0..9"));
  CHECK_THROWS_WITH(inspect::integrated_gradients_part(lm.config(), lm.weights(), ids, 7, 13, metric, 10, -1, 2),
                    doctest::Contains("not a range"));
  // The C API: the same ranges, the baseline only with the last one, and refusals by name.
  tfp_model* m = testing::open_through_api(family_dir("llama_gqa"), "llama_gqa", false);
  {
    testing::Tensors head, tail;
    REQUIRE(tfp_model_integrated_gradients(m, ids.data(), 6, 7, 13, 0, 10, 0, 4, -1, &head.list) == TFP_OK);
    REQUIRE(tfp_model_integrated_gradients(m, ids.data(), 6, 7, 13, 0, 10, 4, 6, -1, &tail.list) == TFP_OK);
    CHECK_FALSE(head.has("baseline"));
    CHECK(tail.data("baseline")[0] == doctest::Approx(whole.baseline_value).epsilon(1e-6));
    for (size_t t = 0; t < ids.size(); ++t)
      CHECK(near(head.data("integrated")[t] + tail.data("integrated")[t], whole.integrated[t], 1e-5, 1e-4));
  }
  tfp_tensors* o = nullptr;
  CHECK(tfp_model_integrated_gradients(m, ids.data(), 6, 7, 13, 0, 10, 9, 2, -1, &o) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(o == nullptr);
  CHECK(std::string(tfp_last_error()).find("steps 9..10 are not a range of 0..9") != std::string::npos);
  CHECK(tfp_model_integrated_gradients(m, ids.data(), 6, 7, 13, 0, 0, 0, 1, -1, &o) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("steps must be 1..4096") != std::string::npos);
  tfp_model_free(m);
}

TEST_CASE("gradient attribution: refusals name the problem") {
  const model::LoadedModel t5 = model::load_model_dir(family_dir("flan_t5"));
  CHECK(inspect::gradient_refusal(t5.config(), std::vector<int32_t>{1, 2}, 3, 4, -1, 8).find("decoder-only") != std::string::npos);
  model::ModelConfig encoder = model::load_model_dir(testing::checkpoint_dir("bert_tiny")).config();
  encoder.encoder_head = model::EncoderHead::none;  // hidden states only
  CHECK(inspect::gradient_refusal(encoder, std::vector<int32_t>{1, 2}, 3, 4, -1, 8).find("LM head") != std::string::npos);
  const model::LoadedModel gpt2 = model::load_model_dir(testing::checkpoint_dir("gpt2_tiny"));
  const std::vector<int32_t> ids = {256, 72, 101};
  CHECK(inspect::gradient_refusal(gpt2.config(), ids, 3, 4, 3, 8).find("position 3") != std::string::npos);
  CHECK(inspect::gradient_refusal(gpt2.config(), ids, 3, 4, -1, 5000).find("steps") != std::string::npos);
  CHECK(inspect::gradient_refusal(gpt2.config(), ids, 3, 999999, -1, 8).find("foil") != std::string::npos);
  CHECK_THROWS_WITH_AS(inspect::gradient_attribution(gpt2.config(), gpt2.weights(), ids, 3, 4, inspect::GradMetric::logprob, 8, 7),
                       doctest::Contains("position 7"), Error);
}
