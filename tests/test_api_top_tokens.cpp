// tfp_top_tokens_logits: the next token's candidates from the last row of a forward pass
// the caller already ran (the playground's next-token bars: one pass, not two).
// Oracle: a generator's first step (tfp_generator_top) on the same prompt, which runs the
// prompt through the KV-cache path itself: the same ids, probabilities to 1e-6 (the two
// passes may sum in another order); and a softmax in double over a hand-made row.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;

TEST_CASE("api top_tokens_logits: a forward pass's last row gives a generator's first report") {
  tfp_model* m = testing::open_through_api(testing::checkpoint_dir("gpt2_tiny"), "gpt2_tiny");
  for (const std::vector<int32_t>& prompt : {std::vector<int32_t>{5}, std::vector<int32_t>{5, 17, 22, 9, 3, 7, 11}}) {
    CAPTURE(prompt.size());
    const int n = static_cast<int>(prompt.size());
    tfp_tensors* out = nullptr;
    REQUIRE(tfp_model_forward(m, testing::params(tfp_forward_params{.ids = prompt.data(), .n = n, .logits_last = 1}),
                              &out) == TFP_OK);
    const int li = tfp_tensors_find(out, "logits");
    REQUIRE(li >= 0);
    const int V = tfp_tensors_dims(out, li)[1];
    constexpr int kTop = 10;
    std::vector<int32_t> ids(kTop, -7);
    std::vector<float> probs(kTop, -7.0f);
    int count = -1;
    REQUIRE(tfp_top_tokens_logits(tfp_tensors_data(out, li), V, kTop, ids.data(), probs.data(), &count) == TFP_OK);
    tfp_tensors_free(out);
    REQUIRE(count == kTop);

    tfp_generator* g = nullptr;
    REQUIRE(tfp_generator_create(m, testing::params(tfp_generator_params{.prompt = prompt.data(), .n = n, .max_tokens = 1,
                                                                         .temperature = 0.0f, .top_k = 0, .top_p = 1.0f,
                                                                         .seed = 0, .stop_ids = nullptr, .n_stop = 0,
                                                                         .top_n = kTop}),
                                 &g) == TFP_OK);
    int32_t id = -1;
    float p = 0;
    int done = 1;
    REQUIRE(tfp_generator_next(g, &id, &p, &done) == TFP_OK);
    REQUIRE(done == 0);
    std::vector<int32_t> want_ids(kTop);
    std::vector<float> want_probs(kTop);
    REQUIRE(tfp_generator_top(g, want_ids.data(), want_probs.data(), kTop) == kTop);
    tfp_generator_free(g);
    CHECK(ids == want_ids);
    for (int i = 0; i < kTop; ++i) CHECK(std::fabs(probs[i] - want_probs[i]) <= 1e-6f);
    CHECK(ids[0] == id);  // greedy: the first candidate is the token chosen
  }
  tfp_model_free(m);
}

TEST_CASE("api top_tokens_logits: softmax order with ties, fewer tokens than asked, bad input") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> row = {1.0f, 3.0f, -inf, 3.0f, 0.5f};  // ids 1 and 3 tie: the lower first
  double z = 0;
  for (const float x : row) z += std::exp(static_cast<double>(x));
  std::vector<int32_t> ids(8, -7);
  std::vector<float> probs(8, -7.0f);
  int count = -1;
  REQUIRE(tfp_top_tokens_logits(row.data(), 5, 8, ids.data(), probs.data(), &count) == TFP_OK);
  REQUIRE(count == 5);  // min(top_n, V)
  CHECK(std::vector<int32_t>(ids.begin(), ids.begin() + 5) == std::vector<int32_t>{1, 3, 0, 4, 2});
  const int32_t order[] = {1, 3, 0, 4};
  for (int i = 0; i < 4; ++i) CHECK(probs[i] == doctest::Approx(std::exp(static_cast<double>(row[order[i]])) / z).epsilon(1e-6));
  CHECK(probs[4] == 0.0f);  // the banned token
  CHECK(ids[5] == -7);      // nothing written past count

  CHECK(tfp_top_tokens_logits(row.data(), 5, 0, ids.data(), probs.data(), &count) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("top_n must be in [1, 64]") != std::string::npos);
  CHECK(count == 0);
  CHECK(tfp_top_tokens_logits(row.data(), 5, 65, ids.data(), probs.data(), &count) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_top_tokens_logits(row.data(), 0, 3, ids.data(), probs.data(), &count) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_top_tokens_logits(nullptr, 5, 3, ids.data(), probs.data(), &count) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_top_tokens_logits(row.data(), 5, 3, ids.data(), probs.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  const std::vector<float> nan_row = {0.0f, std::numeric_limits<float>::quiet_NaN(), 1.0f};
  CHECK(tfp_top_tokens_logits(nan_row.data(), 3, 2, ids.data(), probs.data(), &count) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("NaN") != std::string::npos);
}
