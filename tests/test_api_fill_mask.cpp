// tfp_model_fill_mask and the masked-LM fields of tfp_model_info_json ("head",
// "mask_token_id"), through the C API as the page's worker calls them.
// Oracles: the golden fill-mask lists of tests/fixtures/checkpoints/bert_mlm_tiny
// (a plain-torch BertForMaskedLM, softmax in float64; ids exact, probabilities within
// 1e-6); model::fill_mask_forward called directly (the API adds nothing: exact equality);
// the tokenizer's own [MASK] id.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "io/file.h"
#include "model/fill_mask.h"
#include "model/model.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {

tfp_model* load_fixture(const std::string& name) {
  return testing::open_through_api(testing::checkpoint_dir(name), name);
}

struct Filled {
  int status = 0, n_masked = -1;
  std::vector<int32_t> positions, ids;
  std::vector<float> probs;
};

Filled fill(tfp_model* m, const std::vector<int32_t>& ids, int top_k, int mask_id = -1) {
  Filled f;
  const size_t n = ids.size();
  f.positions.assign(n, -7);
  f.ids.assign(n * static_cast<size_t>(std::max(top_k, 1)), -7);
  f.probs.assign(f.ids.size(), -7.0f);
  f.status = tfp_model_fill_mask(m,
                                 tfp::testing::params(tfp_fill_mask_params{.ids = ids.data(),
                                                                           .n = static_cast<int>(n),
                                                                           .token_type_ids = nullptr,
                                                                           .attention_mask = nullptr,
                                                                           .mask_id = mask_id,
                                                                           .top_k = top_k}),
                                 f.positions.data(), f.ids.data(), f.probs.data(), &f.n_masked);
  return f;
}

}  // namespace

TEST_CASE("api fill_mask: BERT masked-LM fixture, top 10 per [MASK] equal the reference") {
  tfp_model* m = load_fixture("bert_mlm_tiny");
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(m));
  CHECK(info["head"] == "masked_lm");
  CHECK(info["mask_token_id"] == 4);
  CHECK(info["tokenizer"]["special"]["mask"] == 4);

  const nlohmann::json want = testing::read_json(testing::checkpoint_dir("bert_mlm_tiny") + "/expected.json");
  // The fixture's text tokenises to the golden ids, each "[MASK]" one token.
  const std::string text = want["text"];
  tfp_encoding* e = nullptr;
  REQUIRE(tfp_model_tokenize(m, text.data(), text.size(), 1, &e) == TFP_OK);
  const std::vector<int32_t> ids(tfp_encoding_ids(e), tfp_encoding_ids(e) + tfp_encoding_count(e));
  CHECK(ids == testing::json_list<int32_t>(want["input_ids"]));
  tfp_encoding_free(e);

  const Filled f = fill(m, ids, 10);
  REQUIRE(f.status == TFP_OK);
  REQUIRE(f.n_masked == 2);
  for (int r = 0; r < 2; ++r) {
    const nlohmann::json& g = want["fill_mask"][r];
    CHECK(f.positions[r] == g["position"].get<int32_t>());
    for (int k = 0; k < 10; ++k) {
      CHECK(f.ids[r * 10 + k] == g["ids"][k].get<int32_t>());
      CHECK(std::fabs(f.probs[r * 10 + k] - g["probs"][k].get<double>()) < 1e-6);
    }
  }
  // Equal to the engine called directly.
  const model::LoadedModel direct = model::load_model_dir(testing::checkpoint_dir("bert_mlm_tiny"));
  const auto d = model::fill_mask_forward(direct.config(), direct.weights(), ids, {}, {}, 4, 10);
  REQUIRE(d.size() == 2);
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 10; ++k) CHECK(f.probs[r * 10 + k] == d[r].probs[k]);

  // top_k beyond V = 40: each row holds the whole vocabulary (probabilities sum to 1),
  // then id -1 with probability 0.
  const Filled all = fill(m, ids, 45);
  REQUIRE(all.status == TFP_OK);
  double sum = 0;
  for (int k = 0; k < 40; ++k) sum += all.probs[k];
  CHECK(std::fabs(sum - 1.0) < 1e-5);
  for (int k = 40; k < 45; ++k) {
    CHECK(all.ids[k] == -1);
    CHECK(all.probs[k] == 0.0f);
  }
  // An explicit mask id: "the" (5) is filled at positions 1 and 5.
  const Filled the = fill(m, ids, 3, 5);
  REQUIRE(the.status == TFP_OK);
  CHECK(the.n_masked == 2);
  CHECK(the.positions[0] == 1);
  CHECK(the.positions[1] == 5);
  // No mask in the input: nothing filled, not an error.
  const Filled none = fill(m, {2, 5, 6, 3}, 5);
  CHECK(none.status == TFP_OK);
  CHECK(none.n_masked == 0);
  tfp_model_free(m);
}

TEST_CASE("api fill_mask: errors are statuses with messages") {
  tfp_model* bert = load_fixture("bert_tiny_f16");  // BertModel names: no head
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(bert));
  CHECK(info["head"] == "none");
  Filled f = fill(bert, {2, 4, 3}, 5);
  CHECK(f.status == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("has no masked-LM head") != std::string::npos);
  CHECK(f.n_masked == 0);
  CHECK(f.positions[0] == -7);  // outputs untouched on failure
  tfp_model_free(bert);

  tfp_model* gpt2 = load_fixture("gpt2_tiny");
  CHECK(nlohmann::json::parse(tfp_model_info_json(gpt2))["head"] == "lm");
  CHECK(nlohmann::json::parse(tfp_model_info_json(gpt2))["mask_token_id"] == -1);
  CHECK(fill(gpt2, {1, 2}, 5).status == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("decoder_only") != std::string::npos);
  tfp_model_free(gpt2);

  tfp_model* m = load_fixture("bert_mlm_tiny");
  CHECK(fill(m, {2, 4, 3}, 0).status == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("top_k must be at least 1") != std::string::npos);
  CHECK(fill(m, {2, 4, 99}, 5).status == TFP_ERR_ENGINE);  // id outside the vocabulary
  CHECK(std::string(tfp_last_error()).find("token id 99 at position 2") != std::string::npos);
  int n = 0;
  CHECK(
      tfp_model_fill_mask(
          m,
          tfp::testing::params(tfp_fill_mask_params{
              .ids = nullptr, .n = 0, .token_type_ids = nullptr, .attention_mask = nullptr, .mask_id = -1, .top_k = 5}),
          nullptr, nullptr, nullptr, &n) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(fill(m, {2, 4, 3}, 5).status == TFP_OK);  // still usable
  tfp_model_free(m);
}
