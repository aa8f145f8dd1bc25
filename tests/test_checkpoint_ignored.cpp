// Tensors a family's modeling code ignores (model/names_table.h, each table's `ignored`
// patterns, after Hugging Face's _keys_to_ignore_on_load_* lists and the buffers
// from_pretrained drops): a real checkpoint carrying them loads, gives the same logits as
// the same file without them (bit for bit: the weights are the same bytes), holds no more
// weight memory, and names them in the report and in the info JSON ("ignored_tensors",
// "ignored_tensor_count"). Any other tensor is still refused by name.
//
// The checkpoints are the tiny fixtures with the extra tensors written in here, in the
// dtypes and shapes real files use (BOOL/U8 masks, F32 scalars, I64 ids, F32 tables).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "io/file.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "model/precision.h"
#include "model/transformer.h"
#include "test_checkpoint_util.h"
#include "test_cli_util.h"

using namespace tfp;
using namespace tfp::model;

using tfp::testing::load_error;

namespace {

struct Extra {
  std::string name;
  io::DType dtype;
  Shape shape;
};

std::string fixture(const std::string& which) { return std::string(TFP_FIXTURES_DIR) + "/" + which; }

// The fixture's model.safetensors with the tensors named in `drop` left out and `add` added
// (their bytes a ramp 0, 1, 2, ... mod 251: any dtype, never read), the others as stored.
std::vector<uint8_t> rewritten(const std::string& dir, const std::vector<Extra>& add,
                               const std::vector<std::string>& drop = {}) {
  const io::SafeTensors st = io::SafeTensors::load(dir + "/model.safetensors");
  io::SafeTensorsWriter w;
  for (const io::TensorEntry& e : st.entries()) {
    if (std::find(drop.begin(), drop.end(), e.name) != drop.end()) continue;
    const std::span<const uint8_t> raw = st.bytes(e);
    w.add_raw(e.name, e.dtype, e.shape, raw.data(), raw.size());
  }
  for (const Extra& x : add) {
    std::vector<uint8_t> bytes(static_cast<size_t>(numel_of(x.shape)) * io::dtype_size(x.dtype));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i % 251);
    if (x.dtype == io::DType::BOOL)
      for (uint8_t& b : bytes) b &= 1;
    w.add_raw(x.name, x.dtype, x.shape, bytes.data(), bytes.size());
  }
  return w.finish();
}

ModelFiles files(const std::string& dir, std::vector<uint8_t> weights, Precision p = Precision::stored) {
  ModelFiles f;
  f.name = std::filesystem::path(dir).filename().string();
  f.config_json = io::read_text_file(dir + "/config.json");
  f.safetensors = std::move(weights);
  f.precision = p;
  return f;
}

// The model's logits for a fixed input (ids below every fixture's vocabulary).
Tensor logits_of(const LoadedModel& m) {
  const ModelConfig& c = m.config();
  const std::vector<int32_t> ids{1, 5, 3, 7, 2};
  switch (c.architecture) {
    case Architecture::decoder_only: return forward_decoder_only(c, m.weights(), ids).logits;
    case Architecture::encoder_only: return forward_encoder_only(c, m.weights(), ids).logits;
    case Architecture::encoder_decoder:
      return forward_encoder_decoder(c, m.weights(), ids, std::vector<int32_t>{0, 4, 6}).logits;
  }
  return {};
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> names_of(const std::vector<Extra>& xs) {
  std::vector<std::string> out;
  for (const Extra& x : xs) out.push_back(x.name);
  return sorted(out);
}

// The info JSON of the file opened through the C API, as the page opens it.
nlohmann::json api_info(const std::string& dir, const std::vector<uint8_t>& weights) {
  tfp_model* m = tfp::testing::open_through_api(dir, "ignored", false, &weights);
  const nlohmann::json j = nlohmann::json::parse(tfp_model_info_json(m), nullptr, false);
  tfp_model_free(m);
  REQUIRE(j.is_object());
  return j;
}

// `extras` added to the fixture (which, without them, has none of the ignored tensors
// once `drop` is left out) load, change nothing and are reported.
void check_ignored(const std::string& which, const std::vector<Extra>& extras, const std::vector<std::string>& drop = {}) {
  CAPTURE(which);
  const std::string dir = fixture(which);
  const LoadedModel plain = load_model(files(dir, rewritten(dir, {}, drop)));
  CHECK(plain.report.ignored.empty());
  const std::vector<uint8_t> bytes = rewritten(dir, extras, drop);
  const LoadedModel m = load_model(files(dir, bytes));
  CHECK(sorted(m.report.ignored) == names_of(extras));
  CHECK(m.report.bound == plain.report.bound);
  CHECK(m.report.unused_allowed == plain.report.unused_allowed);
  // The weights hold nothing for them (their bytes stay where the file holds them).
  CHECK(weights_bytes_held(m.config(), const_cast<ModelWeights&>(m.weights())) ==
        weights_bytes_held(plain.config(), const_cast<ModelWeights&>(plain.weights())));

  const Tensor a = logits_of(plain), b = logits_of(m);
  REQUIRE(a.numel() > 0);
  CHECK(a.shape == b.shape);
  CHECK(a.data == b.data);

  const nlohmann::json info = api_info(dir, bytes);
  CHECK(sorted(info["ignored_tensors"].get<std::vector<std::string>>()) == names_of(extras));
  CHECK(info["ignored_tensor_count"] == extras.size());
}

}  // namespace

TEST_CASE("ignored tensors: T5 and Flan-T5 files' EncDecAttention.relative_attention_bias") {
  // HF T5ForConditionalGeneration._keys_to_ignore_on_load_unexpected: the first decoder
  // block's cross-attention table, (num_buckets 8, heads 4), which no attention reads.
  const std::vector<Extra> extra{
      {"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight", io::DType::F32, {8, 4}}};
  check_ignored("families/flan_t5", extra);
  check_ignored("families/t5_v1_0", extra);
}

TEST_CASE("ignored tensors: GPT-2 attn.bias / attn.masked_bias causal-mask buffers") {
  check_ignored("checkpoints/gpt2_tiny", {{"h.0.attn.bias", io::DType::BOOL, {1, 1, 32, 32}},
                                          {"h.0.attn.masked_bias", io::DType::F32, {}},
                                          {"h.1.attn.bias", io::DType::F32, {1, 1, 32, 32}},
                                          {"h.1.attn.masked_bias", io::DType::F32, {}}});
}

TEST_CASE("ignored tensors: BERT embeddings.position_ids / token_type_ids buffers") {
  // bert_tiny itself carries position_ids (as files saved by transformers < 4.31 do).
  check_ignored("checkpoints/bert_tiny",
                {{"bert.embeddings.position_ids", io::DType::I64, {1, 32}},
                 {"bert.embeddings.token_type_ids", io::DType::I64, {1, 32}}},
                {"bert.embeddings.position_ids"});
}

TEST_CASE("ignored tensors: GPT-Neo attn.attention.bias / masked_bias") {
  check_ignored("families/gpt_neo_local", {{"transformer.h.0.attn.attention.bias", io::DType::BOOL, {1, 1, 32, 32}},
                                           {"transformer.h.0.attn.attention.masked_bias", io::DType::F32, {}},
                                           {"transformer.h.3.attn.attention.bias", io::DType::BOOL, {1, 1, 32, 32}},
                                           {"transformer.h.3.attn.attention.masked_bias", io::DType::F32, {}}});
}

TEST_CASE("ignored tensors: GPT-NeoX / Pythia attention.bias, masked_bias, rotary_emb.inv_freq") {
  // Rotary dims 4 of head size 16 (rotary_pct 0.25): inv_freq has 2 entries.
  const std::vector<Extra> extra{{"gpt_neox.layers.0.attention.bias", io::DType::BOOL, {1, 1, 128, 128}},
                                 {"gpt_neox.layers.0.attention.masked_bias", io::DType::F32, {}},
                                 {"gpt_neox.layers.0.attention.rotary_emb.inv_freq", io::DType::F32, {2}},
                                 {"gpt_neox.layers.1.attention.bias", io::DType::U8, {1, 1, 128, 128}},
                                 {"gpt_neox.rotary_emb.inv_freq", io::DType::F32, {2}}};
  check_ignored("families/pythia_parallel", extra);
  check_ignored("families/pythia_sequential", extra);
}

TEST_CASE("ignored tensors: Llama, Mistral, Qwen2, Qwen3 rotary_emb.inv_freq (and Llama's decoder.version)") {
  check_ignored("families/llama_gqa", {{"model.layers.0.self_attn.rotary_emb.inv_freq", io::DType::F32, {4}},
                                       {"model.layers.1.self_attn.rotary_emb.inv_freq", io::DType::F32, {4}},
                                       {"model.rotary_emb.inv_freq", io::DType::F32, {4}},
                                       {"model.decoder.version", io::DType::I64, {}}});
  check_ignored("families/mistral_window", {{"model.layers.0.self_attn.rotary_emb.inv_freq", io::DType::F32, {4}}});
  check_ignored("families/qwen2", {{"model.layers.1.self_attn.rotary_emb.inv_freq", io::DType::F32, {4}}});
  check_ignored("families/qwen3", {{"model.rotary_emb.inv_freq", io::DType::F32, {8}}});
}

TEST_CASE("ignored tensors: Gemma 2 and Gemma 3 rotary frequencies (global and local)") {
  check_ignored("families/gemma2", {{"model.layers.0.self_attn.rotary_emb.inv_freq", io::DType::F32, {4}},
                                    {"model.rotary_emb.inv_freq", io::DType::F32, {4}}});
  check_ignored("families/gemma3_text", {{"model.rotary_emb.inv_freq", io::DType::F32, {4}},
                                         {"model.rotary_emb_local.inv_freq", io::DType::F32, {4}}});
}

TEST_CASE("ignored tensors: BLOOM self_attention.scale_mask_softmax.causal_mask") {
  check_ignored("families/bloom_alibi",
                {{"transformer.h.0.self_attention.scale_mask_softmax.causal_mask", io::DType::BOOL, {1, 1, 16, 16}},
                 {"transformer.h.1.self_attention.scale_mask_softmax.causal_mask", io::DType::BOOL, {1, 1, 16, 16}}});
}

TEST_CASE("ignored tensors: anything else unexpected is still refused by name") {
  SUBCASE("T5: the same table in another block is not on HF's list") {
    const std::string dir = fixture("families/flan_t5");
    const std::vector<uint8_t> bytes = rewritten(
        dir, {{"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight", io::DType::F32, {8, 4}},
              {"decoder.block.1.layer.1.EncDecAttention.relative_attention_bias.weight", io::DType::F32, {8, 4}}});
    CHECK(load_error(files(dir, bytes)) ==
          "checkpoint 'flan_t5/model.safetensors' (t5) does not match its config: 1 problem:\n"
          "  unexpected tensor 'decoder.block.1.layer.1.EncDecAttention.relative_attention_bias.weight'");
  }
  SUBCASE("GPT-2: an adapter next to the mask buffers") {
    const std::string dir = fixture("checkpoints/gpt2_tiny");
    const std::vector<uint8_t> bytes =
        rewritten(dir, {{"h.0.attn.bias", io::DType::BOOL, {1, 1, 32, 32}}, {"h.0.attn.lora_A.weight", io::DType::F32, {4, 16}}});
    CHECK(load_error(files(dir, bytes)) ==
          "checkpoint 'gpt2_tiny/model.safetensors' (gpt2) does not match its config: 1 problem:\n"
          "  unexpected tensor 'h.0.attn.lora_A.weight'");
  }
  SUBCASE("Llama: a buffer name of another family") {
    const std::string dir = fixture("families/llama_gqa");
    const std::vector<uint8_t> bytes = rewritten(dir, {{"model.layers.0.attention.masked_bias", io::DType::F32, {}}});
    CHECK(load_error(files(dir, bytes)) ==
          "checkpoint 'llama_gqa/model.safetensors' (llama) does not match its config: 1 problem:\n"
          "  unexpected tensor 'model.layers.0.attention.masked_bias'");
  }
}

TEST_CASE("ignored tensors: the info lists the first 20 and counts them all; tfp info shows the same") {
  const std::string src = fixture("families/llama_gqa");
  std::vector<Extra> extra;
  for (int k = 0; k < 25; ++k) extra.push_back({"model.extra" + std::to_string(k) + ".rotary_emb.inv_freq", io::DType::F32, {4}});
  const std::vector<uint8_t> bytes = rewritten(src, extra);
  const nlohmann::json info = api_info(src, bytes);
  CHECK(info["ignored_tensors"].size() == kIgnoredTensorsShown);
  CHECK(info["ignored_tensor_count"] == 25);

  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tfp_test_ignored_tensors";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(src + "/config.json", dir / "config.json");
  io::write_file((dir / "model.safetensors").string(), bytes);
  const tfp::testing::CliRun r = tfp::testing::run_cli({"info", dir.string()});
  REQUIRE(r.code == 0);
  const nlohmann::json cli = r.json();
  CHECK(cli["ignored_tensors"] == info["ignored_tensors"]);
  CHECK(cli["ignored_tensor_count"] == 25);
  std::filesystem::remove_all(dir);
}

TEST_CASE("ignored tensors: skipped alike when the matrices are narrowed (in the heap, or as the file streams in)") {
  const std::string dir = fixture("families/flan_t5");
  const std::vector<Extra> extra{
      {"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight", io::DType::F32, {8, 4}}};
  const std::vector<uint8_t> bytes = rewritten(dir, extra);
  const std::vector<uint8_t> plain = rewritten(dir, {});
  for (const Precision p : {Precision::f16, Precision::int8}) {
    CAPTURE(precision_name(p));
    const LoadedModel a = load_model(files(dir, plain, p)), b = load_model(files(dir, bytes, p));
    CHECK(b.report.ignored == names_of(extra));
    CHECK(logits_of(a).data == logits_of(b).data);
    // Streamed in 1000-byte pieces: the stream narrows the matrices and keeps the ignored
    // tensor as stored; the load then skips it.
    const tfp::testing::Streamed s = tfp::testing::stream_in(bytes, io::read_text_file(dir + "/config.json"), p, 1000);
    CHECK(s.narrowed);
    const LoadedModel c = load_model(files(dir, s.file, p));
    CHECK(c.report.ignored == names_of(extra));
    CHECK(logits_of(c).data == logits_of(b).data);
  }
}
