// Hugging Face GPT-2 and BERT checkpoints against golden outputs.
// Oracle: tests/fixtures/gen_checkpoints.py — HF semantics re-implemented in plain torch,
// float64, from the very weights in the file (F16 files: from the F16-rounded weights).
// Tolerance: max abs error 1e-4 on logits, hidden states and attention probabilities
// (our f32 accumulation vs a float64 reference; observed ~1e-6). The F16 files are also
// compared with the F32 golden outputs, with the loss that F16 storage causes stated.
#include <doctest/doctest.h>

#include "nn/observer.h"
#include "io/file.h"
#include "model/model.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;
using tfp::testing::checkpoint_dir;
using tfp::testing::max_abs_diff;
using tfp::testing::read_json;

namespace {

struct Run {
  ForwardResult result;
  nn::RecordingObserver obs{{"*.attn.probs"}};
};

void check_attentions(const nn::RecordingObserver& obs, const nlohmann::json& expected, const char* stack,
                      double tol) {
  for (size_t l = 0; l < expected.size(); ++l) {
    const std::string name = std::string(stack) + "." + std::to_string(l) + ".attn.probs";
    REQUIRE(obs.has(name));
    CAPTURE(name);
    CHECK(max_abs_diff(obs.get(name), expected[l]) < tol);
  }
}

}  // namespace

TEST_CASE("checkpoint: GPT-2 (GPT2Model names, F32) matches HF semantics") {
  const LoadedModel m = load_model_dir(checkpoint_dir("gpt2_tiny"));
  CHECK(m.family == CheckpointFamily::gpt2);
  CHECK(m.config().architecture == Architecture::decoder_only);
  CHECK(m.report.unused_allowed.empty());
  CHECK(m.report.ignored.empty());
  CHECK(m.report.bound == 2 + 2 * 12 + 2);
  // Conv1D weights (in, out) are transposed to (out, in) inside the file's own bytes
  // (model/weight_layout.h), not copied.
  const nn::Linear& qkv = m.weights().decoder_layers[0].attn.qkv;
  CHECK(qkv.layout == nn::WeightLayout::OutIn);
  CHECK(qkv.weight.shape == Shape{48, 16});
  CHECK(m.tensors->f32_in_place("h.0.attn.c_attn.weight"));
  CHECK(qkv.weight.data == m.tensors->f32("h.0.attn.c_attn.weight").data);
  const io::SafeTensors file = io::SafeTensors::parse(io::read_file(checkpoint_dir("gpt2_tiny") + "/model.safetensors"));
  const TensorView stored = file.f32("h.0.attn.c_attn.weight");  // (in 16, out 48)
  REQUIRE(stored.shape == Shape{16, 48});
  int differ = 0;
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t o = 0; o < 48; ++o) differ += qkv.weight.data[o * 16 + i] != stored.data[i * 48 + o];
  CHECK(differ == 0);
  REQUIRE(m.tokenizer != nullptr);
  CHECK(m.eos_token_id == 263);

  const nlohmann::json want = read_json(checkpoint_dir("gpt2_tiny") + "/expected.json");
  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  nn::RecordingObserver obs({"*.attn.probs"});
  const ForwardResult r = forward_decoder_only(m.config(), m.weights(), ids, &obs);
  CHECK(max_abs_diff(r.logits, want["logits"]) < 1e-4);
  CHECK(max_abs_diff(r.hidden, want["hidden"]) < 1e-4);
  check_attentions(obs, want["attentions"], "dec", 1e-4);
}

TEST_CASE("checkpoint: GPT-2 (GPT2LMHeadModel names, F16, tied head and mask buffers)") {
  const LoadedModel m = load_model_dir(checkpoint_dir("gpt2_tiny_lmhead_f16"));
  // lm_head.weight is the tied copy of wte: allowed, unused. attn.bias / attn.masked_bias
  // are the causal-mask buffers: ignored.
  CHECK(m.report.unused_allowed == std::vector<std::string>{"lm_head.weight"});
  CHECK(m.report.ignored.size() == 4);
  CHECK_FALSE(m.tensors->f32_in_place("transformer.wte.weight"));  // F16 → converted copy

  const nlohmann::json want = read_json(checkpoint_dir("gpt2_tiny_lmhead_f16") + "/expected.json");
  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  nn::RecordingObserver obs({"*.attn.probs"});
  const ForwardResult r = forward_decoder_only(m.config(), m.weights(), ids, &obs);
  CHECK(max_abs_diff(r.logits, want["logits"]) < 1e-4);
  check_attentions(obs, want["attentions"], "dec", 1e-4);

  // Against the F32 model's outputs: F16 storage (11-bit significands, weights up to ~1)
  // moves logits by up to a few 1e-3 here; 2e-2 bounds it with margin.
  const nlohmann::json f32 = read_json(checkpoint_dir("gpt2_tiny") + "/expected.json");
  const double d = max_abs_diff(r.logits, f32["logits"]);
  MESSAGE("GPT-2 F16 vs F32 golden logits, max abs diff: ", d);
  CHECK(d < 2e-2);
  CHECK(d > 0.0);  // the F16 file really holds rounded values
}

TEST_CASE("checkpoint: BERT (BertForMaskedLM names, F32) with token types and padding") {
  const LoadedModel m = load_model_dir(checkpoint_dir("bert_tiny"));
  CHECK(m.family == CheckpointFamily::bert);
  CHECK_FALSE(m.config().fused_qkv);
  // The cls.predictions head (5 tensors) is bound: the model is a masked LM (its logits
  // are checked on bert_mlm_tiny, test_checkpoint_mlm.cpp); the pooler (2) is
  // unused-but-allowed; position_ids is an I64 buffer, ignored.
  CHECK(m.config().encoder_head == EncoderHead::masked_lm);
  CHECK(m.report.unused_allowed ==
        std::vector<std::string>{"bert.pooler.dense.bias", "bert.pooler.dense.weight"});
  CHECK(m.report.ignored == std::vector<std::string>{"bert.embeddings.position_ids"});

  const nlohmann::json want = read_json(checkpoint_dir("bert_tiny") + "/expected.json");
  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  const auto types = want["token_type_ids"].get<std::vector<int32_t>>();
  std::vector<uint8_t> padding;
  for (int a : want["attention_mask"].get<std::vector<int>>()) padding.push_back(a ? 0 : 1);
  nn::RecordingObserver obs({"*.attn.probs"});
  const ForwardResult r = forward_encoder_only(m.config(), m.weights(), ids, types, padding, &obs);
  CHECK(r.logits.shape == Shape{static_cast<int64_t>(ids.size()), m.config().vocab_size});
  // Every row, padding rows included: HF masks only keys (see gen_checkpoints.py).
  CHECK(max_abs_diff(r.hidden, want["hidden"]) < 1e-4);
  check_attentions(obs, want["attentions"], "enc", 1e-4);
  // Padded keys get exactly zero attention from every query.
  const Tensor& p = obs.get("enc.1.attn.probs");
  const int64_t T = static_cast<int64_t>(ids.size());
  for (int64_t h = 0; h < 4; ++h)
    for (int64_t q = 0; q < T; ++q) CHECK(p.data[static_cast<size_t>((h * T + q) * T + T - 1)] == 0.0f);
}

TEST_CASE("checkpoint: BERT (BertModel names, LayerNorm gamma/beta, F16)") {
  const LoadedModel m = load_model_dir(checkpoint_dir("bert_tiny_f16"));
  CHECK(m.report.unused_allowed.empty());
  const nlohmann::json want = read_json(checkpoint_dir("bert_tiny_f16") + "/expected.json");
  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  const auto types = want["token_type_ids"].get<std::vector<int32_t>>();
  std::vector<uint8_t> padding;
  for (int a : want["attention_mask"].get<std::vector<int>>()) padding.push_back(a ? 0 : 1);
  nn::RecordingObserver obs({"*.attn.probs"});
  const ForwardResult r = forward_encoder_only(m.config(), m.weights(), ids, types, padding, &obs);
  CHECK(max_abs_diff(r.hidden, want["hidden"]) < 1e-4);
  check_attentions(obs, want["attentions"], "enc", 1e-4);
  // Against the F32 golden: post-LN hidden states of unit scale move by ~1e-3 with F16
  // weights; 2e-2 bounds it.
  const nlohmann::json f32 = read_json(checkpoint_dir("bert_tiny") + "/expected.json");
  const double d = max_abs_diff(r.hidden, f32["hidden"]);
  MESSAGE("BERT F16 vs F32 golden hidden, max abs diff: ", d);
  CHECK(d < 2e-2);
}

TEST_CASE("checkpoint: loading from in-memory buffers equals loading the folder") {
  const std::string dir = checkpoint_dir("gpt2_tiny");
  ModelFiles files;
  files.name = "dropped";
  files.config_json = io::read_text_file(dir + "/config.json");
  files.safetensors = io::read_file(dir + "/model.safetensors");
  files.tokenizer_json = io::read_text_file(dir + "/tokenizer.json");
  const LoadedModel a = load_model(std::move(files));
  const LoadedModel b = load_model_dir(dir);
  CHECK(a.tensors->source() == "dropped/model.safetensors");
  const std::vector<int32_t> ids{1, 2, 3, 256, 263};
  const ForwardResult ra = forward_decoder_only(a.config(), a.weights(), ids);
  const ForwardResult rb = forward_decoder_only(b.config(), b.weights(), ids);
  CHECK(ra.logits.data == rb.logits.data);
  // The model outlives a move (views point into the shared buffer).
  LoadedModel moved = load_model_dir(dir);
  LoadedModel c = std::move(moved);
  CHECK(forward_decoder_only(c.config(), c.weights(), ids).logits.data == rb.logits.data);
}

TEST_CASE("checkpoint: our own format round-trips (config_to_json + weights by role)") {
  const LoadedModel gpt2 = load_model_dir(checkpoint_dir("gpt2_tiny"));
  for (io::DType dt : {io::DType::F32, io::DType::BF16}) {
    ModelFiles files;
    files.name = "roundtrip";
    files.config_json = config_to_json(gpt2.config());
    files.safetensors = save_weights_by_role(gpt2.config(), gpt2.weights(), dt);
    const LoadedModel ours = load_model(std::move(files));
    CHECK(ours.family == CheckpointFamily::tfp);
    CHECK(ours.config().family == "gpt2");
    CHECK(ours.config().layer_norm_eps == gpt2.config().layer_norm_eps);
    // Conv1D weights were transposed to (out, in) on save.
    CHECK(ours.weights().decoder_layers[1].ffn.fc1.layout == nn::WeightLayout::OutIn);
    const std::vector<int32_t> ids{5, 9, 256, 100, 3};
    const ForwardResult a = forward_decoder_only(gpt2.config(), gpt2.weights(), ids);
    const ForwardResult b = forward_decoder_only(ours.config(), ours.weights(), ids);
    double worst = 0;
    for (size_t i = 0; i < a.logits.data.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::fabs(a.logits.data[i] - b.logits.data[i])));
    // F32: same weights, same sums up to matmul layout (1e-5). BF16: 8-bit significands
    // move logits of magnitude ~5 by up to ~0.1.
    CHECK(worst < (dt == io::DType::F32 ? 1e-5 : 0.2));
  }
}
