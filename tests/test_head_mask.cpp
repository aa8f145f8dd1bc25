// Head ablation/scaling (inspect/head_mask.h, tfp_model_set_head_mask) and the logit lens
// (inspect/logit_lens.h, tfp_model_logit_lens).
// Oracles:
//   * tests/fixtures/head_mask/*.json from gen_head_mask.py: plain torch in float64 with
//     Hugging Face's head_mask semantics (probs * head_mask[layer] before probs @ v) on the
//     committed GPT-2 and BERT fixtures. Logits / hidden states within 1e-5, attention
//     maps within 1e-6 (max abs; f32 engine vs f64 reference).
//   * the logit lens: its last row is the model's own next-token distribution — the same
//     functions on the same numbers, so equality is exact; rows 0 and 1 against the torch
//     lens (ln_f, tied wte^T, softmax) within 1e-6.
//   * KV-cached generation and beam decoding under a mask against the uncached forward
//     pass under the same mask, recomputed from scratch at every step (argmax exact,
//     probabilities within 1e-5: cached and uncached attention sum in different orders).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "api/tfp_inspect_api.h"
#include "inspect/head_mask.h"
#include "inspect/logit_lens.h"
#include "io/file.h"
#include "model/beam.h"
#include "model/generate.h"
#include "model/sampling.h"
#include "model/weights.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using testing::max_abs_diff;
using testing::read_json;

namespace {

tfp_model* load_checkpoint(const std::string& name) {
  return testing::open_through_api(testing::checkpoint_dir(name), name);
}

nlohmann::json golden(const std::string& name) {
  return read_json(std::string(TFP_FIXTURES_DIR) + "/head_mask/" + name + ".json");
}

// The tensor `name` of a list as a Tensor (copied).
Tensor tensor_of(const tfp_tensors* list, const std::string& name) {
  const int i = tfp_tensors_find(list, name.c_str());
  REQUIRE_MESSAGE(i >= 0, "no tensor ", name);
  Shape shape;
  for (int d = 0; d < tfp_tensors_rank(list, i); ++d) shape.push_back(tfp_tensors_dims(list, i)[d]);
  const float* p = tfp_tensors_data(list, i);
  return Tensor(shape, std::vector<float>(p, p + tfp_tensors_numel(list, i)));
}

// Applies a golden case's {"layer": [factors]} to the model's "set" blocks.
void apply_mask(tfp_model* m, const nlohmann::json& mask, const char* set) {
  REQUIRE(tfp_model_clear_head_mask(m) == TFP_OK);
  for (const auto& [layer, f] : mask.items()) {
    const std::vector<float> s = f.get<std::vector<float>>();
    INFO(tfp_last_error());
    REQUIRE(tfp_model_set_head_mask(m, set, std::stoi(layer), s.data(), static_cast<int>(s.size())) == TFP_OK);
  }
}

tfp_tensors* forward(tfp_model* m, const std::vector<int32_t>& ids, const int32_t* types = nullptr,
                     const int32_t* am = nullptr) {
  tfp_tensors* out = nullptr;
  INFO(tfp_last_error());
  REQUIRE(tfp_model_forward(m,
                            tfp::testing::params(tfp_forward_params{.ids = ids.data(),
                                                                    .n = static_cast<int>(ids.size()),
                                                                    .token_type_ids = types,
                                                                    .attention_mask = am,
                                                                    .want_attention = 1}),
                            &out) == TFP_OK);
  return out;
}

model::ModelConfig tiny_seq2seq() {
  model::ModelConfig c;
  c.architecture = model::Architecture::encoder_decoder;
  c.family = "test";
  c.d_model = 16;
  c.n_heads = 4;
  c.d_ff = 32;
  c.vocab_size = 23;
  c.max_positions = 12;
  c.n_encoder_layers = 2;
  c.n_decoder_layers = 2;
  return c;
}

}  // namespace

TEST_CASE("head_mask: GPT-2 fixture under HF head_mask semantics (logits 1e-5, later maps 1e-6)") {
  tfp_model* m = load_checkpoint("gpt2_tiny");
  const nlohmann::json g = golden("gpt2_tiny");
  const std::vector<int32_t> ids = g["input_ids"].get<std::vector<int32_t>>();
  for (const auto& c : g["cases"]) {
    CAPTURE(c["name"].get<std::string>());
    apply_mask(m, c["mask"], "dec");
    tfp_tensors* out = forward(m, ids);
    CHECK(max_abs_diff(tensor_of(out, "logits"), c["logits"]) <= 1e-5);
    for (size_t l = 0; l < c["attentions"].size(); ++l)
      CHECK(max_abs_diff(tensor_of(out, "dec." + std::to_string(l) + ".attn.probs"), c["attentions"][l]) <= 1e-6);
    tfp_tensors_free(out);
  }
  // The cases differ from each other (so the comparisons above can fail): ablating
  // head 1 of layer 0 moves the logits by far more than the tolerance.
  const auto& cases = g["cases"];
  tfp_tensors* none = (apply_mask(m, cases[0]["mask"], "dec"), forward(m, ids));
  CHECK(max_abs_diff(tensor_of(none, "logits"), cases[1]["logits"]) > 1e-2);
  // Layer 1's map changes when layer 0 is ablated; layer 0's own map does not.
  CHECK(max_abs_diff(tensor_of(none, "dec.1.attn.probs"), cases[1]["attentions"][1]) > 1e-3);
  CHECK(max_abs_diff(tensor_of(none, "dec.0.attn.probs"), cases[1]["attentions"][0]) <= 1e-6);
  tfp_tensors_free(none);
  tfp_model_free(m);
}

TEST_CASE("head_mask: BERT fixture hidden states under HF head_mask semantics (1e-5)") {
  tfp_model* m = load_checkpoint("bert_tiny");
  const nlohmann::json g = golden("bert_tiny");
  const std::vector<int32_t> ids = g["input_ids"].get<std::vector<int32_t>>();
  const std::vector<int32_t> types = g["token_type_ids"].get<std::vector<int32_t>>();
  const std::vector<int32_t> am = g["attention_mask"].get<std::vector<int32_t>>();
  for (const auto& c : g["cases"]) {
    CAPTURE(c["name"].get<std::string>());
    apply_mask(m, c["mask"], "enc");
    tfp_tensors* out = forward(m, ids, types.data(), am.data());
    CHECK(max_abs_diff(tensor_of(out, "hidden"), c["hidden"]) <= 1e-5);
    for (size_t l = 0; l < c["attentions"].size(); ++l)
      CHECK(max_abs_diff(tensor_of(out, "enc." + std::to_string(l) + ".attn.probs"), c["attentions"][l]) <= 1e-6);
    tfp_tensors_free(out);
  }
  tfp_model_free(m);
}

TEST_CASE("head_mask: the edited head_out flows on; factor 1 is no intervention") {
  model::ModelConfig cfg = tiny_seq2seq();
  const model::ModelWeights w = model::random_weights(cfg, 5, 0.3f, true);
  const std::vector<int32_t> src = {5, 6, 7, 8, 9}, tgt = {1, 2, 3};
  const model::ForwardResult plain = model::forward_encoder_decoder(cfg, w, src, tgt);

  inspect::HeadMask mask;
  mask.set("dec.1.cross", {1, 0, 1, 1});
  inspect::HeadMaskObserver hm(mask);
  nn::RecordingObserver rec({"dec.1.cross.head_out", "enc.0.attn.head_out"});
  nn::ChainObserver chain(&hm, &rec);
  const model::ForwardResult r = model::forward_encoder_decoder(cfg, w, src, tgt, {}, &chain);
  // The recorder sees the head output as it flowed on: head 1 is zero, the others not.
  const Tensor& ho = rec.get("dec.1.cross.head_out");  // (H, T, D)
  REQUIRE(ho.shape == Shape{4, 3, 4});
  for (int64_t i = 0; i < 12; ++i) CHECK(ho.data[static_cast<size_t>(12 + i)] == 0.0f);
  CHECK(std::fabs(ho.data[0]) + std::fabs(ho.data[30]) > 0.0f);
  CHECK(!rec.has("dec.0.cross.head_out"));  // nothing asked, nothing reported
  // Logits moved (the edit reached the projection) ...
  double moved = 0;
  for (size_t i = 0; i < r.logits.data.size(); ++i)
    moved = std::max(moved, static_cast<double>(std::fabs(r.logits.data[i] - plain.logits.data[i])));
  CHECK(moved > 1e-3);
  // ... and x 1 everywhere is no mask at all (nothing stored, nothing asked for).
  inspect::HeadMask ones;
  ones.set("dec.1.cross", {1, 1, 1, 1});
  CHECK(ones.empty());
  // The KV-cached decoder applies the same edit: one cached pass over tgt equals the
  // uncached pass (1e-5; the cache sums attention in another order).
  model::KVCache cache(cfg);
  const Tensor memory = model::encode_source(cfg, w, src, {}, &hm);
  const model::ForwardResult step = model::encoder_decoder_step(cfg, w, cache, memory.view(), {}, tgt, &hm);
  double cached = 0;
  for (size_t i = 0; i < r.logits.data.size(); ++i)
    cached = std::max(cached, static_cast<double>(std::fabs(step.logits.data[i] - r.logits.data[i])));
  CHECK(cached <= 1e-5);
  // Wrong head count is an error naming the block.
  inspect::HeadMask bad;
  bad.set("dec.0.attn", {0, 1});
  inspect::HeadMaskObserver hmb(bad);
  CHECK_THROWS_WITH_AS(model::forward_encoder_decoder(cfg, w, src, tgt, {}, &hmb),
                       doctest::Contains("dec.0.attn has 2 factors"), Error);
  CHECK_THROWS_AS(mask.set("dec.0.attn", {std::numeric_limits<float>::quiet_NaN()}), Error);
  CHECK_THROWS_WITH_AS(inspect::head_block_name("ffn", 0), doctest::Contains("\"enc\", \"dec\" or \"cross\""),
                       Error);
}

TEST_CASE("head_mask: generation and translation run on the masked model") {
  // Decoder-only: the C API generator made after set_head_mask picks, greedily, the
  // argmax of the uncached masked forward pass at every step; its top-5 equal that pass's.
  tfp_model* m = load_checkpoint("gpt2_tiny");
  const std::vector<float> s = {0, 1, 2, 0};
  REQUIRE(tfp_model_set_head_mask(m, "dec", 0, s.data(), 4) == TFP_OK);
  std::vector<int32_t> ids = {256, 72, 101, 108};
  tfp_generator* gen = nullptr;
  REQUIRE(tfp_generator_create(m,
                               tfp::testing::params(tfp_generator_params{.prompt = ids.data(),
                                                                         .n = 4,
                                                                         .max_tokens = 5,
                                                                         .temperature = 0.0f,
                                                                         .top_k = 0,
                                                                         .top_p = 1.0f,
                                                                         .seed = 1,
                                                                         .stop_ids = nullptr,
                                                                         .n_stop = 0,
                                                                         .top_n = 5}),
                               &gen) == TFP_OK);
  tfp_model_clear_head_mask(m);  // the generator keeps the mask it was made with
  int unmasked_differs = 0;
  for (int step = 0; step < 5; ++step) {
    // The oracle: the whole prefix, uncached, under the same mask.
    REQUIRE(tfp_model_set_head_mask(m, "dec", 0, s.data(), 4) == TFP_OK);
    tfp_tensors* out = forward(m, ids);
    REQUIRE(tfp_model_clear_head_mask(m) == TFP_OK);
    tfp_tensors* plain = forward(m, ids);
    const Tensor logits = tensor_of(out, "logits"), plain_logits = tensor_of(plain, "logits");
    const int64_t V = logits.dim(1), last = logits.dim(0) - 1;
    const std::vector<double> p = model::token_probabilities(std::span<const float>(logits.row(last), V));
    const auto top = model::top_probabilities(p, 5);
    const std::vector<double> pp =
        model::token_probabilities(std::span<const float>(plain_logits.row(last), V));
    unmasked_differs += std::fabs(pp[static_cast<size_t>(top[0].first)] - top[0].second) > 1e-3;
    int32_t id = -1;
    float prob = 0;
    int done = 0;
    REQUIRE(tfp_generator_next(gen, &id, &prob, &done) == TFP_OK);
    CHECK(id == top[0].first);
    CHECK(std::fabs(prob - top[0].second) <= 1e-5);
    int32_t gids[5];
    float gprobs[5];
    REQUIRE(tfp_generator_top(gen, gids, gprobs, 5) == 5);
    for (int k = 0; k < 5; ++k) CHECK(std::fabs(gprobs[k] - top[static_cast<size_t>(k)].second) <= 1e-5);
    ids.push_back(id);
    tfp_tensors_free(out);
    tfp_tensors_free(plain);
  }
  CHECK(unmasked_differs > 0);  // the mask mattered for these steps
  tfp_generator_free(gen);
  tfp_model_free(m);

  // Encoder-decoder: greedy decode_seq2seq under a cross-attention mask equals the argmax
  // chain of the uncached masked forward pass; its alignment is that pass's maps.
  const model::ModelConfig cfg = tiny_seq2seq();
  const model::ModelWeights w = model::random_weights(cfg, 9, 0.5f, true);
  inspect::HeadMask mask;
  mask.set("dec.1.cross", {0, 1, 0, 3});
  mask.set("enc.0.attn", {1, 0, 1, 1});
  inspect::HeadMaskObserver hm(mask);
  model::DecodeOptions opt;
  opt.start_id = 1;
  opt.eos_id = 2;
  opt.max_tokens = 6;
  opt.observer = &hm;
  const std::vector<int32_t> src = {5, 6, 7, 8, 9, 10};
  const model::Translation t = model::decode_seq2seq(cfg, w, src, opt);
  std::vector<int32_t> tgt = {1};
  for (size_t i = 0; i < t.ids.size(); ++i) {
    const model::ForwardResult r = model::forward_encoder_decoder(cfg, w, src, tgt, {}, &hm);
    const float* row = r.logits.row(r.logits.dim(0) - 1);
    const int32_t best = static_cast<int32_t>(std::max_element(row, row + cfg.vocab_size) - row);
    CHECK(t.ids[i] == best);
    tgt.push_back(best);
  }
  nn::RecordingObserver rec({"dec.1.cross.probs"});
  nn::ChainObserver chain(&hm, &rec);
  tgt.pop_back();
  model::forward_encoder_decoder(cfg, w, src, tgt, {}, &chain);
  const Tensor& want = rec.get("dec.1.cross.probs");
  REQUIRE(t.cross_probs.back().shape == want.shape);
  CHECK(t.cross_probs.back().data == want.data);
}

TEST_CASE("head_mask: C API argument errors leave the mask as it was") {
  tfp_model* m = load_checkpoint("gpt2_tiny");
  const std::vector<int32_t> ids = {256, 72, 101};
  const std::vector<float> s = {1, 0, 1, 1}, nan = {1, std::numeric_limits<float>::quiet_NaN(), 1, 1};
  REQUIRE(tfp_model_set_head_mask(m, "dec", 1, s.data(), 4) == TFP_OK);
  tfp_tensors* before = forward(m, ids);
  CHECK(tfp_model_set_head_mask(m, "enc", 0, s.data(), 4) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("valid: \"dec\"") != std::string::npos);
  CHECK(tfp_model_set_head_mask(m, "cross", 0, s.data(), 4) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_model_set_head_mask(m, "dec", 2, s.data(), 4) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("layer 2 is out of range") != std::string::npos);
  CHECK(tfp_model_set_head_mask(m, "dec", 0, s.data(), 3) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("4 heads") != std::string::npos);
  CHECK(tfp_model_set_head_mask(m, "dec", 0, nan.data(), 4) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_model_set_head_mask(m, "dec", 0, nullptr, 4) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_model_set_head_mask(m, nullptr, 0, s.data(), 4) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_model_set_head_mask(nullptr, "dec", 0, s.data(), 4) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_model_clear_head_mask(nullptr) == TFP_ERR_INVALID_ARGUMENT);
  tfp_tensors* after = forward(m, ids);
  CHECK(tensor_of(after, "logits").data == tensor_of(before, "logits").data);
  tfp_tensors_free(before);
  tfp_tensors_free(after);
  tfp_model_free(m);
}

TEST_CASE("logit_lens: GPT-2 fixture; last row = the model's distribution (exact), rows 0-1 = torch (1e-6)") {
  tfp_model* m = load_checkpoint("gpt2_tiny");
  const nlohmann::json g = golden("gpt2_tiny");
  const std::vector<int32_t> ids = g["input_ids"].get<std::vector<int32_t>>();
  const int T = static_cast<int>(ids.size()), V = 264, L = 2;
  for (const auto& c : g["cases"]) {
    if (!c.contains("lens_rows")) continue;
    CAPTURE(c["name"].get<std::string>());
    apply_mask(m, c["mask"], "dec");
    tfp_tensors* lens = nullptr;
    INFO(tfp_last_error());
    REQUIRE(tfp_model_logit_lens(m, ids.data(), T, nullptr, 0, V, &lens) == TFP_OK);
    const Tensor lid = tensor_of(lens, "ids"), lp = tensor_of(lens, "probs");
    REQUIRE(lid.shape == Shape{L + 1, T, V});
    // Back to full distributions: dist[r][t][id].
    auto dist = [&](int r, int t) {
      std::vector<double> d(static_cast<size_t>(V), -1.0);
      for (int k = 0; k < V; ++k) {
        const size_t i = (static_cast<size_t>(r) * T + t) * V + k;
        d[static_cast<size_t>(lid.data[i])] = lp.data[i];
      }
      return d;
    };
    for (size_t j = 0; j < c["lens_rows"].size(); ++j) {
      const int r = c["lens_rows"][j].get<int>();
      double worst = 0;
      for (int t = 0; t < T; ++t) {
        const std::vector<double> d = dist(r, t);
        for (int v = 0; v < V; ++v)
          worst = std::max(worst, std::fabs(d[static_cast<size_t>(v)] - c["lens_probs"][j][t][v].get<double>()));
      }
      CAPTURE(r);
      CHECK(worst <= 1e-6);
    }
    // The last row is the model's own softmax, bit for bit, in the same order.
    tfp_tensors* out = forward(m, ids);
    const Tensor logits = tensor_of(out, "logits");
    for (int t = 0; t < T; ++t) {
      const auto top = model::top_probabilities(
          model::token_probabilities(std::span<const float>(logits.row(t), static_cast<size_t>(V))), V);
      for (int k = 0; k < V; ++k) {
        const size_t i = (static_cast<size_t>(L) * T + t) * V + k;
        CHECK(lid.data[i] == static_cast<float>(top[static_cast<size_t>(k)].first));
        CHECK(lp.data[i] == top[static_cast<size_t>(k)].second);
      }
    }
    // The rows differ (so the comparisons above can fail).
    CHECK(std::fabs(dist(0, 3)[5] - dist(1, 3)[5]) + std::fabs(dist(1, 3)[7] - dist(2, 3)[7]) > 1e-6);
    tfp_tensors_free(out);
    tfp_tensors_free(lens);
  }
  // top_k clips to V and orders most probable first.
  tfp_tensors* lens = nullptr;
  REQUIRE(tfp_model_logit_lens(m, ids.data(), T, nullptr, 0, 3, &lens) == TFP_OK);
  const Tensor p3 = tensor_of(lens, "probs");
  CHECK(p3.shape == Shape{L + 1, T, 3});
  for (int64_t i = 0; i < p3.numel(); i += 3) CHECK((p3.data[i] >= p3.data[i + 1] && p3.data[i + 1] >= p3.data[i + 2]));
  tfp_tensors_free(lens);
  // Errors: top_k 0, tgt_ids on a decoder-only model, no tokens.
  CHECK(tfp_model_logit_lens(m, ids.data(), T, nullptr, 0, 0, &lens) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_model_logit_lens(m, ids.data(), T, ids.data(), 2, 5, &lens) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_model_logit_lens(m, ids.data(), 0, nullptr, 0, 5, &lens) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(lens == nullptr);
  tfp_model_free(m);

  tfp_model* bert = load_checkpoint("bert_tiny");
  CHECK(tfp_model_logit_lens(bert, ids.data(), 3, nullptr, 0, 5, &lens) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("encoder-only") != std::string::npos);
  tfp_model_free(bert);
}

TEST_CASE("logit_lens: an encoder-decoder's decoder, last row = the model's distribution (exact)") {
  const model::ModelConfig cfg = tiny_seq2seq();
  const model::ModelWeights w = model::random_weights(cfg, 11, 0.5f, true);
  const std::vector<int32_t> src = {5, 6, 7, 8}, tgt = {1, 12, 13};
  const int K = 4;
  const inspect::LogitLens lens = inspect::logit_lens(cfg, w, src, tgt, K);
  CHECK(lens.rows == std::vector<std::string>{"dec.embed.out", "dec.0.out", "dec.1.out"});
  REQUIRE(lens.ids.size() == static_cast<size_t>(3 * 3 * K));
  const model::ForwardResult r = model::forward_encoder_decoder(cfg, w, src, tgt);
  for (int t = 0; t < 3; ++t) {
    const auto top = model::top_probabilities(
        model::token_probabilities(std::span<const float>(r.logits.row(t), static_cast<size_t>(cfg.vocab_size))), K);
    for (int k = 0; k < K; ++k) {
      const size_t i = static_cast<size_t>((2 * 3 + t) * K + k);
      CHECK(lens.ids[i] == top[static_cast<size_t>(k)].first);
      CHECK(lens.probs[i] == top[static_cast<size_t>(k)].second);
    }
  }
  CHECK_THROWS_WITH_AS(inspect::logit_lens(cfg, w, src, {}, K), doctest::Contains("tgt_ids"), Error);
}

TEST_CASE("head_mask: tfp_model_head_mask_effect = the model without and with the mask (exact)") {
  tfp_model* m = load_checkpoint("gpt2_tiny");
  const std::vector<int32_t> ids = {256, 72, 101, 108, 108};
  auto last_probs = [&](tfp_model* mm) {
    tfp_tensors* out = forward(mm, ids);
    const Tensor logits = tensor_of(out, "logits");
    tfp_tensors_free(out);
    return model::token_probabilities(std::span<const float>(logits.row(logits.dim(0) - 1), static_cast<size_t>(logits.dim(1))));
  };
  const std::vector<double> before = last_probs(m);
  const std::vector<float> s = {0, 0, 1, 1};
  REQUIRE(tfp_model_set_head_mask(m, "dec", 1, s.data(), 4) == TFP_OK);
  const std::vector<double> after = last_probs(m);
  tfp_tensors* eff = nullptr;
  INFO(tfp_last_error());
  REQUIRE(tfp_model_head_mask_effect(m, ids.data(), 5, 5, 1, &eff) == TFP_OK);
  const Tensor eid = tensor_of(eff, "ids"), eb = tensor_of(eff, "before"), ea = tensor_of(eff, "after");
  REQUIRE(eid.numel() >= 5);
  REQUIRE(eid.numel() <= 10);
  const auto top_after = model::top_probabilities(after, 5);
  for (int k = 0; k < 5; ++k) CHECK(eid.data[static_cast<size_t>(k)] == static_cast<float>(top_after[static_cast<size_t>(k)].first));
  bool differs = false;
  for (int64_t i = 0; i < eid.numel(); ++i) {
    const size_t id = static_cast<size_t>(eid.data[static_cast<size_t>(i)]);
    CHECK(eb.data[static_cast<size_t>(i)] == static_cast<float>(before[id]));
    CHECK(ea.data[static_cast<size_t>(i)] == static_cast<float>(after[id]));
    differs = differs || std::fabs(eb.data[static_cast<size_t>(i)] - ea.data[static_cast<size_t>(i)]) > 1e-3;
  }
  CHECK(differs);
  tfp_tensors_free(eff);
  // The mask is still set afterwards.
  CHECK(last_probs(m) == after);
  tfp_model_free(m);

  // Encoder-only: per-token argmax without and with the mask.
  tfp_model* bert = load_checkpoint("bert_tiny");
  const std::vector<int32_t> bids = {2, 5, 6, 7, 8, 3};
  const std::vector<float> off = {0, 0, 0, 0};
  REQUIRE(tfp_model_set_head_mask(bert, "enc", 0, off.data(), 4) == TFP_OK);
  REQUIRE(tfp_model_head_mask_effect(bert, bids.data(), 6, 1, 1, &eff) == TFP_OK);
  tfp_tensors* out = forward(bert, bids);
  const Tensor logits = tensor_of(out, "logits");
  const Tensor am = tensor_of(eff, "argmax_after"), pa = tensor_of(eff, "prob_after");
  REQUIRE(am.numel() == 6);
  for (int64_t t = 0; t < 6; ++t) {
    const auto top = model::top_probabilities(
        model::token_probabilities(std::span<const float>(logits.row(t), static_cast<size_t>(logits.dim(1)))), 1);
    CHECK(am.data[static_cast<size_t>(t)] == static_cast<float>(top[0].first));
    CHECK(pa.data[static_cast<size_t>(t)] == top[0].second);
  }
  CHECK(tensor_of(eff, "argmax_before").numel() == 6);
  tfp_tensors_free(out);
  tfp_tensors_free(eff);
  tfp_model_free(bert);
}

namespace {

std::vector<int32_t> ids_of(const Tensor& t) {
  std::vector<int32_t> v;
  for (float x : t.data) v.push_back(static_cast<int32_t>(x));
  return v;
}

std::vector<int32_t> translate(tfp_model* m, const std::vector<int32_t>& src, int beam) {
  std::vector<int32_t> out(512);
  int len = 0;
  tfp_tensors* align = nullptr;
  INFO(tfp_last_error());
  REQUIRE(tfp_model_translate(m,
                              tfp::testing::params(tfp_translate_params{.src_ids = src.data(),
                                                                        .n = static_cast<int>(src.size()),
                                                                        .beam_size = beam,
                                                                        .max_tokens = 0,
                                                                        .start_id = -1,
                                                                        .eos_id = -1}),
                              out.data(), static_cast<int>(out.size()), &len, &align) == TFP_OK);
  tfp_tensors_free(align);
  out.resize(static_cast<size_t>(len));
  return out;
}

}  // namespace

TEST_CASE("head_mask: the effect's translations = tfp_model_translate with the same beam, without/with the mask") {
  // Oracle: tfp_model_translate on the same handle (exact ids): the effect must decode as
  // the page's translation does, beam included, not greedily.
  tfp_model* m = nullptr;
  {
    const std::string dir = std::string(TFP_FIXTURES_DIR) + "/../../models/numbers-transformer";
    const std::string config = io::read_text_file(dir + "/config.json");
    const std::string tok = io::read_text_file(dir + "/tokenizer.json");
    const std::vector<uint8_t> w = io::read_file(dir + "/model.safetensors");
    INFO(tfp_last_error());
    REQUIRE(tfp_model_load_buffers(config.data(), config.size(), w.data(), w.size(), tok.data(), tok.size(),
                                   "numbers-transformer", &m) == TFP_OK);
  }
  tfp_encoding* enc = nullptr;
  const std::string text = "three hundred and forty two";
  REQUIRE(tfp_model_tokenize(m, text.data(), text.size(), 1, &enc) == TFP_OK);
  const int32_t* ep = tfp_encoding_ids(enc);
  const std::vector<int32_t> src(ep, ep + tfp_encoding_count(enc));
  tfp_encoding_free(enc);
  // Cross-attention of layer 0 off, of layer 1 halved: the source is seen less.
  const std::vector<float> off = {0, 0, 0, 0}, half = {0.5f, 0.5f, 0.5f, 0.5f};
  for (int beam : {1, 4}) {
    CAPTURE(beam);
    REQUIRE(tfp_model_clear_head_mask(m) == TFP_OK);
    const std::vector<int32_t> plain = translate(m, src, beam);
    REQUIRE(tfp_model_set_head_mask(m, "cross", 0, off.data(), 4) == TFP_OK);
    REQUIRE(tfp_model_set_head_mask(m, "cross", 1, half.data(), 4) == TFP_OK);
    const std::vector<int32_t> masked = translate(m, src, beam);
    CHECK(masked != plain);
    tfp_tensors* eff = nullptr;
    INFO(tfp_last_error());
    REQUIRE(tfp_model_head_mask_effect(m, src.data(), static_cast<int>(src.size()), 8, beam, &eff) == TFP_OK);
    CHECK(ids_of(tensor_of(eff, "before")) == plain);
    CHECK(ids_of(tensor_of(eff, "after")) == masked);
    tfp_tensors_free(eff);
    CHECK(translate(m, src, beam) == masked);  // the mask stays
  }
  tfp_tensors* eff = nullptr;
  CHECK(tfp_model_head_mask_effect(m, src.data(), static_cast<int>(src.size()), 8, 0, &eff) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("beam_size must be at least 1") != std::string::npos);
  CHECK(eff == nullptr);
  tfp_model_free(m);
}

TEST_CASE("head_mask: a masked LM's effect = tfp_model_fill_mask without/with the mask at each [MASK]") {
  // Oracle: tfp_model_fill_mask on the same handle (it runs under the handle's mask):
  // positions and ids exact, probabilities exact (the same computation).
  tfp_model* m = load_checkpoint("bert_mlm_tiny");
  const std::vector<int32_t> ids = {2, 5, 4, 7, 8, 5, 4, 19, 3};  // [CLS] the [MASK] sat on the [MASK] . [SEP]
  const int n = static_cast<int>(ids.size()), K = 5;
  struct Fills { std::vector<int32_t> pos, ids; std::vector<float> probs; };
  auto fill = [&]() {
    Fills f{std::vector<int32_t>(ids.size()), std::vector<int32_t>(ids.size() * K), std::vector<float>(ids.size() * K), };
    int count = 0;
    INFO(tfp_last_error());
    REQUIRE(tfp_model_fill_mask(m,
                                tfp::testing::params(tfp_fill_mask_params{.ids = ids.data(),
                                                                          .n = n,
                                                                          .token_type_ids = nullptr,
                                                                          .attention_mask = nullptr,
                                                                          .mask_id = -1,
                                                                          .top_k = K}),
                                f.pos.data(), f.ids.data(), f.probs.data(), &count) == TFP_OK);
    f.pos.resize(static_cast<size_t>(count));
    f.ids.resize(static_cast<size_t>(count * K));
    f.probs.resize(static_cast<size_t>(count * K));
    return f;
  };
  const Fills plain = fill();
  const std::vector<float> off = {0, 0, 1, 0};
  REQUIRE(tfp_model_set_head_mask(m, "enc", 0, off.data(), 4) == TFP_OK);
  REQUIRE(tfp_model_set_head_mask(m, "enc", 1, off.data(), 4) == TFP_OK);
  const Fills masked = fill();
  REQUIRE(plain.pos == std::vector<int32_t>{2, 6});
  CHECK(masked.probs != plain.probs);
  tfp_tensors* eff = nullptr;
  INFO(tfp_last_error());
  REQUIRE(tfp_model_head_mask_effect(m, ids.data(), n, K, 1, &eff) == TFP_OK);
  CHECK(tfp_tensors_find(eff, "argmax_before") < 0);  // the masks' fillers, not every position
  CHECK(ids_of(tensor_of(eff, "mask_positions")) == plain.pos);
  const Tensor ib = tensor_of(eff, "fill_ids_before"), ia = tensor_of(eff, "fill_ids_after");
  CHECK(ib.shape == Shape{2, K});
  CHECK(ids_of(ib) == plain.ids);
  CHECK(ids_of(ia) == masked.ids);
  CHECK(tensor_of(eff, "fill_probs_before").data == plain.probs);
  CHECK(tensor_of(eff, "fill_probs_after").data == masked.probs);
  tfp_tensors_free(eff);
  // No [MASK] in the input: per-position argmax as before.
  const std::vector<int32_t> plain_ids = {2, 5, 6, 7, 8, 5, 9, 19, 3};
  REQUIRE(tfp_model_head_mask_effect(m, plain_ids.data(), n, K, 1, &eff) == TFP_OK);
  CHECK(tfp_tensors_find(eff, "fill_ids_before") < 0);
  CHECK(tensor_of(eff, "argmax_after").numel() == n);
  tfp_tensors_free(eff);
  tfp_model_free(m);
}
