// The model side of the C API (tfp_model_*, tfp_encoding_*): loading from buffers, the
// info JSON, tokenising, forward passes with attention, and errors as status + message.
// Oracles: the golden Hugging Face activations in tests/fixtures/checkpoints/*/expected.json
// (made by gen_checkpoints.py with transformers' modules; tolerance 1e-4 as the checkpoint
// tests use for these tiny float32 models); the C++ engine called directly (the API must
// add nothing: exact equality); the definition of a softmax row (sums to 1, within 1e-5).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "io/file.h"
#include "model/model.h"
#include "test_api_params.h"
#include "test_api_tensors.h"
#include "test_checkpoint_util.h"

using namespace tfp;

using testing::Tensors;

namespace {

struct Files {
  std::string config, tokenizer;
  std::vector<uint8_t> weights;
};

Files read_fixture(const std::string& name) {
  const std::string dir = testing::checkpoint_dir(name);
  Files f;
  f.config = io::read_text_file(dir + "/config.json");
  f.tokenizer = io::read_text_file(dir + "/tokenizer.json");
  const std::string w = io::read_text_file(dir + "/model.safetensors");
  f.weights.assign(w.begin(), w.end());
  return f;
}

// Loads through the staged path the page uses (weights written into the handle's buffer).
tfp_model* load_staged(const Files& f, bool with_tokenizer = true) {
  tfp_model_files* files = nullptr;
  REQUIRE(tfp_model_files_create(f.weights.size(), &files) == TFP_OK);
  std::memcpy(tfp_model_files_weights(files), f.weights.data(), f.weights.size());
  REQUIRE(tfp_model_files_set_config(files, f.config.data(), f.config.size()) == TFP_OK);
  if (with_tokenizer) REQUIRE(tfp_model_files_set_tokenizer(files, f.tokenizer.data(), f.tokenizer.size()) == TFP_OK);
  REQUIRE(tfp_model_files_set_name(files, "fixture") == TFP_OK);
  tfp_model* m = nullptr;
  const int status = tfp_model_load(files, &m);
  CHECK(tfp_model_files_weights(files) == nullptr);  // taken over, not copied
  tfp_model_files_free(files);
  INFO(tfp_last_error());
  REQUIRE(status == TFP_OK);
  return m;
}


}  // namespace

TEST_CASE("api model: GPT-2 fixture loads from buffers; info, tokenize, forward equal Hugging Face") {
  const Files f = read_fixture("gpt2_tiny");
  tfp_model* m = load_staged(f);
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(m));
  CHECK(info["family"] == "gpt2");
  CHECK(info["architecture"] == "decoder_only");
  CHECK(info["d_model"] == 16);
  CHECK(info["n_decoder_layers"] == 2);
  CHECK(info["vocab_size"] == 264);
  CHECK(info["eos_token_id"] == 263);
  CHECK(info["tokenizer"]["special"]["eos"].get<int>() >= -1);
  CHECK(info["source"] == "fixture");

  const nlohmann::json want = testing::read_json(testing::checkpoint_dir("gpt2_tiny") + "/expected.json");
  const std::vector<int32_t> ids = testing::json_list<int32_t>(want["input_ids"]);
  Tensors r;
  REQUIRE(tfp_model_forward(m,
                            tfp::testing::params(tfp_forward_params{
                                .ids = ids.data(), .n = static_cast<int>(ids.size()), .want_attention = 1}),
                            &r.list) == TFP_OK);
  CHECK(testing::max_abs_diff(r.get("logits"), want["logits"]) < 1e-4);
  CHECK(testing::max_abs_diff(r.get("hidden"), want["hidden"]) < 1e-4);
  {  // The per-token summaries the page shows: each hidden row's length, each row's top logit.
    const TensorView hidden = r.get("hidden"), logits = r.get("logits");
    const TensorView norm = r.get("hidden_norm"), best = r.get("argmax");
    const int64_t T = hidden.shape[0], C = hidden.shape[1], V = logits.shape[1];
    REQUIRE(norm.shape == Shape{T});
    REQUIRE(best.shape == Shape{T});
    for (int64_t t = 0; t < T; ++t) {
      double ss = 0;
      for (int64_t c = 0; c < C; ++c) ss += double(hidden.data[t * C + c]) * hidden.data[t * C + c];
      CHECK(norm.data[t] == doctest::Approx(std::sqrt(ss)).epsilon(1e-6));
      int64_t top = 0;
      for (int64_t v = 1; v < V; ++v)
        if (logits.data[t * V + v] > logits.data[t * V + top]) top = v;
      CHECK(best.data[t] == float(top));
    }
  }
  for (int layer = 0; layer < 2; ++layer) {
    const TensorView p = r.get(("dec." + std::to_string(layer) + ".attn.probs").c_str());
    CHECK(testing::max_abs_diff(p, want["attentions"][layer]) < 1e-4);
    const int64_t H = p.shape[0], T = p.shape[1];
    for (int64_t row = 0; row < H * T; ++row) {
      double s = 0;
      for (int64_t j = 0; j < T; ++j) s += p.data[row * T + j];
      CHECK(std::fabs(s - 1) < 1e-5);
    }
  }

  // Tokenising through the API equals the engine's tokenizer.
  const std::string text = "Hello wörld, hello!";
  tfp_encoding* e = nullptr;
  REQUIRE(tfp_model_tokenize(m, text.data(), text.size(), 1, &e) == TFP_OK);
  const model::LoadedModel direct = model::load_model_dir(testing::checkpoint_dir("gpt2_tiny"));
  const Encoding want_enc = direct.tokenizer->encode(text);
  REQUIRE(tfp_encoding_count(e) == static_cast<int>(want_enc.size()));
  for (size_t i = 0; i < want_enc.size(); ++i) {
    CHECK(tfp_encoding_ids(e)[i] == want_enc.ids[i]);
    CHECK(tfp_encoding_offsets_utf16(e)[2 * i] == static_cast<int32_t>(want_enc.offsets_utf16[i].begin));
    CHECK(tfp_encoding_offsets_utf16(e)[2 * i + 1] == static_cast<int32_t>(want_enc.offsets_utf16[i].end));
  }
  CHECK(nlohmann::json::parse(tfp_encoding_tokens_json(e)).get<std::vector<std::string>>() == want_enc.tokens);
  CHECK(std::string(tfp_model_decode(m, tfp_encoding_ids(e), tfp_encoding_count(e), 1)) == text);
  tfp_encoding_free(e);
  tfp_model_free(m);
}

TEST_CASE("api model: logits_last and tfp_model_logits give the full pass's logits in parts") {
  for (const char* fixture : {"gpt2_tiny", "gpt2_tiny_lmhead_f16", "bert_mlm_tiny"}) {
    CAPTURE(fixture);
    const Files f = read_fixture(fixture);
    tfp_model* m = load_staged(f);
    const bool encoder = std::string(fixture) == "bert_mlm_tiny";
    const std::vector<int32_t> ids = {5, 17, 22, 9, 3, 7};
    const int T = static_cast<int>(ids.size());
    Tensors all;
    REQUIRE(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids.data(), .n = T}), &all.list) == TFP_OK);
    const TensorView full = all.get("logits"), hidden = all.get("hidden");
    const int64_t V = full.shape[1];
    for (const int k : {1, 2, 6, 9}) {  // the last k rows (9 > T: every row)
      CAPTURE(k);
      Tensors part;
      REQUIRE(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids.data(), .n = T, .logits_last = k}),
                                &part.list) == TFP_OK);
      const TensorView l = part.get("logits"), best = part.get("argmax");
      const int64_t n = std::min(k, T);
      REQUIRE(l.shape == Shape{n, V});
      REQUIRE(best.shape == Shape{n});
      // fewer rows may take the GEMV instead of the GEMM: the same sums in another order
      float diff = 0;
      for (int64_t i = 0; i < n * V; ++i) diff = std::max(diff, std::fabs(l.data[i] - full.data[(T - n) * V + i]));
      CHECK(diff <= 1e-5f);
      CHECK(best.data[n - 1] == all.get("argmax").data[T - 1]);
    }
    Tensors none;
    REQUIRE(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids.data(), .n = T, .logits_last = -1}),
                              &none.list) == TFP_OK);
    CHECK(tfp_tensors_find(none.list, "logits") < 0);
    CHECK(tfp_tensors_find(none.list, "argmax") < 0);
    CHECK(std::memcmp(none.get("hidden").data, hidden.data, sizeof(float) * hidden.numel()) == 0);
    CHECK(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids.data(), .n = T, .logits_last = -2}),
                            &none.list) == TFP_ERR_INVALID_ARGUMENT);
    CHECK(std::string(tfp_last_error()).find("logits_last must be -1") != std::string::npos);

    std::vector<float> out(static_cast<size_t>(T * V), -1.0f);
    if (encoder) {  // a masked-LM head is not an LM head: its logits come from the forward pass
      CHECK(tfp_model_logits(m, hidden.data, T, 0, static_cast<int>(V), out.data()) == TFP_ERR_INVALID_ARGUMENT);
      CHECK(std::string(tfp_last_error()).find("has no LM head") != std::string::npos);
      tfp_model_free(m);
      continue;
    }
    // The vocabulary in uneven blocks, every row at once: the same logits as the full pass.
    std::vector<float> block;
    for (int v0 = 0; v0 < V;) {
      const int v1 = std::min(static_cast<int>(V), v0 + 37 + v0 % 5);
      block.assign(static_cast<size_t>(T * (v1 - v0)), 0.0f);
      REQUIRE(tfp_model_logits(m, hidden.data, T, v0, v1, block.data()) == TFP_OK);
      for (int t = 0; t < T; ++t)
        std::copy_n(block.data() + t * (v1 - v0), v1 - v0, out.data() + t * V + v0);
      v0 = v1;
    }
    float diff = 0;
    for (int64_t i = 0; i < T * V; ++i) diff = std::max(diff, std::fabs(out[static_cast<size_t>(i)] - full.data[i]));
    CHECK(diff <= 1e-6f);
    CHECK(tfp_model_logits(m, hidden.data, T, 5, 5, out.data()) == TFP_ERR_INVALID_ARGUMENT);
    CHECK(std::string(tfp_last_error()) == "tfp_model_logits: the vocabulary range [5, 5) is not inside [0, " +
                                               std::to_string(V) + ")");
    CHECK(tfp_model_logits(m, hidden.data, T, 0, static_cast<int>(V) + 1, out.data()) == TFP_ERR_INVALID_ARGUMENT);
    CHECK(tfp_model_logits(m, nullptr, T, 0, 1, out.data()) == TFP_ERR_INVALID_ARGUMENT);
    CHECK(tfp_model_logits(m, hidden.data, 0, 0, 1, out.data()) == TFP_ERR_INVALID_ARGUMENT);
    CHECK(tfp_model_logits(nullptr, hidden.data, T, 0, 1, out.data()) != TFP_OK);
    CHECK(tfp_model_logits(m, hidden.data, 1, 0, 1, out.data()) == TFP_OK);  // still usable
    tfp_model_free(m);
  }
}

TEST_CASE("api model: BERT fixture with token types and a padding mask equals the engine") {
  const Files f = read_fixture("bert_tiny");
  tfp_model* m = load_staged(f);
  const nlohmann::json want = testing::read_json(testing::checkpoint_dir("bert_tiny") + "/expected.json");
  const std::vector<int32_t> ids = testing::json_list<int32_t>(want["input_ids"]);
  const int n = static_cast<int>(ids.size());
  std::vector<int32_t> types(ids.size(), 0), mask(ids.size(), 1);
  for (size_t i = ids.size() / 2; i < ids.size(); ++i) types[i] = 1;
  mask.back() = 0;
  Tensors r;
  REQUIRE(tfp_model_forward(m,
                            tfp::testing::params(tfp_forward_params{.ids = ids.data(),
                                                                    .n = n,
                                                                    .token_type_ids = types.data(),
                                                                    .attention_mask = mask.data(),
                                                                    .want_attention = 1}),
                            &r.list) == TFP_OK);
  const model::LoadedModel direct = model::load_model_dir(testing::checkpoint_dir("bert_tiny"));
  std::vector<uint8_t> padding(ids.size(), 0);
  padding.back() = 1;
  const model::ForwardResult d = model::forward_encoder_only(direct.config(), direct.weights(), ids, types, padding);
  const TensorView h = r.get("hidden");
  REQUIRE(h.shape == d.hidden.shape);
  for (int64_t i = 0; i < h.numel(); ++i) CHECK(h.data[i] == d.hidden.data[static_cast<size_t>(i)]);
  const TensorView p = r.get("enc.0.attn.probs");
  CHECK(p.shape == Shape{direct.config().n_heads, n, n});
  for (int64_t row = 0; row < p.shape[0] * n; ++row) CHECK(p.data[row * n + n - 1] == 0.0f);  // padded key
  tfp_model_free(m);
}

TEST_CASE("api model: bad inputs give a status and a message, and the model stays usable") {
  const Files f = read_fixture("gpt2_tiny");
  tfp_model* m = load_staged(f);
  Tensors r;
  const std::vector<int32_t> too_long(33, 5);  // context is 32
  CHECK(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = too_long.data(), .n = 33}), &r.list) ==
        TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("32") != std::string::npos);
  const int32_t bad_id[2] = {5, 264};
  CHECK(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = bad_id, .n = 2}), &r.list) ==
        TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("264") != std::string::npos);
  CHECK(r.list == nullptr);
  tfp_encoding* e = nullptr;
  const char invalid[] = "ok \xC3\x28";
  CHECK(tfp_model_tokenize(m, invalid, 5, 1, &e) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("UTF-8") != std::string::npos);
  CHECK(tfp_model_forward(nullptr, tfp::testing::params(tfp_forward_params{.ids = bad_id, .n = 1}), &r.list) ==
        TFP_ERR_INVALID_ARGUMENT);
  const int32_t ok[2] = {5, 6};
  CHECK(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ok, .n = 2}), &r.list) == TFP_OK);
  tfp_model_free(m);

  // Truncated weights, malformed tokenizer.json: errors that name the file.
  Files cut = f;
  cut.weights.resize(cut.weights.size() / 2);
  tfp_model* none = nullptr;
  CHECK(tfp_model_load_buffers(cut.config.data(), cut.config.size(), cut.weights.data(), cut.weights.size(), nullptr, 0,
                               "cut", &none) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("cut/model.safetensors") != std::string::npos);
  CHECK(none == nullptr);
  const std::string broken = f.tokenizer.substr(0, f.tokenizer.size() / 3);
  CHECK(tfp_model_load_buffers(f.config.data(), f.config.size(), f.weights.data(), f.weights.size(), broken.data(),
                               broken.size(), "tk", &none) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("tokenizer.json") != std::string::npos);
  // Staged files are single-use.
  tfp_model_files* files = nullptr;
  REQUIRE(tfp_model_files_create(4, &files) == TFP_OK);
  CHECK(tfp_model_load(files, &none) == TFP_ERR_ENGINE);  // empty config
  CHECK(tfp_model_load(files, &none) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("already loaded") != std::string::npos);
  tfp_model_files_free(files);
}

TEST_CASE("api model: a buffer too large for memory is TFP_ERR_OUT_OF_MEMORY, not an abort") {
  tfp_model_files* files = nullptr;
  // Larger than any address space the tests run in (wasm32: 4 GiB; native: max_size).
  const size_t huge = sizeof(size_t) == 4 ? size_t{0xFFFFFFF0u} : (size_t{1} << 62);
  CHECK(tfp_model_files_create(huge, &files) == TFP_ERR_OUT_OF_MEMORY);
  CHECK(files == nullptr);
  CHECK(std::string(tfp_last_error()).find("out of memory") != std::string::npos);
  REQUIRE(tfp_model_files_create(16, &files) == TFP_OK);
  tfp_model_files_free(files);
}
