// Activation patching (inspect/activation_patching.h, tfp_model_activation_patching).
// Exact checks that follow from what patching is, on the GPT-2 fixture and Llama (GQA),
// Pythia (parallel residual) and Gemma 2 (post norms, soft-capping) families:
//   * the clean and corrupted prompts differ at one position k only: patching the
//     residual stream before block 0 at k gives the clean metric exactly (normalised 1:
//     the whole embedding stream is then clean's); at any other position, and every
//     sweep's cell at positions before k (causality: nothing there differs), the
//     corrupted metric exactly (normalised 0);
//   * patching the residual stream after the last block at the last position gives the
//     clean metric exactly (the final norm and the head act per position);
//   * prompts differing at several positions: a test observer copying the whole
//     embed.out stream gives the clean metric exactly;
//   * clean == corrupted: every raw cell is the clean metric, the normalisation is
//     reported undefined (no *_norm tensors in the C API, empty tables), nothing NaN;
//   * tests/fixtures/patching/gpt2_tiny.json (gen_patching.py: plain torch in float64,
//     TransformerLens's hook points and sweeps written out) gives every sweep's raw and
//     normalised cells on the GPT-2 fixture, prompts differing at two positions;
//   * the C API returns the engine's numbers, names the sweeps' shapes, refuses bad
//     input by name.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "api/tfp_inspect_api.h"
#include "api/tfp_patch_api.h"
#include "inspect/activation_patching.h"
#include "model/model.h"
#include "model/transformer.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {

std::string family_dir(const std::string& name) { return std::string(TFP_FIXTURES_DIR) + "/families/" + name; }

const inspect::PatchTable& table_of(const inspect::ActivationPatching& r, const std::string& kind) {
  for (const auto& t : r.tables)
    if (t.kind == kind) return t;
  FAIL("no table ", kind);
  return r.tables.front();
}

// Copies every recorded clean tensor of `name` in whole.
class WholeCopy final : public nn::Observer {
 public:
  WholeCopy(std::string name, Tensor t) : name_(std::move(name)), t_(std::move(t)) {}
  bool wants(std::string_view n) const override { return n == name_; }
  void observe(std::string_view, Tensor& t) override { t = t_; }

 private:
  std::string name_;
  Tensor t_;
};

std::pair<double, double> metric_of(const model::ModelConfig& c, const model::ModelWeights& w,
                                    const std::vector<int32_t>& ids, int32_t a, int32_t b, nn::Observer* obs) {
  const model::ForwardResult r = model::forward_decoder_only(c, w, ids, obs, 1);
  return inspect::patching_metric(std::span<const float>(r.logits.ptr(), static_cast<size_t>(r.logits.dim(1))), a,
                                  b);
}

void check_model(const model::LoadedModel& lm) {
  const model::ModelConfig& c = lm.config();
  const int64_t V = c.vocab_size;
  const std::vector<int32_t> clean = {3, 17, 5, 9, 11, 2};
  std::vector<int32_t> corrupted = clean;
  const int64_t k = 2;
  corrupted[k] = 40;
  const int32_t answer = 7, foil = static_cast<int32_t>(V - 3);
  const inspect::ActivationPatching r =
      inspect::activation_patching(c, lm.weights(), clean, corrupted, answer, foil, inspect::patch_all);
  const int64_t L = r.L, T = r.T, H = r.H;
  CHECK(L == c.n_decoder_layers);
  CHECK(T == 6);
  CHECK(H == c.n_heads);
  REQUIRE(r.logit_diff_normalizable);
  REQUIRE(r.logprob_normalizable);
  MESSAGE("clean logit diff ", r.clean_logit_diff, ", corrupted ", r.corrupted_logit_diff);
  CHECK(r.clean_logit_diff != r.corrupted_logit_diff);
  {
    const auto cm = metric_of(c, lm.weights(), clean, answer, foil, nullptr);
    CHECK(cm.first == r.clean_logit_diff);
    CHECK(cm.second == r.clean_logprob);
  }
  REQUIRE(r.tables.size() == 9);
  const auto& resid = table_of(r, "resid");
  CHECK(resid.dims == std::vector<int64_t>{L + 1, T});
  CHECK(table_of(r, "attn_out").dims == std::vector<int64_t>{L, T});
  CHECK(table_of(r, "mlp_out").dims == std::vector<int64_t>{L, T});
  CHECK(table_of(r, "head_all").dims == std::vector<int64_t>{L, H});
  CHECK(table_of(r, "head_pos").dims == std::vector<int64_t>{L, T, H});
  CHECK(table_of(r, "head_q").dims == std::vector<int64_t>{L, H});
  CHECK(table_of(r, "head_k").dims == std::vector<int64_t>{L, c.kv_heads()});
  CHECK(table_of(r, "head_v").dims == std::vector<int64_t>{L, c.kv_heads()});
  CHECK(table_of(r, "head_pattern").dims == std::vector<int64_t>{L, H});
  for (const auto& t : r.tables) {
    REQUIRE(t.logit_diff_norm.size() == t.logit_diff.size());
    REQUIRE(t.logprob_norm.size() == t.logprob.size());
    for (size_t i = 0; i < t.logit_diff.size(); ++i) {
      CHECK(std::isfinite(t.logit_diff[i]));
      CHECK(std::isfinite(t.logprob_norm[i]));
    }
  }
  const float clean_d = static_cast<float>(r.clean_logit_diff), corr_d = static_cast<float>(r.corrupted_logit_diff);
  const float clean_lp = static_cast<float>(r.clean_logprob), corr_lp = static_cast<float>(r.corrupted_logprob);
  // Before block 0: position k restores the clean run, any other position changes nothing.
  for (int64_t p = 0; p < T; ++p) {
    CAPTURE(p);
    CHECK(resid.logit_diff[p] == (p == k ? clean_d : corr_d));
    CHECK(resid.logprob[p] == (p == k ? clean_lp : corr_lp));
    CHECK(resid.logit_diff_norm[p] == (p == k ? 1.0f : 0.0f));
  }
  // After the last block, at the last position: the clean metric.
  CHECK(resid.logit_diff[L * T + T - 1] == clean_d);
  CHECK(resid.logit_diff_norm[L * T + T - 1] == 1.0f);
  CHECK(resid.logprob_norm[L * T + T - 1] == 1.0f);
  // Positions before k are the same in both runs: patching them changes nothing.
  for (int64_t l = 0; l < L; ++l)
    for (int64_t p = 0; p < k; ++p) {
      CAPTURE(l);
      CAPTURE(p);
      CHECK(resid.logit_diff_norm[(l + 1) * T + p] == 0.0f);
      CHECK(table_of(r, "attn_out").logit_diff_norm[l * T + p] == 0.0f);
      CHECK(table_of(r, "mlp_out").logit_diff_norm[l * T + p] == 0.0f);
      for (int64_t h = 0; h < H; ++h) CHECK(table_of(r, "head_pos").logit_diff_norm[(l * T + p) * H + h] == 0.0f);
    }

  // Several positions differ: the whole clean embed.out stream gives the clean metric.
  {
    const std::vector<int32_t> other = {1, 30, 5, 22, 11, 8};
    nn::RecordingObserver rec({"embed.out"});
    const auto cm = metric_of(c, lm.weights(), clean, answer, foil, &rec);
    WholeCopy whole("embed.out", rec.get("embed.out"));
    const auto pm = metric_of(c, lm.weights(), other, answer, foil, &whole);
    CHECK(pm.first == cm.first);
    CHECK(pm.second == cm.second);
  }

  // The same prompt twice: nothing to normalise by, reported as such, never NaN.
  {
    const inspect::ActivationPatching same =
        inspect::activation_patching(c, lm.weights(), clean, clean, answer, foil, inspect::patch_all);
    CHECK_FALSE(same.logit_diff_normalizable);
    CHECK_FALSE(same.logprob_normalizable);
    for (const auto& t : same.tables) {
      CHECK(t.logit_diff_norm.empty());
      CHECK(t.logprob_norm.empty());
      for (float v : t.logit_diff) CHECK(v == clean_d);
      for (float v : t.logprob) CHECK(v == clean_lp);
    }
  }
}

// tfp_model_activation_patching with the given fields (the others at their defaults);
// *status its status, the list (NULL on failure) returned.
tfp_tensors* patch_api(tfp_model* m, const std::vector<int32_t>& clean, const std::vector<int32_t>& corrupted,
                       int answer, int foil, unsigned kinds, int* status, int layer = -1) {
  tfp_patching_params p;
  tfp_patching_params_init(&p);
  CHECK(p.layer == -1);
  p.layer = layer;
  p.clean = clean.data();
  p.corrupted = corrupted.data();
  p.n = static_cast<int32_t>(clean.size());
  p.answer = answer;
  p.foil = foil;
  p.kinds = kinds;
  tfp_tensors* out = nullptr;
  *status = tfp_model_activation_patching(m, &p, &out);
  return out;
}

std::vector<float> data_of(const tfp_tensors* list, const char* name) {
  const int i = tfp_tensors_find(list, name);
  REQUIRE_MESSAGE(i >= 0, "no tensor ", name);
  const float* d = tfp_tensors_data(list, i);
  return std::vector<float>(d, d + tfp_tensors_numel(list, i));
}

}  // namespace

TEST_CASE("activation patching: exact checks on gpt2_tiny and the decoder-only families") {
  for (const std::string name : {"gpt2_tiny", "llama_gqa", "pythia_parallel", "gemma2", "bloom_alibi"}) {
    CAPTURE(name);
    const std::string dir = name == "gpt2_tiny" ? testing::checkpoint_dir(name) : family_dir(name);
    const model::LoadedModel lm = model::load_model_dir(dir);
    check_model(lm);
  }
}

TEST_CASE("forward_decoder_only_from: from each block's recorded stream, forward_decoder_only's logits") {
  for (const std::string name : {"gpt2_tiny", "llama_gqa", "pythia_parallel", "gemma2", "bloom_alibi"}) {
    CAPTURE(name);
    const model::LoadedModel lm =
        model::load_model_dir(name == "gpt2_tiny" ? testing::checkpoint_dir(name) : family_dir(name));
    const model::ModelConfig& c = lm.config();
    const std::vector<int32_t> ids = {3, 17, 5, 9, 11, 2, 30};
    const int64_t L = c.n_decoder_layers;
    std::vector<std::string> names = {"embed.out"};
    for (int64_t i = 0; i < L; ++i) names.push_back("dec." + std::to_string(i) + ".out");
    nn::RecordingObserver rec(names);
    const model::ForwardResult whole = model::forward_decoder_only(c, lm.weights(), ids, &rec);
    for (int64_t l = 0; l <= L; ++l) {
      CAPTURE(l);
      const model::ForwardResult from =
          model::forward_decoder_only_from(c, lm.weights(), rec.get(names[static_cast<size_t>(l)]).view(), l);
      CHECK(from.logits.shape == whole.logits.shape);
      CHECK(from.logits.data == whole.logits.data);  // the same operations on the same values
    }
    try {
      (void)model::forward_decoder_only_from(c, lm.weights(), rec.get("embed.out").view(), L + 1);
      FAIL("block L+1 accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("first block " + std::to_string(L + 1) + " is not 0..") != std::string::npos);
    }
  }
}

TEST_CASE("activation patching: every sweep matches the torch reference on gpt2_tiny") {
  const nlohmann::json g = testing::read_json(std::string(TFP_FIXTURES_DIR) + "/patching/gpt2_tiny.json");
  const model::LoadedModel lm = model::load_model_dir(testing::checkpoint_dir("gpt2_tiny"));
  const auto clean = g["clean"].get<std::vector<int32_t>>(), corrupted = g["corrupted"].get<std::vector<int32_t>>();
  const inspect::ActivationPatching r = inspect::activation_patching(
      lm.config(), lm.weights(), clean, corrupted, g["answer"].get<int32_t>(), g["foil"].get<int32_t>(),
      inspect::patch_all);
  const auto metric = g["metric"].get<std::vector<double>>();
  CHECK(r.clean_logit_diff == doctest::Approx(metric[0]).epsilon(1e-4));
  CHECK(r.corrupted_logit_diff == doctest::Approx(metric[1]).epsilon(1e-4));
  CHECK(r.clean_logprob == doctest::Approx(metric[2]).epsilon(1e-4));
  CHECK(r.corrupted_logprob == doctest::Approx(metric[3]).epsilon(1e-4));
  REQUIRE(r.tables.size() == 9);
  for (const auto& t : r.tables) {
    CAPTURE(t.kind);
    CHECK(t.dims == g[t.kind + ".dims"].get<std::vector<int64_t>>());
    for (const char* leaf : {".logit_diff", ".logprob", ".logit_diff_norm", ".logprob_norm"}) {
      const std::string key = t.kind + leaf;
      const auto want = g[key].get<std::vector<double>>();
      const std::vector<float>& got = std::string(leaf) == ".logit_diff"        ? t.logit_diff
                                      : std::string(leaf) == ".logprob"         ? t.logprob
                                      : std::string(leaf) == ".logit_diff_norm" ? t.logit_diff_norm
                                                                                : t.logprob_norm;
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        CAPTURE(key);
        CAPTURE(i);
        CHECK(std::abs(got[i] - want[i]) <= 2e-5 + 1e-4 * std::abs(want[i]));
      }
    }
  }
}

TEST_CASE("activation patching: one layer at a time gives the rows of the whole sweep") {
  const model::LoadedModel lm = model::load_model_dir(family_dir("llama_gqa"));
  const model::ModelConfig& c = lm.config();
  const std::vector<int32_t> clean = {3, 17, 5, 9, 11}, corrupted = {3, 17, 40, 9, 12};
  const inspect::ActivationPatching all =
      inspect::activation_patching(c, lm.weights(), clean, corrupted, 7, 8, inspect::patch_all);
  const int64_t L = all.L;
  for (int64_t l = 0; l <= L; ++l) {
    CAPTURE(l);
    const unsigned kinds = l < L ? inspect::patch_all : inspect::patch_resid;
    const inspect::ActivationPatching one =
        inspect::activation_patching(c, lm.weights(), clean, corrupted, 7, 8, kinds, nullptr, l);
    CHECK(one.clean_logit_diff == all.clean_logit_diff);
    for (const auto& t : one.tables) {
      CAPTURE(t.kind);
      const auto& whole = table_of(all, t.kind);
      CHECK(t.dims[0] == 1);
      const size_t row = t.logit_diff.size();
      CHECK(row * static_cast<size_t>(whole.dims[0]) == whole.logit_diff.size());
      const auto at = whole.logit_diff.begin() + static_cast<std::ptrdiff_t>(row * static_cast<size_t>(l));
      CHECK(std::vector<float>(at, at + static_cast<std::ptrdiff_t>(row)) == t.logit_diff);
    }
  }
  try {
    inspect::activation_patching(c, lm.weights(), clean, corrupted, 7, 8, inspect::patch_all, nullptr, L);
    FAIL("layer L accepted for every sweep");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("for resid alone") != std::string::npos);
  }
}

TEST_CASE("activation patching: the C API gives the engine's tables and refuses by name") {
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  const model::LoadedModel lm = model::load_model_dir(dir);
  tfp_model* m = testing::open_through_api(dir, "gpt2_tiny");
  const std::vector<int32_t> clean = {72, 101, 108, 108, 111}, corrupted = {72, 97, 108, 108, 111};
  const inspect::ActivationPatching want =
      inspect::activation_patching(lm.config(), lm.weights(), clean, corrupted, 32, 33, inspect::patch_all);
  int st = -1;
  tfp_tensors* out = patch_api(m, clean, corrupted, 32, 33, 511, &st);
  INFO(tfp_last_error());
  REQUIRE(st == TFP_OK);
  CHECK(tfp_tensors_count(out) == 1 + 9 * 4);
  CHECK(data_of(out, "metric") ==
        std::vector<float>{static_cast<float>(want.clean_logit_diff), static_cast<float>(want.corrupted_logit_diff),
                           static_cast<float>(want.clean_logprob), static_cast<float>(want.corrupted_logprob)});
  for (const auto& t : want.tables) {
    CAPTURE(t.kind);
    CHECK(data_of(out, (t.kind + ".logit_diff").c_str()) == t.logit_diff);
    CHECK(data_of(out, (t.kind + ".logit_diff_norm").c_str()) == t.logit_diff_norm);
    CHECK(data_of(out, (t.kind + ".logprob").c_str()) == t.logprob);
    CHECK(data_of(out, (t.kind + ".logprob_norm").c_str()) == t.logprob_norm);
    const int i = tfp_tensors_find(out, (t.kind + ".logprob").c_str());
    REQUIRE(tfp_tensors_rank(out, i) == static_cast<int>(t.dims.size()));
    for (size_t d = 0; d < t.dims.size(); ++d) CHECK(tfp_tensors_dims(out, i)[d] == t.dims[d]);
  }
  tfp_tensors_free(out);

  // One sweep, the same prompt: no *_norm tensors.
  out = patch_api(m, clean, clean, 32, 33, 8, &st);
  REQUIRE(st == TFP_OK);
  CHECK(tfp_tensors_count(out) == 3);
  CHECK(tfp_tensors_find(out, "head_all.logit_diff") >= 0);
  CHECK(tfp_tensors_find(out, "head_all.logit_diff_norm") == -1);
  CHECK(tfp_tensors_find(out, "head_all.logprob_norm") == -1);
  tfp_tensors_free(out);

  auto refused = [&](const std::vector<int32_t>& a, const std::vector<int32_t>& b, int answer, int foil,
                     unsigned kinds, const std::string& says) {
    int status = -1;
    const tfp_tensors* o = patch_api(m, a, b, answer, foil, kinds, &status);
    CHECK(status == TFP_ERR_INVALID_ARGUMENT);
    CHECK(o == nullptr);
    const std::string msg = tfp_last_error();
    CAPTURE(msg);
    CHECK(msg.find(says) != std::string::npos);
  };
  refused(clean, {72, 97, 108, 108, 264}, 32, 33, 31, "corrupted id 264 at position 4 is outside the vocabulary");
  refused(clean, corrupted, 264, 33, 31, "answer id 264 is outside the vocabulary (0..263)");
  refused(clean, corrupted, 32, -1, 31, "foil id -1");
  refused(clean, corrupted, 32, 33, 0, "kinds 0");
  refused(clean, corrupted, 32, 33, 512, "kinds 512");
  {
    // gpt2_tiny has 2 layers: layer 2 is resid after the last block, only with kinds 1.
    int status = -1;
    CHECK(patch_api(m, clean, corrupted, 32, 33, 31, &status, 2) == nullptr);
    CHECK(status == TFP_ERR_INVALID_ARGUMENT);
    CHECK(std::string(tfp_last_error()).find("layer 2 is not -1") != std::string::npos);
    tfp_tensors* o = patch_api(m, clean, corrupted, 32, 33, 1, &status, 2);
    REQUIRE(status == TFP_OK);
    const int i = tfp_tensors_find(o, "resid.logit_diff");
    REQUIRE(i >= 0);
    CHECK(tfp_tensors_dims(o, i)[0] == 1);
    CHECK(tfp_tensors_dims(o, i)[1] == 5);
    tfp_tensors_free(o);
  }
  tfp_model_free(m);

  // Different lengths (the engine's own check; the C API takes one n).
  try {
    inspect::activation_patching(lm.config(), lm.weights(), clean, std::vector<int32_t>{1, 2}, 32, 33, 31);
    FAIL("different lengths accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("the clean prompt has 5 tokens and the corrupted one 2") != std::string::npos);
  }
  // No LM head.
  model::ModelConfig headless = lm.config();
  headless.lm_head = false;
  try {
    inspect::activation_patching(headless, lm.weights(), clean, corrupted, 32, 33, 31);
    FAIL("a model without an LM head accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("needs token embeddings and an LM head") != std::string::npos);
  }
  // Encoder-only (BERT): refused by name.
  tfp_model* bert = testing::open_through_api(testing::checkpoint_dir("bert_tiny"), "bert_tiny");
  {
    int status = -1;
    CHECK(patch_api(bert, clean, corrupted, 3, 4, 31, &status) == nullptr);
    CHECK(status == TFP_ERR_INVALID_ARGUMENT);
    const std::string msg = tfp_last_error();
    CAPTURE(msg);
    CHECK(msg.find("'bert_tiny': applies to decoder-only models") != std::string::npos);
    CHECK(msg.find("this one is encoder_only") != std::string::npos);
  }
  tfp_model_free(bert);
}

TEST_CASE("head ablation: zero and mean ablation match the torch reference; zero ablation is the head mask's 0") {
  const nlohmann::json g = testing::read_json(std::string(TFP_FIXTURES_DIR) + "/patching/gpt2_tiny.json");
  const nlohmann::json& a = g["ablation"];
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  const model::LoadedModel lm = model::load_model_dir(dir);
  const auto ids = g["clean"].get<std::vector<int32_t>>();
  const int32_t answer = g["answer"].get<int32_t>(), foil = g["foil"].get<int32_t>();
  const auto near = [](double got, double want) { return std::abs(got - want) <= 2e-5 + 1e-4 * std::abs(want); };
  for (const auto& [mode, key] : {std::pair{inspect::AblationMode::zero, "zero"}, std::pair{inspect::AblationMode::mean, "mean"}}) {
    const std::string name = key;  // clang cannot capture a structured binding (CAPTURE's lambda)
    CAPTURE(name);
    const inspect::HeadAblation r = inspect::head_ablation(lm.config(), lm.weights(), ids, answer, foil, mode);
    CHECK(near(r.logit_diff, a["metric"][0].get<double>()));
    CHECK(near(r.logprob, a["metric"][1].get<double>()));
    const auto want_d = a[name + ".logit_diff"].get<std::vector<double>>();
    const auto want_p = a[name + ".logprob"].get<std::vector<double>>();
    REQUIRE(r.ablated_logit_diff.size() == want_d.size());
    for (size_t i = 0; i < want_d.size(); ++i) {
      CAPTURE(i);
      CHECK(near(r.ablated_logit_diff[i], want_d[i]));
      CHECK(near(r.ablated_logprob[i], want_p[i]));
    }
  }
  // Zero ablation through the C API is the head mask's factor 0 on that head (probs · 0 · v).
  tfp_model* m = testing::open_through_api(dir, "gpt2_tiny");
  tfp_tensors* out = nullptr;
  REQUIRE(tfp_model_head_ablation(m, ids.data(), static_cast<int32_t>(ids.size()), answer, foil, 0, &out) == TFP_OK);
  const std::vector<float> zero = data_of(out, "logit_diff");
  tfp_tensors_free(out);
  const int64_t H = lm.config().n_heads;
  for (int64_t l = 0; l < lm.config().n_decoder_layers; ++l)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<float> scales(static_cast<size_t>(H), 1.0f);
      scales[static_cast<size_t>(h)] = 0.0f;
      REQUIRE(tfp_model_set_head_mask(m, "dec", static_cast<int>(l), scales.data(), static_cast<int>(H)) == TFP_OK);
      tfp_tensors* base = nullptr;
      REQUIRE(tfp_model_head_ablation(m, ids.data(), static_cast<int32_t>(ids.size()), answer, foil, 0, &base) == TFP_OK);
      // Under the mask the unablated metric is the masked model's, and ablating the masked head again changes nothing.
      const std::vector<float> metric = data_of(base, "metric");
      CAPTURE(l);
      CAPTURE(h);
      CHECK(std::abs(metric[0] - zero[static_cast<size_t>(l * H + h)]) <= 1e-5f);
      CHECK(std::abs(data_of(base, "logit_diff")[static_cast<size_t>(l * H + h)] - metric[0]) <= 1e-5f);
      tfp_tensors_free(base);
      tfp_model_clear_head_mask(m);
    }
  // Refusals by name.
  CHECK(tfp_model_head_ablation(m, ids.data(), static_cast<int32_t>(ids.size()), answer, foil, 2, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("mode 2 is not 0 (zero ablation) or 1 (mean ablation)") != std::string::npos);
  CHECK(tfp_model_head_ablation(m, ids.data(), static_cast<int32_t>(ids.size()), 264, foil, 1, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("answer id 264 is outside the vocabulary") != std::string::npos);
  CHECK(out == nullptr);
  tfp_model_free(m);
}
