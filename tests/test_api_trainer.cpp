// The trainer through the flat C API (tfp_trainer_*), as the training page's worker uses it.
//
// Oracles: the C++ Trainer itself, built from the same options the CLI parses (the API
// must add nothing: losses bit-identical, same build); the definition of an attention row
// (sums to 1 within 1e-5, causal rows exactly 0 above the diagonal); the model loader
// (exported files load and run); the error contract (status + a message naming the cause).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "cli/train_flags.h"
#include "train/trainer.h"
#include "test_api_params.h"

namespace {

tfp_trainer* make(const char* task, const std::string& options, uint32_t seed) {
  tfp_trainer* t = nullptr;
  const int status = tfp_trainer_create(task, options.data(), options.size(), seed, &t);
  INFO(tfp_last_error());
  REQUIRE(status == TFP_OK);
  REQUIRE(t != nullptr);
  return t;
}

const std::string kSmall = R"({"steps": 40, "batch": 8, "d_model": 32, "heads": 2, "layers": 1, "d_ff": 64, "size": 5})";

}  // namespace

TEST_CASE("api trainer: losses equal the C++ Trainer built from the same CLI options") {
  tfp_trainer* t = make("copy", kSmall, 11);
  std::vector<double> got(12);
  REQUIRE(tfp_trainer_step(t, 5, got.data()) == TFP_OK);
  REQUIRE(tfp_trainer_step(t, 7, got.data() + 5) == TFP_OK);

  const auto opt = tfp::cli::parse_train_args({"copy", "--steps", "40", "--batch", "8", "--d-model", "32",
                                                 "--heads", "2", "--layers", "1", "--d-ff", "64", "--size",
                                                 "5", "--seed", "11"});
  tfp::train::Trainer ref(opt.trainer);
  for (int i = 0; i < 12; ++i) CHECK(got[i] == ref.step().loss);  // same build: bit-identical
  CHECK(got[0] > got[11]);

  double seq = -1, tok = -1, loss = -1;
  REQUIRE(tfp_trainer_evaluate(t, &seq, &tok, &loss) == TFP_OK);
  const tfp::train::EvalStats e = ref.evaluate();
  CHECK(seq == e.sequence_accuracy);
  CHECK(tok == e.token_accuracy);
  CHECK(loss == e.loss);
  REQUIRE(tfp_trainer_evaluate(t, nullptr, nullptr, nullptr) == TFP_OK);

  const auto info = nlohmann::json::parse(tfp_trainer_info_json(t));
  CHECK(info["task"] == "copy");
  CHECK(info["steps_done"] == 12);
  CHECK(info["n_layers"] == 1);
  CHECK(info["parameters"] == ref.model().params.num_elements());
  CHECK(info["tokens_per_step"] == 8 * (5 + 1 + 5));  // B · (prompt + '>' + answer)
  tfp_trainer_free(t);
  tfp_trainer_free(nullptr);
}

TEST_CASE("api trainer: attention maps cut to the example's tokens") {
  SUBCASE("decoder-only") {
    tfp_trainer* t = make("reverse", kSmall, 3);
    REQUIRE(tfp_trainer_step(t, 3, nullptr) == TFP_OK);
    tfp_tensors* list = nullptr;
    REQUIRE(tfp_trainer_attention(t, "314", &list) == TFP_OK);
    CHECK(std::string(tfp_trainer_attention_tokens(t, 0)) == "314>413");  // input drops the end mark
    CHECK(std::string(tfp_trainer_attention_tokens(t, 1)).empty());
    REQUIRE(tfp_tensors_count(list) == 1);
    const int i = tfp_tensors_find(list, "dec.0.attn.probs");
    REQUIRE(i >= 0);
    const int32_t* d = tfp_tensors_dims(list, i);
    REQUIRE(tfp_tensors_rank(list, i) == 3);
    CHECK((d[0] == 2 && d[1] == 7 && d[2] == 7));
    const float* p = tfp_tensors_data(list, i);
    for (int r = 0; r < 2 * 7; ++r) {
      double sum = 0;
      for (int j = 0; j < 7; ++j) {
        sum += p[r * 7 + j];
        if (j > r % 7) CHECK(p[r * 7 + j] == 0.0f);  // causal: no look-ahead
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
    tfp_tensors_free(list);
    tfp_trainer_free(t);
  }
  SUBCASE("encoder-decoder") {
    tfp_trainer* t = make("copy", R"({"arch": "encdec", "layers": 2, "d_model": 16, "heads": 2, "size": 5})", 3);
    tfp_tensors* list = nullptr;
    REQUIRE(tfp_trainer_attention(t, "31", &list) == TFP_OK);
    CHECK(std::string(tfp_trainer_attention_tokens(t, 0)) == ">31");
    CHECK(std::string(tfp_trainer_attention_tokens(t, 1)) == "31");
    CHECK(tfp_tensors_count(list) == 6);  // 2 encoder self + 2 × (decoder self, cross)
    const int c = tfp_tensors_find(list, "dec.1.cross.probs");
    REQUIRE(c >= 0);
    const int32_t* d = tfp_tensors_dims(list, c);
    CHECK((d[0] == 2 && d[1] == 3 && d[2] == 2));
    CHECK(tfp_tensors_find(list, "enc.1.attn.probs") >= 0);
    tfp_tensors_free(list);
    tfp_trainer_free(t);
  }
}

TEST_CASE("api trainer: export loads as a model and runs") {
  tfp_trainer* t = make("copy", kSmall, 5);
  REQUIRE(tfp_trainer_step(t, 2, nullptr) == TFP_OK);
  const char *config = nullptr, *tok = nullptr;
  const uint8_t* weights = nullptr;
  size_t nc = 0, nw = 0, nt = 0;
  REQUIRE(tfp_trainer_export(t, &config, &nc, &weights, &nw, &tok, &nt) == TFP_OK);
  CHECK(nc > 0);
  CHECK(nw > 0);
  CHECK(nt > 0);
  tfp_model* m = nullptr;
  const int status = tfp_model_load_buffers(config, nc, weights, nw, tok, nt, "trained", &m);
  INFO(tfp_last_error());
  REQUIRE(status == TFP_OK);
  const int32_t ids[] = {5, 6, 7, 2};  // "012>"
  tfp_tensors* out = nullptr;
  REQUIRE(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids, .n = 4}), &out) == TFP_OK);
  const int li = tfp_tensors_find(out, "logits");
  REQUIRE(li >= 0);
  CHECK(tfp_tensors_dims(out, li)[1] == 15);
  tfp_tensors_free(out);
  tfp_model_free(m);
  tfp_trainer_free(t);
}

TEST_CASE("api trainer: errors are a status and a message") {
  tfp_trainer* t = reinterpret_cast<tfp_trainer*>(1);
  auto create = [&](const char* task, const std::string& options) {
    t = reinterpret_cast<tfp_trainer*>(1);
    return tfp_trainer_create(task, options.data(), options.size(), 1, &t);
  };
  auto last = [] { return std::string(tfp_last_error()); };

  CHECK(create("mul", "{}") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(t == nullptr);  // out is cleared on failure
  CHECK(last() == "tfp_trainer_create: task: unknown task \"mul\" (choose copy, reverse, sort, add, numbers, dates-iso or induction)");
  CHECK(create("copy", "{\"steps\": ") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_create: options are not valid JSON");
  CHECK(create("copy", "[1]") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_create: options must be a JSON object, got array");
  CHECK(create("copy", R"({"stepz": 3})") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last().find("unknown option \"stepz\" (known: steps, batch,") != std::string::npos);
  CHECK(create("copy", R"({"steps": "many"})") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_create: option \"steps\" must be a number, got \"many\"");
  CHECK(create("copy", R"({"arch": "rnn"})") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_create: option \"arch\" is decoder, encdec or gru, got \"rnn\"");
  CHECK(create("copy", R"({"batch": 0})") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_create: option \"batch\" must be positive, got 0");
  CHECK(create("copy", R"({"steps": 2.5})") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_create: option \"steps\" must be a whole number, got 2.5");
  CHECK(create("copy", R"({"post_ln": 1})") == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_create: option \"post_ln\" must be true or false, got 1");
  CHECK(tfp_trainer_create(nullptr, nullptr, 0, 1, &t) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_trainer_create("copy", nullptr, 0, 1, nullptr) == TFP_ERR_INVALID_ARGUMENT);

  CHECK(tfp_trainer_step(nullptr, 1, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_step: trainer is NULL");
  tfp_trainer* ok = make("copy", kSmall, 1);
  CHECK(tfp_trainer_step(ok, 0, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_step: n_steps must be positive, got 0");
  tfp_tensors* list = reinterpret_cast<tfp_tensors*>(1);
  CHECK(tfp_trainer_attention(ok, "123456", &list) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(list == nullptr);
  CHECK(last() == "tfp_trainer_attention: prompt \"123456\" has 6 characters; this task takes 1 to 5");
  CHECK(tfp_trainer_attention(ok, "1_2", &list) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last() == "tfp_trainer_attention: prompt \"1_2\" may hold only digits (and '+' for add)");
  CHECK(tfp_trainer_info_json(nullptr) == nullptr);
  tfp_trainer_free(ok);
}
