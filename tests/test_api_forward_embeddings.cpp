// Models that read vectors through the C API: tfp_model_forward_embeddings,
// tfp_model_attention_steps_embeddings, tfp_sinusoidal_positions and the words fallback
// of tfp_model_tokenize, on the PyTorch nn.Transformer* fixtures.
// Oracles:
//   - PyTorch itself: the fixtures' expected.json (tests/fixtures/gen_checkpoints.py,
//     float64 torch modules), max abs 1e-4 as test_checkpoint_torch.cpp — for the two
//     fixtures whose masks the API expresses (causal + key padding);
//   - the C++ model forward (model::run_torch on the same TorchInputs, the path
//     test_checkpoint_torch.cpp checks against torch): the API adds no maths, so its
//     results equal it to 1e-6 (the causal flag and PyTorch's float causal mask both put
//     -inf above the diagonal; measured 0);
//   - the drill-down's softmax row equals the forward pass's probs row (1e-6, as
//     test_inspect_attention_steps.cpp);
//   - model::sinusoidal_positions exactly, and sin/cos by hand for PE[1] (1e-6);
//   - the words split spelled out by hand;
//   - under a head mask: zeroing head h of a block equals the same checkpoint with the
//     columns [h*D, (h+1)*D) of that block's out_proj.weight zeroed (rebuilt here with
//     io::SafeTensorsWriter): out_proj reads the concatenated heads, so those columns are
//     all head h reaches the residual through; the bias stays, as the mask leaves it.
//     Different sums (a zero factor vs zero weights), 1e-5.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "api/tfp_inspect_api.h"
#include "nn/observer.h"
#include "io/file.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "model/torch_inputs.h"
#include "model/transformer.h"
#include "test_api_params.h"
#include "test_api_tensors.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;

using testing::Tensors;

namespace {

struct Fixture {
  tfp_model* api = nullptr;
  LoadedModel direct;
  TorchInputs in;
  nlohmann::json want;
  ~Fixture() { tfp_model_free(api); }
};

// The fixture through tfp_model_load_buffers (no tokenizer.json, as a user's folder) and
// through the C++ loader, with batch item 0 of its inputs.safetensors.
void open_fixture(const std::string& name, Fixture& f) {
  const std::string dir = testing::checkpoint_dir(name);
  f.api = testing::open_through_api(dir, name, false);
  f.direct = load_model_dir(dir);
  const io::SafeTensors inputs = io::SafeTensors::load(dir + "/inputs.safetensors");
  f.in = torch_inputs(f.direct.config(), f.direct.family, inputs, 0);
  f.want = testing::read_json(dir + "/expected.json");
}

const uint8_t* opt(const std::vector<uint8_t>& v) { return v.empty() ? nullptr : v.data(); }
int rows_of(const Tensor& t) { return t.empty() ? 0 : static_cast<int>(t.dim(0)); }

double max_diff(const TensorView& a, const TensorView& b) {
  REQUIRE(a.shape == b.shape);
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(a.data[i]) - static_cast<double>(b.data[i])));
  return worst;
}

// The API's forward on the fixture's inputs: src is src (or memory for a bare decoder).
int forward(const Fixture& f, const Tensor& src, int flags, Tensors& out, const std::vector<uint8_t>& src_pad) {
  return tfp_model_forward_embeddings(
      f.api,
      tfp::testing::params(tfp_embeddings_params{.C = 16,
                                                 .src = src.data.data(),
                                                 .S = rows_of(src),
                                                 .tgt = f.in.tgt.empty() ? nullptr : f.in.tgt.data.data(),
                                                 .T = rows_of(f.in.tgt),
                                                 .src_padding = opt(src_pad),
                                                 .tgt_padding = opt(f.in.masks.tgt_key_padding),
                                                 .flags = flags}),
      &out.list);
}

// Every record of `obs` equals the API's tensor of that name (1e-6), and the API's every
// probs tensor was recorded.
void check_against(const nn::RecordingObserver& obs, const Tensors& r) {
  int probs = 0;
  for (const auto& rec : obs.records()) {
    const std::string& name = rec.first;  // (not a structured binding: CAPTURE is a lambda)
    CAPTURE(name);
    CHECK(max_diff(r.get(name), rec.second.view()) <= 1e-6);
    ++probs;
  }
  CHECK(tfp_tensors_count(r.list) >= probs + 1);
}

// Every row of every head of every block: the drill-down's probs equal the map.
void check_steps(const Fixture& f, const Tensor& src, int flags, const Tensors& r, const std::vector<uint8_t>& src_pad) {
  for (int i = 0; i < tfp_tensors_count(r.list); ++i) {
    const std::string name = tfp_tensors_name(r.list, i);
    if (name.size() < 6 || name.substr(name.size() - 6) != ".probs") continue;
    const std::string set = name.starts_with("enc.") ? "enc" : name.find(".cross.") != std::string::npos ? "cross" : "dec";
    const int layer = std::stoi(name.substr(4));
    const TensorView p = r.get(name);  // (H, Tq, Tk)
    const int64_t H = p.shape[0], Tq = p.shape[1], Tk = p.shape[2];
    for (int h = 0; h < H; ++h) {
      for (int q = 0; q < Tq; ++q) {
        CAPTURE(name);
        CAPTURE(h);
        CAPTURE(q);
        Tensors st;
        const int status = tfp_model_attention_steps_embeddings(
            f.api,
            tfp::testing::params(tfp_embeddings_params{.C = 16,
                                                       .src = src.data.data(),
                                                       .S = rows_of(src),
                                                       .tgt = f.in.tgt.empty() ? nullptr : f.in.tgt.data.data(),
                                                       .T = rows_of(f.in.tgt),
                                                       .src_padding = opt(src_pad),
                                                       .tgt_padding = opt(f.in.masks.tgt_key_padding),
                                                       .flags = flags}),
            set.c_str(), layer, h, q, &st.list);
        INFO(tfp_last_error());
        REQUIRE(status == TFP_OK);
        const TensorView row = st.get("probs");
        REQUIRE(row.numel() == Tk);
        double worst = 0;
        for (int64_t j = 0; j < Tk; ++j)
          worst = std::max(worst, std::fabs(static_cast<double>(row.data[j]) - p.data[(h * Tq + q) * Tk + j]));
        CHECK(worst <= 1e-6);
      }
    }
  }
}

std::string error_of(int status) {
  CHECK(status != TFP_OK);
  return tfp_last_error();
}

// The fixture's model.safetensors with head `head` of one block cut out of its output
// projection: out_proj.weight is (C_out, C_in) and y = x W^T + b, so input columns
// [head*D, (head+1)*D) are the ones that read head `head` of the concatenated heads.
std::vector<uint8_t> without_head(const std::string& name, const std::string& proj, int head, int D) {
  const io::SafeTensors st = io::SafeTensors::load(testing::checkpoint_dir(name) + "/model.safetensors");
  io::SafeTensorsWriter w;
  bool found = false;
  for (const io::TensorEntry& e : st.entries()) {
    const TensorView v = st.f32(e);
    Tensor t(v.shape, std::vector<float>(v.data, v.data + v.numel()));
    if (e.name == proj) {
      found = true;
      REQUIRE(t.rank() == 2);
      for (int64_t i = 0; i < t.dim(0); ++i)
        for (int j = head * D; j < (head + 1) * D; ++j) t.row(i)[j] = 0.0f;
    }
    w.add_f32(e.name, t);
  }
  REQUIRE_MESSAGE(found, proj);
  return w.finish();
}

tfp_model* load_with(const std::string& name, const std::vector<uint8_t>& weights) {
  return testing::open_through_api(testing::checkpoint_dir(name), name, false, &weights);
}

}  // namespace

TEST_CASE("api embeddings: nn.Transformer (causal tgt, source padding) equals PyTorch and the C++ forward") {
  Fixture f;
  open_fixture("torch_transformer", f);
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(f.api));
  CHECK(info["has_embeddings"] == false);
  CHECK(info["tokenizer"].is_null());
  CHECK(info["tokenizer_fallback"] == "words");
  // The fixture's masks are PyTorch's float causal tgt_mask and src/memory key padding:
  // exactly what TFP_EMBED_CAUSAL_TGT and src_padding say.
  REQUIRE(f.in.masks.tgt_mask.numel() == 25);
  CHECK(std::isinf(f.in.masks.tgt_mask.data[1]));
  REQUIRE(f.in.masks.src_key_padding == f.in.masks.memory_key_padding);
  Tensors r;
  REQUIRE(forward(f, f.in.src, TFP_EMBED_CAUSAL_TGT, r, f.in.masks.src_key_padding) == TFP_OK);
  CHECK(testing::max_abs_diff(r.get("hidden"), f.want["output"]) < 1e-4);
  CHECK(testing::max_abs_diff(r.get("memory"), f.want["memory"]) < 1e-4);
  // hidden_norm: each row's length, by the definition (double sum, 1e-5 relative).
  const TensorView h = r.get("hidden"), norm = r.get("hidden_norm");
  REQUIRE(norm.shape == Shape{5});
  for (int t = 0; t < 5; ++t) {
    double ss = 0;
    for (int j = 0; j < 16; ++j) ss += static_cast<double>(h.data[t * 16 + j]) * h.data[t * 16 + j];
    CHECK(std::fabs(norm.data[t] - std::sqrt(ss)) <= 1e-5 * std::sqrt(ss));
  }
  for (auto it = f.want["attentions"].begin(); it != f.want["attentions"].end(); ++it) {
    CAPTURE(it.key());
    CHECK(testing::max_abs_diff(r.get(it.key()), it.value()) < 1e-4);
  }
  nn::RecordingObserver obs({"*.probs"});
  const TorchResult direct = run_torch(f.direct.config(), f.direct.weights(), f.direct.family, f.in, &obs);
  CHECK(max_diff(r.get("hidden"), direct.output.view()) <= 1e-6);
  CHECK(max_diff(r.get("memory"), direct.memory.view()) <= 1e-6);
  check_against(obs, r);
  CHECK(obs.records().size() == 6);  // enc.0-1.attn, dec.0-1.attn, dec.0-1.cross
  check_steps(f, f.in.src, TFP_EMBED_CAUSAL_TGT, r, f.in.masks.src_key_padding);

  // Without the flag the decoder sees the future: a different pass, still the C++ one.
  TorchInputs open = f.in;
  open.masks.tgt_mask = {};
  Tensors r2;
  REQUIRE(forward(f, f.in.src, 0, r2, f.in.masks.src_key_padding) == TFP_OK);
  const TorchResult direct2 = run_torch(f.direct.config(), f.direct.weights(), f.direct.family, open);
  CHECK(max_diff(r2.get("hidden"), direct2.output.view()) <= 1e-6);
  CHECK(r2.get("dec.0.attn.probs").data[1] > 0.0f);  // query 0 now sees key 1
}

TEST_CASE("api embeddings: bare nn.TransformerDecoder (src is its memory) equals PyTorch and the C++ forward") {
  Fixture f;
  open_fixture("torch_decoder", f);
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(f.api));
  CHECK(info["architecture"] == "encoder_decoder");
  CHECK(info["n_encoder_layers"] == 0);
  // BOOL causal tgt_mask (= TFP_EMBED_CAUSAL_TGT), BOOL tgt padding, no memory padding.
  REQUIRE(f.in.masks.memory_key_padding.empty());
  Tensors r;
  REQUIRE(forward(f, f.in.memory, TFP_EMBED_CAUSAL_TGT, r, {}) == TFP_OK);
  CHECK(testing::max_abs_diff(r.get("hidden"), f.want["output"]) < 1e-4);
  CHECK_FALSE(r.has("memory"));
  for (auto it = f.want["attentions"].begin(); it != f.want["attentions"].end(); ++it) {
    CAPTURE(it.key());
    CHECK(testing::max_abs_diff(r.get(it.key()), it.value()) < 1e-4);
  }
  nn::RecordingObserver obs({"*.probs"});
  const TorchResult direct = run_torch(f.direct.config(), f.direct.weights(), f.direct.family, f.in, &obs);
  CHECK(max_diff(r.get("hidden"), direct.output.view()) <= 1e-6);
  check_against(obs, r);
  CHECK(obs.records().size() == 4);
  check_steps(f, f.in.memory, TFP_EMBED_CAUSAL_TGT, r, {});

  // It has no encoder: "enc" is not a set, and TFP_EMBED_CAUSAL_SRC names why.
  Tensors st;
  CHECK(error_of(tfp_model_attention_steps_embeddings(
            f.api,
            tfp::testing::params(tfp_embeddings_params{
                .C = 16, .src = f.in.memory.data.data(), .S = 7, .tgt = f.in.tgt.data.data(), .T = 5}),
            "enc", 0, 0, 0, &st.list)) ==
        "tfp_model_attention_steps_embeddings: set \"enc\" does not exist in this encoder_decoder model (valid: "
        "\"dec\", \"cross\")");
  CHECK(error_of(forward(f, f.in.memory, TFP_EMBED_CAUSAL_SRC, st, {})) ==
        "tfp_model_forward_embeddings: TFP_EMBED_CAUSAL_SRC: this bare decoder has no encoder (src is its memory, "
        "which has no self-attention)");
}

TEST_CASE("api embeddings: nn.TransformerEncoder (pre-LN) equals the C++ forward, with padding and causal src") {
  Fixture f;
  open_fixture("torch_encoder_prenorm", f);
  // The fixture's golden pass adds a float band src_mask, which this API does not take
  // (the page never makes one): the oracle here is run_torch on the same inputs without
  // it, and with the causal src_mask that TFP_EMBED_CAUSAL_SRC stands for.
  REQUIRE_FALSE(f.in.masks.src_key_padding.empty());
  for (const int flags : {0, static_cast<int>(TFP_EMBED_CAUSAL_SRC)}) {
    CAPTURE(flags);
    TorchInputs in = f.in;
    in.masks.src_mask = {};
    if (flags) {
      std::vector<uint8_t> future(49, 0);
      for (int i = 0; i < 7; ++i)
        for (int j = i + 1; j < 7; ++j) future[static_cast<size_t>(i * 7 + j)] = 1;
      in.masks.src_mask = bool_mask(future, 7, 7);
    }
    Tensors r;
    REQUIRE(tfp_model_forward_embeddings(
                f.api,
                tfp::testing::params(tfp_embeddings_params{.C = 16,
                                                           .src = f.in.src.data.data(),
                                                           .S = 7,
                                                           .src_padding = f.in.masks.src_key_padding.data(),
                                                           .flags = flags}),
                &r.list) == TFP_OK);
    nn::RecordingObserver obs({"*.probs"});
    const TorchResult direct = run_torch(f.direct.config(), f.direct.weights(), f.direct.family, in, &obs);
    CHECK(r.get("hidden").shape == Shape{7, 16});
    CHECK(max_diff(r.get("hidden"), direct.output.view()) <= 1e-6);
    CHECK_FALSE(r.has("memory"));
    check_against(obs, r);
    CHECK(obs.records().size() == 2);
    // Padded keys (the last two) get nothing; causal rows see no future key.
    const TensorView p = r.get("enc.1.attn.probs");
    CHECK(p.data[5] == 0.0f);
    CHECK(p.data[6] == 0.0f);
    if (flags) CHECK(p.data[1] == 0.0f);
    Tensor src = f.in.src;
    check_steps(f, src, flags, r, f.in.masks.src_key_padding);
  }
}

TEST_CASE("api embeddings: shape, input and flag errors name what is wrong; the model stays usable") {
  Fixture f;
  open_fixture("torch_transformer", f);
  const float* src = f.in.src.data.data();
  const float* tgt = f.in.tgt.data.data();
  Tensors r;
  const char* F = "tfp_model_forward_embeddings";
  auto call = [&](int C, const float* s, int S, const float* t, int T, const uint8_t* sp, const uint8_t* tp, int fl) {
    tfp_tensors_free(r.list);
    r.list = nullptr;
    return tfp_model_forward_embeddings(
        f.api,
        tfp::testing::params(tfp_embeddings_params{
            .C = C, .src = s, .S = S, .tgt = t, .T = T, .src_padding = sp, .tgt_padding = tp, .flags = fl}),
        &r.list);
  };
  CHECK(error_of(call(8, src, 7, tgt, 5, nullptr, nullptr, 0)) ==
        std::string(F) + ": the inputs' rows have C = 8 values but 'torch_transformer' has d_model = 16 (src is (S, "
        "16), tgt (T, 16))");
  CHECK(tfp_tensors_count(r.list) == 0);
  CHECK(error_of(call(16, src, 7, nullptr, 0, nullptr, nullptr, 0)) ==
        std::string(F) + ": this torch_transformer model needs the decoder's input tgt (T, 16) with T >= 1 (T = 0, "
        "tgt is NULL)");
  CHECK(error_of(call(16, src, 0, tgt, 5, nullptr, nullptr, 0)) ==
        std::string(F) + ": src needs at least one row (S = 0)");
  const uint8_t bad_pad[7] = {0, 0, 2, 0, 0, 0, 0};
  CHECK(error_of(call(16, src, 7, tgt, 5, bad_pad, nullptr, 0)) ==
        std::string(F) + ": src_padding[2] is 2 (1 = padding, 0 = real token)");
  CHECK(error_of(call(16, src, 7, tgt, 5, nullptr, nullptr, 4)) ==
        std::string(F) + ": unknown flag bits 4 (known: TFP_EMBED_CAUSAL_SRC = 1, TFP_EMBED_CAUSAL_TGT = 2)");
  std::vector<float> nan_src(f.in.src.data);
  nan_src[3 * 16 + 2] = std::numeric_limits<float>::quiet_NaN();
  CHECK(call(16, nan_src.data(), 7, tgt, 5, nullptr, nullptr, 0) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).starts_with(std::string(F) + ": src[3, 2] is not finite"));
  CHECK(error_of(tfp_model_forward_embeddings(
            f.api, tfp::testing::params(tfp_embeddings_params{.C = 16, .src = src, .S = 7, .tgt = tgt, .T = 5}),
            nullptr)) == std::string(F) + ": out is NULL");

  // The drill-down checks its request first and names the valid range.
  const char* G = "tfp_model_attention_steps_embeddings";
  auto steps = [&](const char* set, int layer, int head, int query) {
    tfp_tensors_free(r.list);
    r.list = nullptr;
    return tfp_model_attention_steps_embeddings(
        f.api,
        tfp::testing::params(
            tfp_embeddings_params{.C = 16, .src = src, .S = 7, .tgt = tgt, .T = 5, .flags = TFP_EMBED_CAUSAL_TGT}),
        set, layer, head, query, &r.list);
  };
  CHECK(error_of(steps("dec", 0, 0, 5)) ==
        std::string(G) + ": query 5 is out of range: the decoder input (tgt) has 5 tokens (0..4)");
  CHECK(error_of(steps("enc", 0, 0, 7)) ==
        std::string(G) + ": query 7 is out of range: the source (src) has 7 tokens (0..6)");
  CHECK(error_of(steps("cross", 2, 0, 0)) ==
        std::string(G) + ": layer 2 is out of range: the model has 2 decoder layers (0..1)");
  CHECK(error_of(steps("self", 0, 0, 0)) ==
        std::string(G) + ": set \"self\" does not exist in this encoder_decoder model (valid: \"enc\", \"dec\", "
        "\"cross\")");
  REQUIRE(steps("cross", 1, 3, 4) == TFP_OK);
  CHECK(r.get("probs").shape == Shape{7});
  CHECK(r.get("k").shape == Shape{7, 4});

  // Encoder-only: no tgt, no decoder flag.
  Fixture e;
  open_fixture("torch_encoder_prenorm", e);
  CHECK(error_of(tfp_model_forward_embeddings(
            e.api, tfp::testing::params(tfp_embeddings_params{.C = 16, .src = src, .S = 7, .tgt = tgt, .T = 5}),
            &r.list)) == std::string(F) + ": an encoder-only model reads src only; tgt must be NULL and T 0 (T = 5)");
  CHECK(error_of(tfp_model_forward_embeddings(
            e.api,
            tfp::testing::params(tfp_embeddings_params{.C = 16, .src = src, .S = 7, .flags = TFP_EMBED_CAUSAL_TGT}),
            &r.list)) ==
        std::string(F) + ": TFP_EMBED_CAUSAL_TGT: an encoder-only model has no decoder (use TFP_EMBED_CAUSAL_SRC)");

  // A token model is sent to tfp_model_forward.
  tfp_model* gpt = testing::open_through_api(testing::checkpoint_dir("gpt2_tiny"), "gpt2", false);
  CHECK(error_of(tfp_model_forward_embeddings(
            gpt, tfp::testing::params(tfp_embeddings_params{.C = 16, .src = src, .S = 7}), &r.list)) ==
        std::string(F) + ": 'gpt2' has token embeddings: it takes token ids (tfp_model_forward), not vectors");
  // ... and it has no words fallback: without tokenizer.json it cannot tokenise.
  tfp_encoding* enc = nullptr;
  CHECK(tfp_model_tokenize(gpt, "a b", 3, 0, &enc) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(nlohmann::json::parse(tfp_model_info_json(gpt))["tokenizer_fallback"].is_null());
  tfp_model_free(gpt);

  // Still usable after every error.
  REQUIRE(call(16, src, 7, tgt, 5, nullptr, nullptr, TFP_EMBED_CAUSAL_TGT) == TFP_OK);
  CHECK(r.get("hidden").shape == Shape{5, 16});
}

TEST_CASE("api embeddings: text of a model without vocabulary is split into words; ids mark equal tokens") {
  Fixture f;
  open_fixture("torch_transformer", f);
  // "Thé cat, the cat猫" : whitespace dropped, ',' and '猫' alone, case kept.
  const std::string text = "Th\xC3\xA9 cat, the cat\xE7\x8C\xAB  ";
  tfp_encoding* e = nullptr;
  REQUIRE(tfp_model_tokenize(f.api, text.data(), text.size(), 1, &e) == TFP_OK);
  REQUIRE(tfp_encoding_count(e) == 6);
  CHECK(nlohmann::json::parse(tfp_encoding_tokens_json(e)) ==
        nlohmann::json({"Th\xC3\xA9", "cat", ",", "the", "cat", "\xE7\x8C\xAB"}));
  const std::vector<int32_t> ids(tfp_encoding_ids(e), tfp_encoding_ids(e) + 6);
  CHECK(ids == std::vector<int32_t>{0, 1, 2, 3, 1, 4});
  // UTF-16 spans: "Thé"=[0,3) "cat"=[4,7) ","=[7,8) "the"=[9,12) "cat"=[13,16) "猫"=[16,17).
  const std::vector<int32_t> u16(tfp_encoding_offsets_utf16(e), tfp_encoding_offsets_utf16(e) + 12);
  CHECK(u16 == std::vector<int32_t>{0, 3, 4, 7, 7, 8, 9, 12, 13, 16, 16, 17});
  const std::vector<int32_t> b(tfp_encoding_offsets_bytes(e), tfp_encoding_offsets_bytes(e) + 4);
  CHECK(b == std::vector<int32_t>{0, 4, 5, 8});  // é is two bytes
  CHECK(tfp_encoding_special_mask(e)[0] == 0);
  tfp_encoding_free(e);
  REQUIRE(tfp_model_tokenize(f.api, " \n", 2, 1, &e) == TFP_OK);
  CHECK(tfp_encoding_count(e) == 0);
  tfp_encoding_free(e);
  CHECK(tfp_model_tokenize(f.api, "a\xFF", 2, 1, &e) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("byte offset 1") != std::string::npos);
}

TEST_CASE("api embeddings: tfp_sinusoidal_positions is the engine's sinusoidal table") {
  const int T = 5, C = 16;
  std::vector<float> out(T * C, -7.0f);
  REQUIRE(tfp_sinusoidal_positions(2, T, C, 0, out.data()) == TFP_OK);
  const Tensor want = sinusoidal_positions(2, T, C);
  CHECK(std::memcmp(out.data(), want.data.data(), out.size() * sizeof(float)) == 0);
  std::vector<float> first(2 * C);
  REQUIRE(tfp_sinusoidal_positions(0, 2, C, 0, first.data()) == TFP_OK);
  // PE[0] = (sin 0, cos 0, ...) = (0, 1, 0, 1, ...); PE[1, 0] = sin(1), PE[1, 1] = cos(1),
  // PE[1, 2] = sin(1 / 10000^(2/16)).
  CHECK(first[0] == 0.0f);
  CHECK(first[1] == 1.0f);
  CHECK(first[C - 1] == 1.0f);
  CHECK(std::fabs(first[C] - std::sin(1.0)) < 1e-6);
  CHECK(std::fabs(first[C + 1] - std::cos(1.0)) < 1e-6);
  CHECK(std::fabs(first[C + 2] - std::sin(1.0 / std::pow(10000.0, 2.0 / 16.0))) < 1e-6);
  // add != 0: x + PE in place (x = 1 everywhere → 1 + PE).
  std::vector<float> x(2 * C, 1.0f);
  REQUIRE(tfp_sinusoidal_positions(0, 2, C, 1, x.data()) == TFP_OK);
  for (int i = 0; i < 2 * C; ++i) CHECK(x[i] == 1.0f + first[i]);
  CHECK(tfp_sinusoidal_positions(0, 0, C, 1, nullptr) == TFP_OK);
  CHECK(error_of(tfp_sinusoidal_positions(0, 2, 0, 0, first.data())) == "tfp_sinusoidal_positions: C must be positive, got 0");
  CHECK(error_of(tfp_sinusoidal_positions(-1, 2, C, 0, first.data())) ==
        "tfp_sinusoidal_positions: pos0 -1 and T 2 must be >= 0");
}

TEST_CASE("api embeddings: the head mask applies (a zeroed head = its out_proj columns zeroed)") {
  Fixture f;
  open_fixture("torch_transformer", f);
  const int D = 16 / 4;  // C / H
  const std::vector<uint8_t> pad = f.in.masks.src_key_padding;
  Tensors plain;
  REQUIRE(forward(f, f.in.src, TFP_EMBED_CAUSAL_TGT, plain, pad) == TFP_OK);

  struct Case { const char* set; int layer, head; const char* proj; };
  const Case cases[] = {
      {"enc", 0, 1, "encoder.layers.0.self_attn.out_proj.weight"},
      {"enc", 1, 3, "encoder.layers.1.self_attn.out_proj.weight"},
      {"dec", 1, 2, "decoder.layers.1.self_attn.out_proj.weight"},
      {"cross", 0, 0, "decoder.layers.0.multihead_attn.out_proj.weight"},
      {"cross", 1, 3, "decoder.layers.1.multihead_attn.out_proj.weight"},
  };
  for (const Case& c : cases) {
    const std::string proj = c.proj;
    CAPTURE(proj);
    CAPTURE(c.head);
    tfp_model* cut = load_with("torch_transformer", without_head("torch_transformer", c.proj, c.head, D));
    float scales[4] = {1, 1, 1, 1};
    scales[c.head] = 0;
    REQUIRE(tfp_model_set_head_mask(f.api, c.set, c.layer, scales, 4) == TFP_OK);
    Tensors masked, want;
    REQUIRE(forward(f, f.in.src, TFP_EMBED_CAUSAL_TGT, masked, pad) == TFP_OK);
    REQUIRE(tfp_model_forward_embeddings(cut,
                                         tfp::testing::params(tfp_embeddings_params{.C = 16,
                                                                                    .src = f.in.src.data.data(),
                                                                                    .S = 7,
                                                                                    .tgt = f.in.tgt.data.data(),
                                                                                    .T = 5,
                                                                                    .src_padding = pad.data(),
                                                                                    .flags = TFP_EMBED_CAUSAL_TGT}),
                                         &want.list) == TFP_OK);
    // Every tensor of the cut model's pass: hidden, hidden_norm, memory, all maps.
    REQUIRE(tfp_tensors_count(masked.list) == tfp_tensors_count(want.list));
    for (int i = 0; i < tfp_tensors_count(want.list); ++i) {
      const std::string name = tfp_tensors_name(want.list, i);
      CAPTURE(name);
      CHECK(max_diff(masked.get(name), want.get(name)) <= 1e-5);
    }
    // The ablation does something (else the equality above says nothing).
    CHECK(max_diff(masked.get("hidden"), plain.get("hidden")) > 1e-3);

    // The drill-down of the last cross-attention block replays the same masked pass:
    // its q (decoder) and k (memory) read what the ablated head changed upstream.
    if (std::string(c.set) != "cross" || c.layer == 0) {
      for (int head = 0; head < 4; ++head) {
        CAPTURE(head);
        Tensors st, st_want;
        REQUIRE(tfp_model_attention_steps_embeddings(
                    f.api,
                    tfp::testing::params(tfp_embeddings_params{.C = 16,
                                                               .src = f.in.src.data.data(),
                                                               .S = 7,
                                                               .tgt = f.in.tgt.data.data(),
                                                               .T = 5,
                                                               .src_padding = pad.data(),
                                                               .flags = TFP_EMBED_CAUSAL_TGT}),
                    "cross", 1, head, 3, &st.list) == TFP_OK);
        REQUIRE(tfp_model_attention_steps_embeddings(
                    cut,
                    tfp::testing::params(tfp_embeddings_params{.C = 16,
                                                               .src = f.in.src.data.data(),
                                                               .S = 7,
                                                               .tgt = f.in.tgt.data.data(),
                                                               .T = 5,
                                                               .src_padding = pad.data(),
                                                               .flags = TFP_EMBED_CAUSAL_TGT}),
                    "cross", 1, head, 3, &st_want.list) == TFP_OK);
        for (const char* n : {"q", "k", "scores", "probs", "out"}) {
          CAPTURE(n);
          CHECK(max_diff(st.get(n), st_want.get(n)) <= 1e-5);
        }
        const TensorView row = st.get("probs"), map = want.get("dec.1.cross.probs");  // (7), (H, 5, 7)
        for (int j = 0; j < 7; ++j) CHECK(std::fabs(row.data[j] - map.data[(head * 5 + 3) * 7 + j]) <= 1e-6);
      }
    }
    REQUIRE(tfp_model_clear_head_mask(f.api) == TFP_OK);
    tfp_model_free(cut);
  }

  // Factor 1 on every head of every block: the model as loaded, exactly.
  const float ones[4] = {1, 1, 1, 1};
  for (const char* set : {"enc", "dec", "cross"})
    for (int layer = 0; layer < 2; ++layer) REQUIRE(tfp_model_set_head_mask(f.api, set, layer, ones, 4) == TFP_OK);
  Tensors same;
  REQUIRE(forward(f, f.in.src, TFP_EMBED_CAUSAL_TGT, same, pad) == TFP_OK);
  REQUIRE(tfp_tensors_count(same.list) == tfp_tensors_count(plain.list));
  for (int i = 0; i < tfp_tensors_count(plain.list); ++i) {
    const std::string name = tfp_tensors_name(plain.list, i);
    CAPTURE(name);
    CHECK(max_diff(same.get(name), plain.get(name)) == 0.0);
  }
  // ... and after a mask is cleared, the unmasked pass again, exactly.
  const float first_off[4] = {0, 1, 1, 1};
  REQUIRE(tfp_model_set_head_mask(f.api, "dec", 0, first_off, 4) == TFP_OK);
  REQUIRE(tfp_model_clear_head_mask(f.api) == TFP_OK);
  Tensors cleared;
  REQUIRE(forward(f, f.in.src, TFP_EMBED_CAUSAL_TGT, cleared, pad) == TFP_OK);
  CHECK(max_diff(cleared.get("hidden"), plain.get("hidden")) == 0.0);
}
