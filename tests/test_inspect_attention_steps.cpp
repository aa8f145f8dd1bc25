// The query–key drill-down (inspect/attention_steps.h, tfp_model_attention_steps).
// Oracles and tolerances:
//  * the engine's own forward pass: the replayed softmax row must equal row `query` of
//    head `head` of "<block>.probs" (max abs 1e-6: double vs float re-derivation of the
//    same scores), and "out" the per-head output before the out-projection that the
//    forward pass reported as "<block>.head_out" (max abs 1e-5: a sum of Tk float
//    products in a different order);
//  * definitions: scaled = scores / sqrt(D) and out = sum_j weighted_v_j (1e-6 relative to
//    the values' size), masked keys get probability exactly 0 and are flagged in "mask";
//  * an independent torch computation (tests/fixtures/gen_attention_steps.py, float64:
//    plain-torch GPT-2 and BERT, the real torch.nn.Transformer for cross-attention) of q,
//    k, v, the scores, the mask, the softmax and the head output (max abs 1e-5).
// Fixtures: GPT-2 (causal), BERT (padding mask), nn.Transformer (additive float causal
// mask, BOOL key padding on the source; encoder, decoder and cross-attention), the shipped
// numbers-transformer through the C API, and a KV-cached decoder step.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "api/tfp_inspect_api.h"
#include "inspect/attention_steps.h"
#include "nn/observer.h"
#include "io/file.h"
#include "model/kv_cache.h"
#include "model/model.h"
#include "model/torch_inputs.h"
#include "nn/positional_alibi.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using tfp::testing::checkpoint_dir;
using tfp::testing::read_json;

namespace {

std::string repo_path(const std::string& rel) { return std::string(TFP_FIXTURES_DIR) + "/../../" + rel; }

tfp_model* load_dir(const std::string& dir) { return testing::open_through_api(dir, dir); }

struct List {
  tfp_tensors* list = nullptr;
  ~List() { tfp_tensors_free(list); }
  TensorView get(const char* name) const {
    const int i = tfp_tensors_find(list, name);
    REQUIRE_MESSAGE(i >= 0, name);
    const int32_t* d = tfp_tensors_dims(list, i);
    return TensorView(tfp_tensors_data(list, i), Shape(d, d + tfp_tensors_rank(list, i)));
  }
};

struct Inputs {
  std::vector<int32_t> ids, types, mask, tgt;
};

int steps_call(tfp_model* m, const Inputs& in, const char* set, int layer, int head, int query, List& out) {
  return tfp_model_attention_steps(
      m,
      tfp::testing::params(tfp_forward_params{.ids = in.ids.data(),
                                              .n = static_cast<int>(in.ids.size()),
                                              .token_type_ids = in.types.empty() ? nullptr : in.types.data(),
                                              .attention_mask = in.mask.empty() ? nullptr : in.mask.data(),
                                              .tgt_ids = in.tgt.empty() ? nullptr : in.tgt.data(),
                                              .n_tgt = static_cast<int>(in.tgt.size())}),
      set, layer, head, query, &out.list);
}

double max_diff(const float* a, const float* b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
  return worst;
}

double max_diff_json(const TensorView& got, const nlohmann::json& want) {
  std::vector<double> w;
  Shape shape;
  tfp::testing::flatten(want, w, shape);
  REQUIRE(got.numel() == static_cast<int64_t>(w.size()));
  double worst = 0;
  for (size_t i = 0; i < w.size(); ++i) worst = std::max(worst, std::fabs(got.data[i] - w[i]));
  return worst;
}

// The definitions every step list must satisfy, whatever the model: scaled = scores·scale,
// masked keys have -inf logits and probability 0, probs sum to 1, out = Σ weighted_v.
void check_definitions(const TensorView& scores, const TensorView& scaled, const TensorView& mask,
                       const TensorView& logits, const TensorView& probs, const TensorView& wv,
                       const TensorView& out, float scale) {
  const int64_t Tk = scores.numel(), D = out.numel();
  double sum = 0;
  for (int64_t j = 0; j < Tk; ++j) {
    CHECK(scaled.data[j] == doctest::Approx(scores.data[j] * scale).epsilon(1e-6));
    if (mask.data[j] != 0.0f) {
      CHECK(probs.data[j] == 0.0f);
      CHECK((std::isinf(logits.data[j]) && logits.data[j] < 0));
    }
    sum += probs.data[j];
  }
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  for (int64_t d = 0; d < D; ++d) {
    double s = 0, size = 0;
    for (int64_t j = 0; j < Tk; ++j) {
      s += wv.data[j * D + d];
      size += std::fabs(wv.data[j * D + d]);
    }
    CHECK(std::fabs(s - out.data[d]) <= 1e-6 * std::max(1.0, size));
  }
}

// Every (layer, head, query) of `set` through the C API: probs equal the forward pass's
// row, out equals the recorded head output. probs_of(layer) gives the forward's (H, Tq, Tk).
void check_all_rows(tfp_model* m, const Inputs& in, const char* set, int layers, int H, int Tq,
                    const nn::RecordingObserver& rec, const std::string& block_fmt) {
  for (int l = 0; l < layers; ++l) {
    const std::string block = block_fmt.substr(0, block_fmt.find('#')) + std::to_string(l) +
                              block_fmt.substr(block_fmt.find('#') + 1);
    const Tensor& probs = rec.get(block + ".probs");    // (H, Tq, Tk)
    const Tensor& heads = rec.get(block + ".head_out"); // (H, Tq, D)
    const int64_t Tk = probs.dim(2), D = heads.dim(2);
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < Tq; ++i) {
        CAPTURE(block);
        CAPTURE(h);
        CAPTURE(i);
        List s;
        INFO(tfp_last_error());
        REQUIRE(steps_call(m, in, set, l, h, i, s) == TFP_OK);
        CHECK(s.get("q").shape == Shape{D});
        CHECK(s.get("k").shape == Shape{Tk, D});
        CHECK(max_diff(s.get("probs").data, probs.ptr() + (h * Tq + i) * Tk, Tk) <= 1e-6);
        CHECK(max_diff(s.get("out").data, heads.ptr() + (h * Tq + i) * D, D) <= 1e-5);
        const float scale = s.get("scale").data[0];
        CHECK(scale == doctest::Approx(1.0 / std::sqrt(static_cast<double>(D))));
        check_definitions(s.get("scores"), s.get("scaled"), s.get("mask"), s.get("logits"), s.get("probs"),
                          s.get("weighted_v"), s.get("out"), scale);
      }
  }
}

const nlohmann::json& oracle_case(const nlohmann::json& all, const std::string& model) {
  for (const auto& c : all["cases"])
    if (c["model"] == model) return c;
  FAIL("no oracle case for " << model);
  return all;
}

void check_oracle(const nlohmann::json& c, const TensorView& q, const TensorView& k, const TensorView& v,
                  const TensorView& scores, const TensorView& scaled, const TensorView& mask,
                  const TensorView& probs, const TensorView& out) {
  CHECK(max_diff_json(q, c["q"]) < 1e-5);
  CHECK(max_diff_json(k, c["k"]) < 1e-5);
  CHECK(max_diff_json(v, c["v"]) < 1e-5);
  CHECK(max_diff_json(scores, c["scores"]) < 1e-5);
  CHECK(max_diff_json(scaled, c["scaled"]) < 1e-5);
  CHECK(max_diff_json(mask, c["mask"]) == 0);
  CHECK(max_diff_json(probs, c["probs"]) < 1e-5);
  CHECK(max_diff_json(out, c["out"]) < 1e-5);
}

nlohmann::json oracle() { return read_json(std::string(TFP_FIXTURES_DIR) + "/attention_steps/expected.json"); }

}  // namespace

TEST_CASE("attention steps: GPT-2 fixture, every layer/head/query equals the forward pass (causal)") {
  tfp_model* m = load_dir(checkpoint_dir("gpt2_tiny"));
  const nlohmann::json want = oracle();
  const nlohmann::json& c = oracle_case(want, "gpt2_tiny");
  Inputs in;
  in.ids = c["ids"].get<std::vector<int32_t>>();
  const int T = static_cast<int>(in.ids.size());
  // The forward pass's own probabilities and head outputs, recorded by the observer.
  const model::LoadedModel lm = model::load_model_dir(checkpoint_dir("gpt2_tiny"));
  nn::RecordingObserver rec({"*.probs", "*.head_out"});
  model::forward_decoder_only(lm.config(), lm.weights(), in.ids, &rec);
  check_all_rows(m, in, "dec", 2, 4, T, rec, "dec.#.attn");

  SUBCASE("causal: keys after the query are masked, the others are not") {
    List s;
    REQUIRE(steps_call(m, in, "dec", 0, 1, 3, s) == TFP_OK);
    for (int j = 0; j < T; ++j) CHECK(s.get("mask").data[j] == (j > 3 ? 1.0f : 0.0f));
    for (int j = 0; j <= 3; ++j) CHECK(s.get("bias").data[j] == 0.0f);
  }
  SUBCASE("independent torch oracle (layer 1, head 2, query 4)") {
    List s;
    REQUIRE(steps_call(m, in, "dec", c["layer"], c["head"], c["query"], s) == TFP_OK);
    check_oracle(c, s.get("q"), s.get("k"), s.get("v"), s.get("scores"), s.get("scaled"), s.get("mask"),
                 s.get("probs"), s.get("out"));
  }
  tfp_model_free(m);
}

TEST_CASE("attention steps: BERT fixture with padding, every row equals the forward pass") {
  tfp_model* m = load_dir(checkpoint_dir("bert_tiny"));
  const nlohmann::json want = oracle();
  const nlohmann::json& c = oracle_case(want, "bert_tiny");
  Inputs in;
  in.ids = c["ids"].get<std::vector<int32_t>>();
  in.types = c["token_type_ids"].get<std::vector<int32_t>>();
  in.mask = c["attention_mask"].get<std::vector<int32_t>>();
  const int T = static_cast<int>(in.ids.size());
  const model::LoadedModel lm = model::load_model_dir(checkpoint_dir("bert_tiny"));
  std::vector<uint8_t> padding;
  for (int32_t a : in.mask) padding.push_back(a == 0 ? 1 : 0);
  nn::RecordingObserver rec({"*.probs", "*.head_out"});
  model::forward_encoder_only(lm.config(), lm.weights(), in.ids, in.types, padding, &rec);
  check_all_rows(m, in, "enc", 2, 4, T, rec, "enc.#.attn");

  SUBCASE("padding keys are masked for every query, the real ones never") {
    for (int i : {0, 5, T - 1}) {
      List s;
      REQUIRE(steps_call(m, in, "enc", 1, 0, i, s) == TFP_OK);
      for (int j = 0; j < T; ++j) CHECK(s.get("mask").data[j] == static_cast<float>(padding[j]));
    }
  }
  SUBCASE("independent torch oracle (layer 1, head 1, query 3)") {
    List s;
    REQUIRE(steps_call(m, in, "enc", c["layer"], c["head"], c["query"], s) == TFP_OK);
    check_oracle(c, s.get("q"), s.get("k"), s.get("v"), s.get("scores"), s.get("scaled"), s.get("mask"),
                 s.get("probs"), s.get("out"));
  }
  tfp_model_free(m);
}

TEST_CASE("attention steps: nn.Transformer fixture, encoder, decoder and cross-attention (masks)") {
  const std::string dir = checkpoint_dir("torch_transformer");
  const model::LoadedModel m = model::load_model_dir(dir);
  const io::SafeTensors inputs = io::SafeTensors::load(dir + "/inputs.safetensors");
  const model::TorchInputs in = model::torch_inputs(m.config(), m.family, inputs, 0);
  nn::RecordingObserver rec({"*"});
  model::run_torch(m.config(), m.weights(), m.family, in, &rec);
  const int S = static_cast<int>(in.src.dim(0)), T = static_cast<int>(in.tgt.dim(0));
  const int H = 4;
  const float scale = 1.0f / std::sqrt(4.0f);  // D = 16 / 4
  for (const char* fmt : {"enc.#.attn", "dec.#.attn", "dec.#.cross"}) {
    const std::string f(fmt);
    for (int l = 0; l < 2; ++l) {
      const std::string b = f.substr(0, f.find('#')) + std::to_string(l) + f.substr(f.find('#') + 1);
      CAPTURE(b);
      const Tensor& q = rec.get(b + ".q");
      const Tensor& mask = rec.get(b + ".mask");
      const Tensor& probs = rec.get(b + ".probs");
      const Tensor& heads = rec.get(b + ".head_out");
      const int Tq = static_cast<int>(q.dim(1)), Tk = static_cast<int>(probs.dim(2));
      CHECK(Tq == (b[0] == 'e' ? S : T));
      CHECK(Tk == (b.find("attn") != std::string::npos && b[0] == 'd' ? T : S));
      CHECK(mask.shape == Shape{Tq, Tk});
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < Tq; ++i) {
          const inspect::AttentionSteps st =
              inspect::attention_steps(q, rec.get(b + ".k"), rec.get(b + ".v"), mask, h, i, scale);
          CHECK(max_diff(st.probs.ptr(), probs.ptr() + (h * Tq + i) * Tk, Tk) <= 1e-6);
          CHECK(max_diff(st.out.ptr(), heads.ptr() + (h * Tq + i) * 4, 4) <= 1e-5);
          check_definitions(st.scores, st.scaled, st.masked, st.logits, st.probs, st.weighted_v, st.out, scale);
          for (int j = 0; j < Tk; ++j) {
            // Which keys are masked: source padding (positions 5, 6) for the encoder and
            // cross-attention; the future for the decoder (tgt_mask, float -inf above the
            // diagonal, as generate_square_subsequent_mask).
            const bool want_masked = b.find("dec") == 0 && b.find("attn") != std::string::npos ? j > i
                                                                                               : j >= 5;
            CHECK(st.masked.data[j] == (want_masked ? 1.0f : 0.0f));
          }
        }
    }
  }
  SUBCASE("independent torch oracle: cross-attention layer 1, head 3, query 2") {
    const nlohmann::json want = oracle();
    const nlohmann::json& c = oracle_case(want, "torch_transformer");
    const inspect::AttentionSteps st = inspect::attention_steps(
        rec.get("dec.1.cross.q"), rec.get("dec.1.cross.k"), rec.get("dec.1.cross.v"), rec.get("dec.1.cross.mask"),
        c["head"], c["query"], scale);
    check_oracle(c, st.q, st.k, st.v, st.scores, st.scaled, st.masked, st.probs, st.out);
  }
}

TEST_CASE("attention steps: shipped numbers-transformer through the C API (enc, dec, cross)") {
  tfp_model* m = load_dir(repo_path("models/numbers-transformer"));
  const model::LoadedModel lm = model::load_model_dir(repo_path("models/numbers-transformer"));
  Inputs in;
  for (int32_t id : {5, 6, 7, 8, 9, 10}) in.ids.push_back(id % static_cast<int32_t>(lm.config().vocab_size));
  for (int32_t id : {1, 4, 5, 6}) in.tgt.push_back(id % static_cast<int32_t>(lm.config().vocab_size));
  nn::RecordingObserver rec({"*.probs", "*.head_out"});
  model::forward_encoder_decoder(lm.config(), lm.weights(), in.ids, in.tgt, {}, &rec);
  const int H = static_cast<int>(lm.config().n_heads);
  check_all_rows(m, in, "enc", static_cast<int>(lm.config().n_encoder_layers), H, 6, rec, "enc.#.attn");
  check_all_rows(m, in, "dec", static_cast<int>(lm.config().n_decoder_layers), H, 4, rec, "dec.#.attn");
  check_all_rows(m, in, "cross", static_cast<int>(lm.config().n_decoder_layers), H, 4, rec, "dec.#.cross");
  tfp_model_free(m);
}

TEST_CASE("attention steps: a KV-cached decoder step reports every cached key") {
  const model::LoadedModel lm = model::load_model_dir(checkpoint_dir("gpt2_tiny"));
  const std::vector<int32_t> ids = {256, 72, 101, 108, 108, 111, 258};
  model::KVCache cache(lm.config());
  model::decoder_only_step(lm.config(), lm.weights(), cache, std::span(ids).first(6));
  nn::RecordingObserver step({"dec.1.attn"});
  model::decoder_only_step(lm.config(), lm.weights(), cache, std::span(ids).last(1), &step);
  nn::RecordingObserver full({"dec.1.attn.probs"});
  model::forward_decoder_only(lm.config(), lm.weights(), ids, &full);
  const Tensor& k = step.get("dec.1.attn.k");
  CHECK(k.shape == Shape{4, 7, 4});                         // all 7 positions, not only the new one
  CHECK(step.get("dec.1.attn.q").shape == Shape{4, 1, 4});  // one new query
  for (int h = 0; h < 4; ++h) {
    const inspect::AttentionSteps st = inspect::attention_steps(
        step.get("dec.1.attn.q"), k, step.get("dec.1.attn.v"), step.get("dec.1.attn.mask"), h, 0, 0.5f);
    CHECK(max_diff(st.probs.ptr(), step.get("dec.1.attn.probs").ptr() + h * 7, 7) <= 1e-6);
    // The cached step's row equals the last row of the uncached pass (float sums differ).
    CHECK(max_diff(st.probs.ptr(), full.get("dec.1.attn.probs").ptr() + (h * 7 + 6) * 7, 7) <= 1e-5);
    CHECK(max_diff(st.out.ptr(), step.get("dec.1.attn.head_out").ptr() + h * 4, 4) <= 1e-5);
  }
}

TEST_CASE("attention steps: positional bias (ALiBi) shows as bias and matches attention with the hook") {
  // q, k, v (H=2, T=4, D=3) with simple numbers; the hook adds -slope_h·(i - j) to the
  // scores. attention_mask_matrix puts that bias (and -inf for the causal future) into
  // the mask the drill-down replays; its probs must equal attention run with the hook.
  const int H = 2, T = 4, D = 3;
  Tensor q({H, T, D}), k({H, T, D}), v({H, T, D});
  for (int64_t i = 0; i < q.numel(); ++i) {
    q.data[i] = std::sin(0.7f * i);
    k.data[i] = std::cos(0.3f * i);
    v.data[i] = 0.1f * i - 1.0f;
  }
  nn::AttentionMask causal;
  causal.causal = true;
  nn::AttentionHooks hooks;
  hooks.score_bias = nn::alibi_score_bias(H);
  const float scale = 1.0f / std::sqrt(3.0f);
  const nn::AttentionResult ref = nn::scaled_dot_product_attention(q, k, v, causal, scale, true, hooks);
  const Tensor mask = nn::attention_mask_matrix(causal, H, T, T, hooks);
  REQUIRE(mask.shape == Shape{H, T, T});
  const std::vector<float> slopes = nn::alibi_slopes(H);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      const inspect::AttentionSteps st = inspect::attention_steps(q, k, v, mask, h, i, scale);
      CHECK(max_diff(st.probs.ptr(), ref.probs.ptr() + (h * T + i) * T, T) <= 1e-6);
      CHECK(max_diff(st.out.ptr(), ref.out.ptr() + (h * T + i) * D, D) <= 1e-6);
      for (int j = 0; j <= i; ++j) CHECK(st.bias.data[j] == doctest::Approx(-slopes[h] * (i - j)));
      for (int j = i + 1; j < T; ++j) CHECK(st.masked.data[j] == 1.0f);
    }
}

TEST_CASE("attention steps: bad set, layer, head, query are clear errors; the model stays usable") {
  tfp_model* gpt2 = load_dir(checkpoint_dir("gpt2_tiny"));
  Inputs in;
  in.ids = {256, 72, 101, 108};
  auto err = [&](const char* set, int l, int h, int q) {
    List s;
    const int st = steps_call(gpt2, in, set, l, h, q, s);
    CHECK(st == TFP_ERR_INVALID_ARGUMENT);
    CHECK(s.list == nullptr);
    return std::string(tfp_last_error());
  };
  CHECK(err("enc", 0, 0, 0) ==
        "tfp_model_attention_steps: set \"enc\" does not exist in this decoder_only model (valid: \"dec\")");
  CHECK(err("cross", 0, 0, 0).find("valid: \"dec\"") != std::string::npos);
  CHECK(err("dec", 2, 0, 0) ==
        "tfp_model_attention_steps: layer 2 is out of range: the model has 2 decoder layers (0..1)");
  CHECK(err("dec", -1, 0, 0).find("layer -1 is out of range") != std::string::npos);
  CHECK(err("dec", 0, 4, 0) == "tfp_model_attention_steps: head 4 is out of range: the model has 4 heads (0..3)");
  CHECK(err("dec", 0, 0, 4) ==
        "tfp_model_attention_steps: query 4 is out of range: the input has 4 tokens (0..3)");
  CHECK(err(nullptr, 0, 0, 0).find("set is NULL") != std::string::npos);
  {
    List s;
    CHECK(tfp_model_attention_steps(gpt2, tfp::testing::params(tfp_forward_params{.ids = in.ids.data(), .n = 4}), "dec",
                                    0, 0, 0, nullptr) == TFP_ERR_INVALID_ARGUMENT);
    const int32_t bad[] = {256, 9999};
    CHECK(tfp_model_attention_steps(gpt2, tfp::testing::params(tfp_forward_params{.ids = bad, .n = 2}), "dec", 0, 0, 0,
                                    &s.list) == TFP_ERR_ENGINE);
    CHECK(std::string(tfp_last_error()).find("9999") != std::string::npos);
  }
  List ok;  // still usable after every refusal
  CHECK(steps_call(gpt2, in, "dec", 1, 3, 3, ok) == TFP_OK);
  tfp_model_free(gpt2);

  tfp_model* nt = load_dir(repo_path("models/numbers-transformer"));
  Inputs e;
  e.ids = {5, 6, 7};
  List s;
  CHECK(steps_call(nt, e, "cross", 0, 0, 0, s) == TFP_ERR_INVALID_ARGUMENT);  // no tgt_ids
  CHECK(std::string(tfp_last_error()).find("tgt_ids") != std::string::npos);
  e.tgt = {1, 4};
  CHECK(steps_call(nt, e, "cross", 0, 0, 2, s) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_model_attention_steps: query 2 is out of range: the decoder input (tgt_ids) has 2 tokens (0..1)");
  CHECK(steps_call(nt, e, "enc", 0, 0, 2, s) == TFP_OK);  // encoder queries are the source's 3
  tfp_model_free(nt);
}

TEST_CASE("attention steps: the forward pass copies q, k, v only for the names asked for") {
  const model::LoadedModel lm = model::load_model_dir(checkpoint_dir("gpt2_tiny"));
  const std::vector<int32_t> ids = {256, 72, 101};
  nn::RecordingObserver probs_only({"*.probs"});
  model::forward_decoder_only(lm.config(), lm.weights(), ids, &probs_only);
  for (const auto& r : probs_only.records()) CHECK(r.first.find(".probs") != std::string::npos);
  nn::RecordingObserver one({"dec.1.attn.k"});
  model::forward_decoder_only(lm.config(), lm.weights(), ids, &one);
  REQUIRE(one.records().size() == 1);
  CHECK(one.records()[0].first == "dec.1.attn.k");
  CHECK(one.records()[0].second.shape == Shape{4, 3, 4});
}
