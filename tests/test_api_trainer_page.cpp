// What the training page adds to the trainer's C API: per-step statistics, changing the
// learning rate between steps, greedy answers of the current model, and the warm-up and
// clipping options.
//
// Oracles: the C++ Trainer built from the same CLI options (same build: bit-identical);
// the schedule's formula (train/lr_schedule.h), derived by hand below; a run created
// with the new learning rate (setting it before the first step must change nothing else);
// the task's own solver for the answers of a trained model.
#include <doctest/doctest.h>

#include <algorithm>
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

std::vector<double> stats_of(tfp_trainer* t, int n) {
  std::vector<double> s(4 * static_cast<size_t>(n));
  REQUIRE(tfp_trainer_step_stats(t, n, s.data()) == TFP_OK);
  return s;
}

const std::string kSmall = R"({"steps": 40, "batch": 8, "d_model": 32, "heads": 2, "layers": 1, "d_ff": 64, "size": 5)";

}  // namespace

TEST_CASE("api trainer page: step statistics equal the C++ Trainer's") {
  tfp_trainer* t = make("copy", kSmall + "}", 11);
  const std::vector<double> s = stats_of(t, 6);
  const auto opt = tfp::cli::parse_train_args({"copy", "--steps", "40", "--batch", "8", "--d-model", "32",
                                                 "--heads", "2", "--layers", "1", "--d-ff", "64", "--size",
                                                 "5", "--seed", "11"});
  tfp::train::Trainer ref(opt.trainer);
  for (int i = 0; i < 6; ++i) {
    const tfp::train::StepStats r = ref.step();
    CHECK(s[4 * i + 0] == r.loss);
    CHECK(s[4 * i + 1] == r.token_accuracy);
    CHECK(s[4 * i + 2] == r.lr);
    CHECK(s[4 * i + 3] == r.grad_norm);
  }
  // The schedule by hand: 40 steps, so warm-up = min(50, 40/10 + 1) = 5 and the peak is
  // reached at step index 4: lr(i) = 3e-3 · (i + 1) / 5 for i < 5.
  CHECK(s[4 * 0 + 2] == doctest::Approx(3e-3 * 1 / 5));
  CHECK(s[4 * 4 + 2] == doctest::Approx(3e-3));
  // step 6 (index 5) is the first of the cosine decay: progress 0, so still the peak.
  CHECK(s[4 * 5 + 2] == doctest::Approx(3e-3));
  tfp_trainer_free(t);
}

TEST_CASE("api trainer page: the learning rate changes between steps") {
  SUBCASE("set before the first step = created with it") {
    tfp_trainer* a = make("copy", kSmall + R"(, "lr": 0.001})", 4);
    tfp_trainer* b = make("copy", kSmall + "}", 4);  // lr 3e-3 by default
    REQUIRE(tfp_trainer_set_lr(b, 0.001) == TFP_OK);
    const std::vector<double> sa = stats_of(a, 8), sb = stats_of(b, 8);
    CHECK(sa == sb);  // bit-identical: losses, accuracies, rates and norms
    const auto info = nlohmann::json::parse(tfp_trainer_info_json(b));
    CHECK(info["lr"].get<double>() == 0.001);
    tfp_trainer_free(a);
    tfp_trainer_free(b);
  }
  SUBCASE("set mid-run: the same steps before, the new peak after, the schedule's position kept") {
    tfp_trainer* a = make("copy", kSmall + "}", 4);
    tfp_trainer* b = make("copy", kSmall + "}", 4);
    const std::vector<double> a1 = stats_of(a, 10), b1 = stats_of(b, 10);
    CHECK(a1 == b1);
    REQUIRE(tfp_trainer_set_lr(b, 3e-4) == TFP_OK);
    const std::vector<double> a2 = stats_of(a, 2), b2 = stats_of(b, 2);
    // Step index 10 of 40 with warm-up 5: progress (10 − 5)/(40 − 5) = 1/7, so the rate is
    // floor + (peak − floor)·½(1 + cos(π/7)), with peak/floor 3e-3/3e-4 before, 3e-4/3e-5 after:
    // the new rate is exactly a tenth of the old one at the same position.
    const double pi = 3.14159265358979323846, f = 0.5 * (1 + std::cos(pi / 7));
    CHECK(a2[2] == doctest::Approx(3e-4 + (3e-3 - 3e-4) * f));
    CHECK(b2[2] == doctest::Approx(3e-5 + (3e-4 - 3e-5) * f));
    CHECK(b2[2] == doctest::Approx(a2[2] / 10));
    // The batch of step 11 is the same (the data stream does not depend on the rate), the
    // weights too, so its loss is equal; from step 12 on the smaller update shows.
    CHECK(a2[0] == b2[0]);
    CHECK(a2[4] != b2[4]);
    tfp_trainer_free(a);
    tfp_trainer_free(b);
  }
}

TEST_CASE("api trainer page: greedy answers, warm-up and clipping options") {
  // The configuration tests/browser/train_page.test.mjs trains in the page: the copy task
  // reaches ~0.99 held-out sequence accuracy in 300 steps (tests/fixtures/trainer/).
  tfp_trainer* t = make("copy", R"({"steps": 300, "batch": 16, "d_model": 32, "heads": 2, "layers": 2, "d_ff": 64, "size": 5})", 7);
  const char* answer = nullptr;
  REQUIRE(tfp_trainer_generate(t, "314", &answer) == TFP_OK);
  REQUIRE(answer != nullptr);
  CHECK(std::string(answer).size() <= 5);  // untrained: anything, up to the longest answer
  for (int i = 0; i < 30; ++i) REQUIRE(tfp_trainer_step(t, 10, nullptr) == TFP_OK);
  int right = 0;
  for (const char* p : {"31415", "27", "90210", "5", "4444"}) {
    REQUIRE(tfp_trainer_generate(t, p, &answer) == TFP_OK);
    right += std::string(answer) == p;  // copy: the answer is the prompt
  }
  CHECK(right >= 4);

  CHECK(tfp_trainer_generate(t, "1234567", &answer) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(answer == nullptr);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_trainer_generate: prompt \"1234567\" has 7 characters; this task takes 1 to 5");
  CHECK(tfp_trainer_generate(t, "12a", &answer) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_trainer_generate(nullptr, "1", &answer) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_trainer_set_lr(t, 0) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_trainer_set_lr: the learning rate must be positive, got 0");
  CHECK(tfp_trainer_set_lr(t, std::nan("")) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_trainer_step_stats(t, 1, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  tfp_trainer_free(t);

  // warm-up and clipping reach the Trainer: warm-up 20 → lr(0) = peak/20; clip 0 = off.
  tfp_trainer* w = make("copy", kSmall + R"(, "warmup": 20, "clip": 0})", 2);
  const std::vector<double> s = stats_of(w, 1);
  CHECK(s[2] == doctest::Approx(3e-3 / 20));
  const auto info = nlohmann::json::parse(tfp_trainer_info_json(w));
  CHECK(info["warmup"] == 20);
  CHECK(info["clip"].get<double>() == 0.0);
  tfp_trainer_free(w);

  auto refused = [](const std::string& options) {
    tfp_trainer* x = nullptr;
    CHECK(tfp_trainer_create("copy", options.data(), options.size(), 1, &x) == TFP_ERR_INVALID_ARGUMENT);
    return std::string(tfp_last_error());
  };
  CHECK(refused(R"({"lr": -1})") == "tfp_trainer_create: option \"lr\" must be positive, got -1");
  CHECK(refused(R"({"clip": -2})") == "tfp_trainer_create: option \"clip\" must be 0 (off) or more, got -2");
  CHECK(refused(R"({"warmup": -1})") == "tfp_trainer_create: option \"warmup\" must be 0 or more, got -1");
  CHECK(refused(R"({"label_smoothing": 1})") ==
        "tfp_trainer_create: option \"label_smoothing\" must be in [0, 1), got 1");
  CHECK(refused(R"({"heads": 0})") == "tfp_trainer_create: option \"heads\" must be positive, got 0");
}

TEST_CASE("api trainer page: sinusoidal, RoPE, ALiBi and no positions train, export and run as trained") {
  // Oracle: the inference engine on the exported files. Its decoder maps over the first
  // tokens "314>" must equal the trainer's maps over "314>314" cut to those rows and
  // columns (causal: rows 0..3 see only keys 0..3), to float rounding (1e-5): the same
  // position table (model::sinusoidal_positions) or none, the same weights.
  for (const char* positions : {"sinusoidal", "none", "rope", "alibi"}) {
    CAPTURE(positions);
    tfp_trainer* t = make("copy", kSmall + R"(, "positions": ")" + positions + "\"}", 9);
    const auto info = nlohmann::json::parse(tfp_trainer_info_json(t));
    CHECK(info["positions"] == positions);
    // No position table among the parameters: learned has P·C = 11·32 more (context
    // 5 + 1 + 5 = 11 for copy of 5 digits, decoder-only).
    tfp_trainer* learned = make("copy", kSmall + "}", 9);
    CHECK(nlohmann::json::parse(tfp_trainer_info_json(learned))["parameters"].get<int64_t>() -
              info["parameters"].get<int64_t>() == 11 * 32);
    tfp_trainer_free(learned);
    const std::vector<double> s = stats_of(t, 20);
    CHECK(s[4 * 19] < s[0]);  // it learns

    tfp_tensors* maps = nullptr;
    REQUIRE(tfp_trainer_attention(t, "314", &maps) == TFP_OK);
    const char *config = nullptr, *tok = nullptr;
    const uint8_t* weights = nullptr;
    size_t nc = 0, nw = 0, nt = 0;
    REQUIRE(tfp_trainer_export(t, &config, &nc, &weights, &nw, &tok, &nt) == TFP_OK);
    CHECK(std::string(config, nc).find(std::string("\"positional\": \"") + positions + "\"") != std::string::npos);
    tfp_model* m = nullptr;
    INFO(tfp_last_error());
    REQUIRE(tfp_model_load_buffers(config, nc, weights, nw, tok, nt, "trained", &m) == TFP_OK);
    const int32_t ids[] = {8, 6, 9, 2};  // "314>": '0' is id 5
    tfp_tensors* out = nullptr;
    REQUIRE(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids, .n = 4, .want_attention = 1}),
                              &out) == TFP_OK);
    for (const char* name : {"dec.0.attn.probs"}) {
      const float* a = tfp_tensors_data(out, tfp_tensors_find(out, name));
      const int k = tfp_tensors_find(maps, name);
      REQUIRE(k >= 0);
      const float* b = tfp_tensors_data(maps, k);
      const int T = tfp_tensors_dims(maps, k)[1];  // 7
      double worst = 0;
      for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j)
            worst = std::max(worst, std::abs(double(a[(h * 4 + i) * 4 + j]) - b[(h * T + i) * T + j]));
      CHECK(worst < 1e-5);
    }
    tfp_tensors_free(out);
    tfp_model_free(m);
    tfp_tensors_free(maps);
    tfp_trainer_free(t);
  }
  tfp_trainer* x = nullptr;
  const std::string relative = R"({"positions": "relative"})";
  CHECK(tfp_trainer_create("copy", relative.data(), relative.size(), 1, &x) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_trainer_create: option \"positions\" is learned, sinusoidal, rope, alibi or none, got \"relative\"");
}

TEST_CASE("api trainer page: the GRU with additive attention trains, exports and runs as trained") {
  // Oracle: the inference engine (model/gru_seq2seq.h) on the exported files. Its
  // "dec.0.cross.probs" for the source "314" and decoder input ">314" must equal the
  // trainer's additive attention for the prompt "314" (teacher forcing on the answer "314"),
  // to float rounding (1e-5).
  tfp_trainer* t = make("copy", R"({"arch": "gru", "d_model": 16, "batch": 8, "steps": 60, "size": 5})", 3);
  const auto info = nlohmann::json::parse(tfp_trainer_info_json(t));
  CHECK(info["architecture"] == "gru_attention");
  // V·E + 2 directions × (3H·E + 3H·H + 6H) + bridge D·H + D + attention A·D + A + A·Ce + A
  // + decoder 3D·(E + Ce) + 3D·D + 6D + out V·(D + Ce) + V, with V 15, E = H = A = 16,
  // Ce = 32, D = 32.
  const int64_t V = 15, E = 16, H = 16, A = 16, Ce = 32, D = 32;
  const int64_t expected = V * E + 2 * (3 * H * E + 3 * H * H + 6 * H) + D * H + D + A * D + A + A * Ce + A +
                           3 * D * (E + Ce) + 3 * D * D + 6 * D + V * (D + Ce) + V;
  CHECK(info["parameters"].get<int64_t>() == expected);
  const std::vector<double> s = stats_of(t, 60);
  CHECK(s[4 * 59] < 0.8 * s[0]);  // it learns

  tfp_tensors* maps = nullptr;
  REQUIRE(tfp_trainer_attention(t, "314", &maps) == TFP_OK);
  CHECK(tfp_tensors_count(maps) == 1);
  const int k = tfp_tensors_find(maps, "dec.0.cross.probs");
  REQUIRE(k >= 0);
  const int32_t* d = tfp_tensors_dims(maps, k);
  CHECK((d[0] == 1 && d[1] == 4 && d[2] == 3));  // one map, ">314" × "314"
  CHECK(std::string(tfp_trainer_attention_tokens(t, 0)) == ">314");
  CHECK(std::string(tfp_trainer_attention_tokens(t, 1)) == "314");

  const char *config = nullptr, *tok = nullptr;
  const uint8_t* weights = nullptr;
  size_t nc = 0, nw = 0, nt = 0;
  REQUIRE(tfp_trainer_export(t, &config, &nc, &weights, &nw, &tok, &nt) == TFP_OK);
  CHECK(std::string(config, nc).find("tfp_gru_seq2seq") != std::string::npos);
  tfp_model* m = nullptr;
  INFO(tfp_last_error());
  REQUIRE(tfp_model_load_buffers(config, nc, weights, nw, tok, nt, "trained-gru", &m) == TFP_OK);
  const int32_t src[] = {8, 6, 9}, tgt[] = {2, 8, 6, 9};  // "314", ">314"
  tfp_tensors* out = nullptr;
  REQUIRE(tfp_model_forward(m,
                            tfp::testing::params(tfp_forward_params{
                                .ids = src, .n = 3, .tgt_ids = tgt, .n_tgt = 4, .want_attention = 1}),
                            &out) == TFP_OK);
  const int j = tfp_tensors_find(out, "dec.0.cross.probs");
  REQUIRE(j >= 0);
  REQUIRE(tfp_tensors_numel(out, j) == 12);
  const float* a = tfp_tensors_data(out, j);
  const float* b = tfp_tensors_data(maps, k);
  double worst = 0;
  for (int i = 0; i < 12; ++i) worst = std::max(worst, std::abs(double(a[i]) - b[i]));
  CHECK(worst < 1e-5);
  const char* answer = nullptr;
  REQUIRE(tfp_trainer_generate(t, "314", &answer) == TFP_OK);
  CHECK(std::string(answer).size() <= 5);
  tfp_tensors_free(out);
  tfp_model_free(m);
  tfp_tensors_free(maps);
  tfp_trainer_free(t);

  tfp_trainer* x = nullptr;
  const std::string bad = R"({"arch": "rnn"})";
  CHECK(tfp_trainer_create("copy", bad.data(), bad.size(), 1, &x) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_trainer_create: option \"arch\" is decoder, encdec or gru, got \"rnn\"");
}
