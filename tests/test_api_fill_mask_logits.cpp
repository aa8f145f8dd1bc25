// tfp_fill_mask_logits: fill-mask top-k from the logits of a forward pass the caller
// already ran (the playground's masked-LM path: one forward pass, not two).
// Oracle: tfp_model_fill_mask on the same ids (which runs the model itself): the forward
// pass's "logits" are the same numbers, so ids and probabilities are equal exactly.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "io/file.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {

tfp_model* load_mlm() { return testing::open_through_api(testing::checkpoint_dir("bert_mlm_tiny"), "bert_mlm_tiny"); }

struct Top {
  int status = 0, n_masked = -1;
  std::vector<int32_t> positions, ids;
  std::vector<float> probs;
  explicit Top(size_t n, int k) : positions(n, -7), ids(n * static_cast<size_t>(k), -7), probs(ids.size(), -7.0f) {}
};

}  // namespace

TEST_CASE("api fill_mask_logits: equals tfp_model_fill_mask on the forward pass's logits") {
  tfp_model* m = load_mlm();
  const std::vector<int32_t> ids = {2, 4, 5, 6, 4, 7, 3};  // two [MASK] (id 4)
  const int n = static_cast<int>(ids.size()), K = 12;
  tfp_tensors* out = nullptr;
  REQUIRE(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids.data(), .n = n}), &out) == TFP_OK);
  const int li = tfp_tensors_find(out, "logits");
  REQUIRE(li >= 0);
  REQUIRE(tfp_tensors_rank(out, li) == 2);
  const int V = tfp_tensors_dims(out, li)[1];
  CHECK(tfp_tensors_dims(out, li)[0] == n);

  Top got(ids.size(), K), want(ids.size(), K);
  got.status = tfp_fill_mask_logits(
      tfp_tensors_data(out, li), V,
      tfp::testing::params(tfp_fill_mask_params{.ids = ids.data(), .n = n, .mask_id = 4, .top_k = K}),
      got.positions.data(), got.ids.data(), got.probs.data(), &got.n_masked);
  want.status = tfp_model_fill_mask(
      m,
      tfp::testing::params(tfp_fill_mask_params{
          .ids = ids.data(), .n = n, .token_type_ids = nullptr, .attention_mask = nullptr, .mask_id = 4, .top_k = K}),
      want.positions.data(), want.ids.data(), want.probs.data(), &want.n_masked);
  REQUIRE(got.status == TFP_OK);
  REQUIRE(want.status == TFP_OK);
  CHECK(got.n_masked == 2);
  CHECK(got.n_masked == want.n_masked);
  CHECK(got.positions == want.positions);
  CHECK(got.ids == want.ids);
  CHECK(got.probs == want.probs);

  // Errors: statuses with messages, outputs untouched.
  Top bad(ids.size(), K);
  CHECK(tfp_fill_mask_logits(
            tfp_tensors_data(out, li), V,
            tfp::testing::params(tfp_fill_mask_params{.ids = ids.data(), .n = n, .mask_id = -1, .top_k = K}),
            bad.positions.data(), bad.ids.data(), bad.probs.data(), &bad.n_masked) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("mask_id must be a token id") != std::string::npos);
  CHECK(tfp_fill_mask_logits(
            tfp_tensors_data(out, li), V,
            tfp::testing::params(tfp_fill_mask_params{.ids = ids.data(), .n = n, .mask_id = 4, .top_k = 0}),
            bad.positions.data(), bad.ids.data(), bad.probs.data(), &bad.n_masked) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("top_k must be at least 1") != std::string::npos);
  CHECK(tfp_fill_mask_logits(
            nullptr, V, tfp::testing::params(tfp_fill_mask_params{.ids = ids.data(), .n = n, .mask_id = 4, .top_k = K}),
            bad.positions.data(), bad.ids.data(), bad.probs.data(), &bad.n_masked) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_fill_mask_logits(
            tfp_tensors_data(out, li), V,
            tfp::testing::params(tfp_fill_mask_params{.ids = ids.data(), .n = n, .mask_id = 4, .top_k = K}), nullptr,
            bad.ids.data(), bad.probs.data(), &bad.n_masked) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(bad.positions[0] == -7);
  CHECK(bad.n_masked == 0);
  tfp_tensors_free(out);
  tfp_model_free(m);
}
