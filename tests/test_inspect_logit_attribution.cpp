// Direct logit attribution (inspect/logit_attribution.h, tfp_model_logit_attribution):
//   * tests/fixtures/patching/gpt2_tiny.json "dla" (gen_patching.py: plain torch in
//     float64, TransformerLens's decompose_resid / stack_head_results / apply_ln_to_stack
//     written out) gives every term on the GPT-2 fixture;
//   * on the decoder-only families (Llama GQA, Pythia parallel residual, BLOOM's embedding
//     norm and ALiBi, Qwen3's q/k norms, Mistral's window, GPT-Neo's local layers) the terms
//     add up to the forward pass's logit difference, the accumulated residual ends at it,
//     and each step of it is that block's heads + bias + MLP (the frozen norm is linear);
//   * a head switched off by the head mask contributes 0; answer = foil gives 0 everywhere;
//   * Gemma 2's sandwich norms, BERT, an id outside the vocabulary are refused by name.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "api/tfp_attribution_api.h"
#include "api/tfp_inspect_api.h"
#include "inspect/logit_attribution.h"
#include "model/model.h"
#include "test_api_tensors.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {

std::string family_dir(const std::string& name) { return std::string(TFP_FIXTURES_DIR) + "/families/" + name; }

double sum_of(const inspect::LogitAttribution& r) {
  double s = r.embed + r.pos_embed + r.norm_bias;
  for (float v : r.heads) s += v;
  for (float v : r.attn_bias) s += v;
  for (float v : r.mlp) s += v;
  return s;
}

}  // namespace

TEST_CASE("logit attribution: every term matches the torch reference on gpt2_tiny") {
  const nlohmann::json g = testing::read_json(std::string(TFP_FIXTURES_DIR) + "/patching/gpt2_tiny.json");
  const nlohmann::json& d = g["dla"];
  const model::LoadedModel lm = model::load_model_dir(testing::checkpoint_dir("gpt2_tiny"));
  const auto ids = g["clean"].get<std::vector<int32_t>>();
  const inspect::LogitAttribution r =
      inspect::logit_attribution(lm.config(), lm.weights(), ids, g["answer"].get<int32_t>(), g["foil"].get<int32_t>());
  const auto near = [](double got, double want) { return std::abs(got - want) <= 2e-5 + 1e-4 * std::abs(want); };
  CHECK(near(r.metric, d["metric"].get<double>()));
  CHECK(r.has_pos_embed);
  CHECK(near(r.embed, d["embed"].get<double>()));
  CHECK(near(r.pos_embed, d["pos_embed"].get<double>()));
  CHECK(near(r.norm_bias, d["norm_bias"].get<double>()));
  const auto check_all = [&](const std::vector<float>& got, const char* key) {
    const auto want = d[key].get<std::vector<double>>();
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      CAPTURE(key);
      CAPTURE(i);
      CHECK(near(got[i], want[i]));
    }
  };
  check_all(r.heads, "heads");
  check_all(r.attn_bias, "attn_bias");
  check_all(r.mlp, "mlp");
  check_all(r.accumulated, "accumulated");
  CHECK(std::abs(r.residual) <= 1e-4);
  CHECK(std::abs(sum_of(r) - (r.metric + r.residual)) <= 1e-5);  // the float-rounded terms
}

TEST_CASE("logit attribution: the terms add up to the metric on every pre-norm family") {
  for (const std::string name : {"llama_gqa", "pythia_parallel", "pythia_sequential", "bloom_alibi", "qwen3", "mistral_window",
                                 "gpt_neo_local", "qwen2"}) {
    CAPTURE(name);
    const model::LoadedModel lm = model::load_model_dir(family_dir(name));
    const model::ModelConfig& c = lm.config();
    const std::vector<int32_t> ids = {3, 17, 5, 9, 11, 2};
    const int32_t answer = 7, foil = static_cast<int32_t>(c.vocab_size - 3);
    const inspect::LogitAttribution r = inspect::logit_attribution(c, lm.weights(), ids, answer, foil);
    const double tol = 1e-4 * std::max(1.0, std::abs(r.metric));
    MESSAGE(name, ": metric ", r.metric, ", residual ", r.residual);
    CHECK(std::abs(r.residual) <= tol);
    CHECK(std::abs(r.accumulated.back() - r.metric) <= tol);
    CHECK(r.has_pos_embed == (c.positional == model::Positional::learned && !c.embedding_norm));
    CHECK(r.heads.size() == static_cast<size_t>(c.n_decoder_layers * c.n_heads));
    for (int64_t l = 0; l < r.L; ++l) {
      double block = r.attn_bias[l] + r.mlp[l];
      for (int64_t h = 0; h < r.H; ++h) block += r.heads[l * r.H + h];
      CAPTURE(l);
      CHECK(std::abs((r.accumulated[l + 1] - r.accumulated[l]) - block) <= tol);
    }
    // The same token twice: nothing separates them.
    const inspect::LogitAttribution same = inspect::logit_attribution(c, lm.weights(), ids, answer, answer);
    CHECK(same.metric == 0.0);
    for (float v : same.heads) CHECK(v == 0.0f);
  }
}

TEST_CASE("logit attribution: the C API, the head mask, and refusals by name") {
  const std::string dir = family_dir("llama_gqa");
  tfp_model* m = testing::open_through_api(dir, "llama_gqa", false);
  const model::LoadedModel lm = model::load_model_dir(dir);
  const std::vector<int32_t> ids = {3, 17, 5, 9, 11};
  const inspect::LogitAttribution want = inspect::logit_attribution(lm.config(), lm.weights(), ids, 7, 8);
  {
    testing::Tensors out;
    REQUIRE(tfp_model_logit_attribution(m, ids.data(), 5, 7, 8, &out.list) == TFP_OK);
    CHECK(out.data("heads") == want.heads);
    CHECK(out.dims("heads") == std::vector<int>{static_cast<int>(want.L), static_cast<int>(want.H)});
    CHECK(out.data("mlp") == want.mlp);
    CHECK(out.data("attn_bias") == want.attn_bias);
    CHECK(out.data("accumulated") == want.accumulated);
    CHECK(out.data("metric")[0] == static_cast<float>(want.metric));
    CHECK_FALSE(out.has("pos_embed"));  // rotary: no position embedding to split off
    CHECK(out.has("embed"));
  }
  // Layer 1, head 2 switched off: its term is 0, the others still add up.
  const float off[] = {1, 0, 1, 1};
  REQUIRE(tfp_model_set_head_mask(m, "dec", 0, off, lm.config().n_heads) == TFP_OK);
  {
    testing::Tensors out;
    REQUIRE(tfp_model_logit_attribution(m, ids.data(), 5, 7, 8, &out.list) == TFP_OK);
    CHECK(out.data("heads")[1] == 0.0f);
    CHECK(std::abs(out.data("metric")[2]) <= 1e-4);
  }
  tfp_model_clear_head_mask(m);
  const auto refused = [&](tfp_model* model, const std::vector<int32_t>& x, int a, int b, const std::string& says) {
    tfp_tensors* o = nullptr;
    CHECK(tfp_model_logit_attribution(model, x.data(), static_cast<int32_t>(x.size()), a, b, &o) == TFP_ERR_INVALID_ARGUMENT);
    CHECK(o == nullptr);
    const std::string msg = tfp_last_error();
    CAPTURE(msg);
    CHECK(msg.find(says) != std::string::npos);
  };
  refused(m, ids, static_cast<int>(lm.config().vocab_size), 8, "answer id");
  refused(m, {3, -1}, 7, 8, "id -1 at position 1 is outside the vocabulary");
  refused(m, {}, 7, 8, "needs n >= 1");
  tfp_model_free(m);
  tfp_model* gemma = testing::open_through_api(family_dir("gemma2"), "gemma2", false);
  refused(gemma, ids, 7, 8, "sandwich norms");
  tfp_model_free(gemma);
  tfp_model* bert = testing::open_through_api(testing::checkpoint_dir("bert_tiny"), "bert_tiny");
  refused(bert, ids, 7, 8, "decoder-only");
  tfp_model_free(bert);
}
