// The Learn chapter "Generating text": the warped distribution (model/sampling.h
// warped_probabilities), the KV cache's size (model/kv_cache.h kv_cache_bytes), the
// generation loop without a cache (model/generate.h generate_without_cache) and their C
// API (src/api/tfp_learn_generation_api.h). Oracles:
//  - warped distributions derived by hand below (tolerance 1e-6: the logits are float32
//    logarithms of the intended probabilities);
//  - sample_token's frequencies over 20000 draws against warped_probabilities, within
//    5 binomial standard deviations sqrt(q(1 - q) / 20000) (+1e-9), and exactly 0 for
//    every token the warpers removed;
//  - the KV cache's size against the bytes a KVCache actually allocates, and by hand for
//    brown-gpt: 4 layers × 2 × 128 positions × 128 × 4 bytes = 524,288;
//  - generation without a cache against model::generate (the KV-cached loop): the same
//    ids, exactly, on brown-gpt and the gpt2_tiny fixture, greedy and sampled.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "api/tfp_learn_generation_api.h"
#include "model/generate.h"
#include "model/kv_cache.h"
#include "model/model.h"
#include "model/sampling.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;

namespace {

std::string repo_path(const std::string& rel) { return std::string(TFP_FIXTURES_DIR) + "/../../" + rel; }

std::vector<float> log_of(std::initializer_list<double> p) {
  std::vector<float> z;
  for (double x : p) z.push_back(static_cast<float>(std::log(x)));
  return z;
}

void check_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-6) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("token ", i);
    CHECK(std::fabs(got[i] - want[i]) <= tol);
  }
}

std::vector<int32_t> ids_of(const GenerateResult& r) {
  std::vector<int32_t> ids;
  for (const auto& t : r.tokens) ids.push_back(t.id);
  return ids;
}

}  // namespace

TEST_CASE("learn generation: warped_probabilities applies temperature, then top-k, then top-p") {
  // softmax(log p) = p at temperature 1: p = (0.4, 0.3, 0.2, 0.1).
  const std::vector<float> z = log_of({0.4, 0.3, 0.2, 0.1});
  check_near(warped_probabilities(z, {1.0f, 0, 1.0f}), {0.4, 0.3, 0.2, 0.1});
  // top_k 3 keeps 0.4, 0.3, 0.2 (mass 0.9) → /0.9; the fourth is exactly 0.
  std::vector<double> q = warped_probabilities(z, {1.0f, 3, 1.0f});
  check_near(q, {4.0 / 9, 3.0 / 9, 2.0 / 9, 0.0});
  CHECK(q[3] == 0.0);
  // top_p 0.65: 0.4 < 0.65, 0.4 + 0.3 = 0.7 >= 0.65 → {0, 1}, renormalised by 0.7.
  check_near(warped_probabilities(z, {1.0f, 0, 0.65f}), {4.0 / 7, 3.0 / 7, 0.0, 0.0});
  // top-p after top-k, on the top-k distribution: top_k 3 → (4/9, 3/9, 2/9); cumulative
  // 4/9 = 0.444 < 0.75, 7/9 = 0.778 >= 0.75 → {0, 1}. (On the raw p, 0.7 < 0.75 would
  // have kept three tokens: the order matters.)
  check_near(warped_probabilities(z, {1.0f, 3, 0.75f}), {4.0 / 7, 3.0 / 7, 0.0, 0.0});
  check_near(warped_probabilities(z, {1.0f, 0, 0.75f}), {4.0 / 9, 3.0 / 9, 2.0 / 9, 0.0});
  // Temperature 2: p_i^(1/2) / Σ: (2, √3, √2, 1) / (3 + √3 + √2).
  const double s = 3 + std::sqrt(3.0) + std::sqrt(2.0);
  check_near(warped_probabilities(z, {2.0f, 0, 1.0f}), {2 / s, std::sqrt(3.0) / s, std::sqrt(2.0) / s, 1 / s});
  // Temperature 0 is greedy, not a division by 0: all mass on the argmax, ties to the
  // lower id; top_k 1 is greedy at any temperature.
  CHECK(warped_probabilities(z, {0.0f, 0, 1.0f}) == std::vector<double>{1, 0, 0, 0});
  CHECK(warped_probabilities(std::vector<float>{1, 3, 3}, {0.0f, 0, 1.0f}) == std::vector<double>{0, 1, 0});
  CHECK(warped_probabilities(z, {5.0f, 1, 1.0f}) == std::vector<double>{1, 0, 0, 0});
  // Huge logits: the max is subtracted first, nothing overflows.
  q = warped_probabilities(std::vector<float>{1000, 1000, 0}, {0.5f, 0, 1.0f});
  check_near(q, {0.5, 0.5, 0.0});
  // Errors are sample_token's.
  CHECK_THROWS_WITH_AS(warped_probabilities(z, {-1.0f, 0, 1.0f}), "sampling: temperature must be >= 0 (0 = greedy), got -1",
                       Error);
  CHECK_THROWS_WITH_AS(warped_probabilities(std::vector<float>{}, {1.0f, 0, 1.0f}), "sampling: no logits", Error);
}

TEST_CASE("learn generation: sample_token's frequencies follow warped_probabilities") {
  const std::vector<float> z{2.0f, 1.5f, 1.4f, 0.3f, -0.5f, -3.0f};
  const SamplingOptions cases[] = {
      {1.0f, 0, 1.0f}, {0.7f, 0, 1.0f}, {1.5f, 4, 1.0f}, {1.0f, 0, 0.8f}, {1.3f, 5, 0.9f}, {0.0f, 0, 1.0f}, {0.9f, 0, 0.1f},
  };
  constexpr int N = 20000;
  for (const SamplingOptions& opt : cases) {
    CAPTURE(opt.temperature);
    CAPTURE(opt.top_k);
    CAPTURE(opt.top_p);
    const std::vector<double> q = warped_probabilities(z, opt);
    CHECK(std::accumulate(q.begin(), q.end(), 0.0) == doctest::Approx(1.0).epsilon(1e-12));
    Pcg32 rng(2024);
    std::vector<double> f(z.size(), 0.0);
    for (int i = 0; i < N; ++i) f[static_cast<size_t>(sample_token(z, opt, rng))] += 1.0 / N;
    for (size_t i = 0; i < z.size(); ++i) {
      INFO("token ", i, ": frequency ", f[i], ", warped probability ", q[i]);
      if (q[i] == 0.0) CHECK(f[i] == 0.0);
      else CHECK(std::fabs(f[i] - q[i]) <= 5 * std::sqrt(q[i] * (1 - q[i]) / N) + 1e-9);
    }
  }
}

TEST_CASE("learn generation: the KV cache's size is layers x 2 x positions x H*D x 4 bytes") {
  const LoadedModel m = load_model_dir(repo_path("models/brown-gpt"));
  const ModelConfig& cfg = m.config();
  // brown-gpt: 4 layers, 4 heads of 32 (H·D = 128): 4 × 2 × 128 × 128 × 4 = 524,288 bytes.
  CHECK(kv_cache_bytes(cfg, 128) == 524288);
  CHECK(kv_cache_bytes(cfg, 0) == 0);
  CHECK(kv_cache_bytes(cfg, 10) == 4 * 2 * 10 * 128 * 4);
  // What a KVCache of that capacity really allocates: K and V (H, capacity, D) per layer.
  for (int64_t positions : {1, 17, 128}) {
    const KVCache cache(cfg, positions);
    int64_t floats = 0;
    for (const auto& l : cache.layers) floats += l.self.k.numel() + l.self.v.numel();
    CHECK(kv_cache_bytes(cfg, positions) == floats * 4);
  }
  CHECK_THROWS_WITH_AS(kv_cache_bytes(cfg, -1), "kv_cache_bytes: positions must be >= 0, got -1", Error);
}

TEST_CASE("learn generation: generation without a KV cache chooses exactly the cached loop's tokens") {
  const LoadedModel m = load_model_dir(repo_path("models/brown-gpt"));
  const Encoding enc = m.tokenizer->encode("The jury said");
  const std::vector<int32_t> prompt(enc.ids.begin(), enc.ids.end());
  GenerateOptions opt;
  opt.max_tokens = 40;
  opt.eos_token_ids.clear();
  for (const SamplingOptions s : {SamplingOptions{0.0f, 0, 1.0f}, SamplingOptions{1.0f, 0, 1.0f}, SamplingOptions{0.8f, 40, 0.95f}}) {
    for (uint64_t seed : {0u, 1u, 7u}) {
      CAPTURE(s.temperature);
      CAPTURE(seed);
      opt.sampling = s;
      opt.seed = seed;
      const GenerateResult with = generate(m.config(), m.weights(), prompt, opt);
      const GenerateResult without = generate_without_cache(m.config(), m.weights(), prompt, opt);
      CHECK(with.tokens.size() == 40);
      CHECK(ids_of(with) == ids_of(without));
      CHECK(with.reason == without.reason);
      for (size_t t = 0; t < with.tokens.size() && t < without.tokens.size(); ++t)
        CHECK(std::fabs(with.tokens[t].prob - without.tokens[t].prob) <= 1e-5f);
    }
  }
  // Up to the end of the context: both stop at context_full after the same tokens
  // (128 positions: a P-token prompt leaves room to feed 128 - P more, so 129 - P are chosen).
  opt.max_tokens = 500;
  opt.sampling = {0.0f, 0, 1.0f};
  const GenerateResult with = generate(m.config(), m.weights(), prompt, opt);
  const GenerateResult without = generate_without_cache(m.config(), m.weights(), prompt, opt);
  CHECK(with.reason == StopReason::context_full);
  CHECK(without.reason == StopReason::context_full);
  CHECK(with.tokens.size() == 128 - prompt.size() + 1);
  CHECK(ids_of(with) == ids_of(without));

  // The gpt2_tiny fixture (GPT-2's layout) too.
  const LoadedModel tiny = load_model_dir(tfp::testing::checkpoint_dir("gpt2_tiny"));
  const std::vector<int32_t> p2{1, 2, 3};
  opt.max_tokens = 12;
  opt.sampling = {0.9f, 0, 1.0f};
  opt.seed = 3;
  CHECK(ids_of(generate(tiny.config(), tiny.weights(), p2, opt)) ==
        ids_of(generate_without_cache(tiny.config(), tiny.weights(), p2, opt)));
}

TEST_CASE("learn generation: the C API") {
  // tfp_learn_sampling_probs = warped_probabilities and token_probabilities, as float32.
  const std::vector<float> z{2.0f, 1.5f, 1.4f, 0.3f, -0.5f, -3.0f};
  std::vector<float> raw(z.size()), warped(z.size());
  int kept = -1;
  REQUIRE(tfp_learn_sampling_probs(z.data(), 6, 1.3f, 5, 0.9f, raw.data(), warped.data(), &kept) == TFP_OK);
  const std::vector<double> q = warped_probabilities(z, {1.3f, 5, 0.9f}), p = token_probabilities(z, 1.0f);
  int nonzero = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    CHECK(warped[i] == static_cast<float>(q[i]));
    CHECK(raw[i] == static_cast<float>(p[i]));
    nonzero += q[i] > 0;
  }
  CHECK(kept == nonzero);
  REQUIRE(tfp_learn_sampling_probs(z.data(), 6, 0.0f, 0, 1.0f, raw.data(), warped.data(), &kept) == TFP_OK);
  CHECK(kept == 1);
  CHECK(warped[0] == 1.0f);
  CHECK(tfp_learn_sampling_probs(z.data(), 0, 1.0f, 0, 1.0f, raw.data(), warped.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_sampling_probs: V must be >= 1, got 0");
  CHECK(tfp_learn_sampling_probs(z.data(), 6, 1.0f, 0, 1.5f, raw.data(), warped.data(), nullptr) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()) == "sampling: top_p must be in (0, 1], got 1.5");

  tfp_model* m = tfp::testing::open_through_api(repo_path("models/brown-gpt"), "brown-gpt");
  double size[6] = {};
  REQUIRE(tfp_learn_kv_cache_size(m, 128, size) == TFP_OK);
  CHECK(size[0] == 4);
  CHECK(size[1] == 4);
  CHECK(size[2] == 32);
  CHECK(size[3] == 128);
  CHECK(size[4] == 128);
  CHECK(size[5] == 524288);
  CHECK(tfp_learn_kv_cache_size(m, 129, size) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_kv_cache_size: positions must be in 0 .. 128 (the model's context), got 129");
  {
    // From a published config alone: Llama 3 8B (grouped-query, 8 key/value heads of 128 for
    // 32 query heads) and Llama 2 7B (32 of each): a quarter of the cache at the same width.
    const std::string llama3 = R"({"model_type":"llama","architectures":["LlamaForCausalLM"],"hidden_size":4096,
      "intermediate_size":14336,"num_attention_heads":32,"num_key_value_heads":8,"num_hidden_layers":32,
      "vocab_size":128256,"max_position_embeddings":8192,"rms_norm_eps":1e-5,"rope_theta":500000.0,
      "tie_word_embeddings":false,"hidden_act":"silu"})";
    std::string llama2 = llama3;
    const std::string kv8 = "\"num_key_value_heads\":8";
    llama2.replace(llama2.find(kv8), kv8.size(), "\"num_key_value_heads\":32");
    double g[7] = {}, h[7] = {};
    REQUIRE_MESSAGE(tfp_learn_kv_cache_size_config(llama3.data(), llama3.size(), 4096, g) == TFP_OK, tfp_last_error());
    REQUIRE_MESSAGE(tfp_learn_kv_cache_size_config(llama2.data(), llama2.size(), 4096, h) == TFP_OK, tfp_last_error());
    CHECK(g[0] == 32);
    CHECK(g[1] == 32);
    CHECK(g[2] == 128);
    CHECK(g[3] == 1024);
    CHECK(g[6] == 8);
    CHECK(g[5] == 32.0 * 2 * 4096 * 1024 * 4);  // 1 GiB
    CHECK(h[3] == 4096);
    CHECK(h[6] == 32);
    CHECK(h[5] == 4 * g[5]);
    CHECK(tfp_learn_kv_cache_size_config(llama3.data(), llama3.size(), 8193, g) == TFP_ERR_INVALID_ARGUMENT);
    CHECK(std::string(tfp_last_error()).find("positions must be in 0 .. 8192 (the config's context)") != std::string::npos);
    const std::string broken = "{\"model_type\": \"llama\", ";
    CHECK(tfp_learn_kv_cache_size_config(broken.data(), broken.size(), 1, g) != TFP_OK);
    CHECK_FALSE(std::string(tfp_last_error()).empty());
  }

  const int32_t prompt[3] = {10, 20, 30};
  const int32_t lengths[2] = {3, 6};
  double out[8] = {};
  std::vector<int32_t> a(6, -1), b(6, -2);
  tfp_generator_params gp;
  tfp_generator_params_init(&gp);
  gp.prompt = prompt;
  gp.n = 3;
  gp.temperature = 0.8f;
  gp.top_k = 40;
  gp.top_p = 0.95f;
  gp.seed = 1;
  REQUIRE(tfp_learn_generation_timing(m, &gp, lengths, 2, out, a.data(), b.data()) == TFP_OK);
  for (int i = 0; i < 2; ++i) {
    CHECK(out[4 * i] > 0);
    CHECK(out[4 * i + 1] > 0);
    CHECK(out[4 * i + 2] == lengths[i]);
    CHECK(out[4 * i + 3] == 1);
  }
  CHECK(a == b);
  CHECK(a[5] >= 0);
  const int32_t too_long[1] = {127};
  gp.temperature = 0.0f;
  gp.top_k = 0;
  gp.top_p = 1.0f;
  CHECK(tfp_learn_generation_timing(m, &gp, too_long, 1, out, nullptr, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_learn_generation_timing: lengths[0] = 127 new tokens do not fit after a 3-token prompt in the model's "
        "context of 128 (at most 126)");
  tfp_model_free(m);
}
