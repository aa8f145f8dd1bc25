// Every model family built from the one description, against golden values from
// independent plain-PyTorch references (tests/fixtures/gen_families.py, float64, from the
// stored weights): logits within 1e-4, attention probabilities within 2e-5, six greedy
// tokens exact — the greedy loop uses the KV cache, and every cached step's logits must
// equal the full recomputation of the sequence so far (cache-versus-recompute for RoPE
// with local/global bases and scaling, ALiBi, learned positions with windows, and T5's
// relative buckets).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "model/kv_cache.h"
#include "model/model.h"
#include "model/transformer.h"
#include "nn/observer.h"
#include "api/tfp_inspect_api.h"
#include "io/file.h"
#include "io/safetensors.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;
using tfp::testing::max_abs_diff;
using tfp::testing::read_json;

namespace {

std::string family_dir(const std::string& name) { return std::string(TFP_FIXTURES_DIR) + "/families/" + name; }

int32_t argmax_last(const Tensor& logits) {
  const int64_t V = logits.dim(1), t = logits.dim(0) - 1;
  const float* row = logits.ptr() + t * V;
  return static_cast<int32_t>(std::max_element(row, row + V) - row);
}

// Max |a - b| over two tensors of one shape.
double diff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape == b.shape);
  double worst = 0;
  for (size_t i = 0; i < a.data.size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(a.data[i] - b.data[i])));
  return worst;
}

void check_attentions(const nn::RecordingObserver& rec, const nlohmann::json& want, const std::string& fmt,
                      double& worst) {
  for (size_t i = 0; i < want.size(); ++i) {
    std::string name = fmt;
    name.replace(name.find("{i}"), 3, std::to_string(i));
    worst = std::max(worst, max_abs_diff(rec.get(name).view(), want[i]));
  }
}

void check_decoder_only(const std::string& name) {
  CAPTURE(name);
  const LoadedModel m = load_model_dir(family_dir(name));
  const nlohmann::json want = read_json(family_dir(name) + "/expected.json");
  const ModelConfig& cfg = m.config();

  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  nn::RecordingObserver rec({"dec.*.attn.probs"});
  const ForwardResult r = forward_decoder_only(cfg, m.weights(), ids, &rec);
  const double logit_err = max_abs_diff(r.logits.view(), want["logits"]);
  double attn_err = 0;
  check_attentions(rec, want["attentions"], "dec.{i}.attn.probs", attn_err);
  MESSAGE(name, ": logits ", logit_err, ", attention ", attn_err);
  CHECK(logit_err < 1e-4);
  CHECK(attn_err < 2e-5);

  if (want.contains("input_ids_2")) {
    const auto ids2 = want["input_ids_2"].get<std::vector<int32_t>>();
    CHECK(max_abs_diff(forward_decoder_only(cfg, m.weights(), ids2).logits.view(), want["logits_2"]) < 1e-4);
  }

  // Greedy with the KV cache; each step's logits equal recomputing the whole sequence.
  std::vector<int32_t> seq = want["greedy"]["input_ids"].get<std::vector<int32_t>>();
  KVCache cache(cfg);
  Tensor logits = decoder_only_step(cfg, m.weights(), cache, seq).logits;
  std::vector<int32_t> got;
  double cache_err = 0;
  for (int step = 0; step < 6; ++step) {
    const Tensor full = forward_decoder_only(cfg, m.weights(), seq).logits;
    const int64_t V = full.dim(1);
    const Tensor last({1, V}, std::vector<float>(full.ptr() + (full.dim(0) - 1) * V, full.ptr() + full.dim(0) * V));
    const Tensor mine({1, V}, std::vector<float>(logits.ptr() + (logits.dim(0) - 1) * V, logits.ptr() + logits.dim(0) * V));
    cache_err = std::max(cache_err, diff(mine, last));
    const int32_t next = argmax_last(logits);
    got.push_back(next);
    seq.push_back(next);
    logits = decoder_only_step(cfg, m.weights(), cache, std::vector<int32_t>{next}).logits;
  }
  CHECK(cache_err < 1e-4);
  CHECK(got == want["greedy"]["tokens"].get<std::vector<int32_t>>());
}

void check_t5(const std::string& name) {
  CAPTURE(name);
  const LoadedModel m = load_model_dir(family_dir(name));
  const nlohmann::json want = read_json(family_dir(name) + "/expected.json");
  const ModelConfig& cfg = m.config();
  const auto src = want["input_ids"].get<std::vector<int32_t>>();
  const auto tgt = want["decoder_input_ids"].get<std::vector<int32_t>>();
  nn::RecordingObserver rec({"enc.*.attn.probs", "dec.*.attn.probs", "dec.*.cross.probs"});
  const ForwardResult r = forward_encoder_decoder(cfg, m.weights(), src, tgt, {}, &rec);
  const double logit_err = max_abs_diff(r.logits.view(), want["logits"]);
  double attn_err = 0;
  check_attentions(rec, want["encoder_attentions"], "enc.{i}.attn.probs", attn_err);
  check_attentions(rec, want["decoder_attentions"], "dec.{i}.attn.probs", attn_err);
  check_attentions(rec, want["cross_attentions"], "dec.{i}.cross.probs", attn_err);
  MESSAGE(name, ": logits ", logit_err, ", attention (encoder, decoder, cross) ", attn_err);
  CHECK(logit_err < 1e-4);
  CHECK(attn_err < 2e-5);

  // Greedy from decoder_start_token_id with the cache, checked against recomputation.
  const auto g_src = want["greedy"]["input_ids"].get<std::vector<int32_t>>();
  std::vector<int32_t> seq{want["greedy"]["decoder_start_token_id"].get<int32_t>()};
  CHECK(m.decoder_start_token_id == seq[0]);
  const Tensor memory = encode_source(cfg, m.weights(), g_src);
  KVCache cache(cfg);
  Tensor logits = encoder_decoder_step(cfg, m.weights(), cache, memory.view(), {}, seq).logits;
  std::vector<int32_t> got;
  double cache_err = 0;
  for (int step = 0; step < 6; ++step) {
    const Tensor full = forward_encoder_decoder(cfg, m.weights(), g_src, seq).logits;
    const int64_t V = full.dim(1);
    const Tensor last({1, V}, std::vector<float>(full.ptr() + (full.dim(0) - 1) * V, full.ptr() + full.dim(0) * V));
    cache_err = std::max(cache_err, diff(logits, last));
    const int32_t next = argmax_last(logits);
    got.push_back(next);
    seq.push_back(next);
    logits = encoder_decoder_step(cfg, m.weights(), cache, {}, {}, std::vector<int32_t>{next}).logits;
  }
  CHECK(cache_err < 1e-4);
  CHECK(got == want["greedy"]["tokens"].get<std::vector<int32_t>>());
}

}  // namespace

TEST_CASE("families: Llama (GQA, RoPE, SwiGLU, untied head)") { check_decoder_only("llama_gqa"); }
TEST_CASE("families: Llama 3 (rope_scaling llama3, explicit head_dim, tied)") { check_decoder_only("llama3_scaled_tied"); }
TEST_CASE("families: Llama with BF16 weights") { check_decoder_only("llama_bf16"); }
TEST_CASE("families: Qwen2 (q/k/v biases)") { check_decoder_only("qwen2"); }
TEST_CASE("families: Qwen3 (q/k norms, own head size)") { check_decoder_only("qwen3"); }
TEST_CASE("families: Mistral (sliding window)") { check_decoder_only("mistral_window"); }
TEST_CASE("families: Pythia (partial rotary, parallel residual)") { check_decoder_only("pythia_parallel"); }
TEST_CASE("families: Pythia (sequential residual)") { check_decoder_only("pythia_sequential"); }
TEST_CASE("families: GPT-Neo (local and global layers, unscaled scores)") { check_decoder_only("gpt_neo_local"); }
TEST_CASE("families: BLOOM (ALiBi with 6 heads, embedding LayerNorm)") { check_decoder_only("bloom_alibi"); }
TEST_CASE("families: Gemma 2 (soft-capping, sandwich norms, local layers)") { check_decoder_only("gemma2"); }
TEST_CASE("families: Gemma 3 (q/k norms, two RoPE bases, linear scaling)") { check_decoder_only("gemma3_text"); }
TEST_CASE("families: T5 v1.0 (relative buckets, ReLU, tied head × d_model^-1/2)") { check_t5("t5_v1_0"); }
TEST_CASE("families: Flan-T5 (gated GELU, untied head, 2 + 3 layers)") { check_t5("flan_t5"); }

TEST_CASE("families: every description round-trips through our own format (config_to_json + weights by role)") {
  for (const char* name : {"llama3_scaled_tied", "qwen3", "mistral_window", "pythia_parallel", "gpt_neo_local",
                           "bloom_alibi", "gemma2", "gemma3_text", "t5_v1_0", "flan_t5"}) {
    CAPTURE(name);
    const LoadedModel m = load_model_dir(family_dir(name));
    ModelFiles files;
    files.name = name;
    files.config_json = config_to_json(m.config());
    files.safetensors = save_weights_by_role(m.config(), m.weights());
    const LoadedModel again = load_model(std::move(files));
    CHECK(again.family == CheckpointFamily::tfp);
    CHECK(config_to_json(again.config()) == config_to_json(m.config()));
    const std::vector<int32_t> ids{3, 1, 4, 1, 5, 9, 2, 6}, tgt{0, 5, 7};
    const bool seq2seq = m.config().architecture == Architecture::encoder_decoder;
    const Tensor a = seq2seq ? forward_encoder_decoder(m.config(), m.weights(), ids, tgt).logits
                             : forward_decoder_only(m.config(), m.weights(), ids).logits;
    const Tensor b = seq2seq ? forward_encoder_decoder(again.config(), again.weights(), ids, tgt).logits
                             : forward_decoder_only(again.config(), again.weights(), ids).logits;
    CHECK(diff(a, b) == 0.0);
  }
}

namespace {
// One tensor of a C API result list, copied.
std::vector<float> tensor_of(const tfp_tensors* list, const char* name) {
  const int i = tfp_tensors_find(list, name);
  REQUIRE(i >= 0);
  const float* d = tfp_tensors_data(list, i);
  return std::vector<float>(d, d + tfp_tensors_numel(list, i));
}
}  // namespace

TEST_CASE("families: the query-key drill-down replays each family's machinery (scale, soft-cap, bias, RoPE, window)") {
  struct Case {
    const char* name;
    const char* set;
    int layer, head, query;
    float scale, softcap, rotary_dims, window;
    bool bias;  // a positional bias in the scores (ALiBi, relative)
  };
  const Case cases[] = {
      {"gemma2", "dec", 0, 1, 9, 1.0f / std::sqrt(8.0f), 5.0f, 12, 4, false},     // local layer, capped
      {"gemma2", "dec", 1, 2, 9, 1.0f / std::sqrt(8.0f), 5.0f, 12, 0, false},     // global layer
      {"pythia_parallel", "dec", 1, 0, 7, 0.25f, 0.0f, 4, 0, false},             // 4 of 16 rotated
      {"bloom_alibi", "dec", 1, 5, 8, 0.5f, 0.0f, 0, 0, true},                    // ALiBi bias
      {"gpt_neo_local", "dec", 1, 3, 9, 1.0f, 0.0f, 0, 4, false},                 // unscaled, local
      {"t5_v1_0", "enc", 1, 2, 4, 1.0f, 0.0f, 0, 0, true},                        // relative buckets
      {"t5_v1_0", "cross", 0, 1, 2, 1.0f, 0.0f, 0, 0, false},
  };
  for (const Case& k : cases) {
    CAPTURE(k.name);
    CAPTURE(k.layer);
    tfp_model* m = tfp::testing::open_through_api(family_dir(k.name), k.name, /*with_tokenizer=*/false);
    const std::vector<int32_t> ids{3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, tgt{0, 7, 2, 9};
    const bool seq2seq = std::string(k.name).starts_with("t5");
    tfp_tensors* st = nullptr;
    REQUIRE(tfp_model_attention_steps(m,
                                      tfp::testing::params(tfp_forward_params{.ids = ids.data(),
                                                                              .n = static_cast<int>(ids.size()),
                                                                              .tgt_ids = seq2seq ? tgt.data() : nullptr,
                                                                              .n_tgt = seq2seq ? 4 : 0}),
                                      k.set, k.layer, k.head, k.query, &st) == TFP_OK);
    CHECK(tensor_of(st, "scale")[0] == doctest::Approx(k.scale));
    CHECK(tensor_of(st, "softcap")[0] == k.softcap);
    CHECK(tensor_of(st, "rotary_dims")[0] == k.rotary_dims);
    CHECK(tensor_of(st, "window")[0] == k.window);
    const std::vector<float> bias = tensor_of(st, "bias"), mask = tensor_of(st, "mask");
    bool any_bias = false;
    for (float b : bias) any_bias = any_bias || b != 0.0f;
    CHECK(any_bias == k.bias);
    // A local layer's window hides all but the last `window` keys (itself included).
    if (k.window > 0) {
      int visible = 0;
      for (float x : mask) visible += x == 0.0f;
      CHECK(visible == static_cast<int>(k.window));
    }
    if (k.softcap > 0) {
      const std::vector<float> scaled = tensor_of(st, "scaled"), capped = tensor_of(st, "capped");
      for (size_t j = 0; j < scaled.size(); ++j)
        CHECK(capped[j] == doctest::Approx(k.softcap * std::tanh(scaled[j] / k.softcap)).epsilon(1e-5));
    }
    // The replayed probabilities are the forward pass's own row.
    const LoadedModel lm = load_model_dir(family_dir(k.name));
    const std::string rec = std::string(k.set == std::string("enc") ? "enc." : "dec.") + std::to_string(k.layer) +
                            (k.set == std::string("cross") ? ".cross.probs" : ".attn.probs");
    nn::RecordingObserver obs({rec});
    if (seq2seq) forward_encoder_decoder(lm.config(), lm.weights(), ids, tgt, {}, &obs);
    else forward_decoder_only(lm.config(), lm.weights(), ids, &obs);
    const Tensor& probs = obs.get(rec);  // (H, Tq, Tk)
    const std::vector<float> mine = tensor_of(st, "probs");
    const int64_t Tq = probs.dim(1), Tk = probs.dim(2);
    REQUIRE(static_cast<int64_t>(mine.size()) == Tk);
    for (int64_t j = 0; j < Tk; ++j)
      CHECK(mine[j] == doctest::Approx(probs.data[(k.head * Tq + k.query) * Tk + j]).epsilon(1e-5));
    tfp_tensors_free(st);
    tfp_model_free(m);
  }
}

TEST_CASE("families: a sharded checkpoint (index + shards) loads as one, and a broken index is named") {
  namespace fs = std::filesystem;
  const std::string src = family_dir("llama_gqa");
  const fs::path dir = fs::temp_directory_path() / "tfp_sharded_llama";
  // The file's tensors alternate between two shards named in an index, as HF writes them.
  const std::string index = tfp::testing::write_two_shards(src, dir, [](size_t k, size_t) { return k % 2 == 0; });

  const LoadedModel m = load_model_dir(dir.string());
  const nlohmann::json want = read_json(src + "/expected.json");
  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  CHECK(max_abs_diff(forward_decoder_only(m.config(), m.weights(), ids).logits.view(), want["logits"]) < 1e-4);

  // The same files in memory, with one shard missing or the index pointing elsewhere.
  auto files = [&](bool drop_second) {
    ModelFiles f;
    f.name = "dropped";
    f.config_json = io::read_text_file((dir / "config.json").string());
    f.index_json = index;
    f.shards.emplace_back("model-00001-of-00002.safetensors", io::read_file((dir / "model-00001-of-00002.safetensors").string()));
    if (!drop_second)
      f.shards.emplace_back("model-00002-of-00002.safetensors", io::read_file((dir / "model-00002-of-00002.safetensors").string()));
    return f;
  };
  CHECK_NOTHROW(load_model(files(false)));
  CHECK_THROWS_WITH_AS(load_model(files(true)), doctest::Contains("which was not given (1 shard given)"), Error);
  ModelFiles wrong = files(false);
  std::swap(wrong.shards[0].first, wrong.shards[1].first);
  CHECK_THROWS_WITH_AS(load_model(std::move(wrong)), doctest::Contains("as the index says"), Error);
  ModelFiles twice = files(false);
  twice.shards[1].second = twice.shards[0].second;
  twice.index_json = std::nullopt;
  CHECK_THROWS_WITH_AS(load_model(std::move(twice)), doctest::Contains("without model.safetensors.index.json"), Error);
  fs::remove_all(dir);
}

TEST_CASE("families: config mappings — windows per layer, eos lists, refused options") {
  std::string qwen = io::read_text_file(family_dir("qwen2") + "/config.json");
  nlohmann::json j = nlohmann::json::parse(qwen);
  j["use_sliding_window"] = true;
  j["sliding_window"] = 5;
  j["max_window_layers"] = 1;
  CHECK(parse_config_json(j.dump()).config.layer_windows == std::vector<int64_t>{0, 5});  // from layer 1 on
  j["layer_types"] = {"sliding_attention", "full_attention"};
  CHECK(parse_config_json(j.dump()).config.layer_windows == std::vector<int64_t>{5, 0});  // spelled out
  j["use_sliding_window"] = false;  // then there is no window at all (HF sets sliding_window to None)
  CHECK(parse_config_json(j.dump()).config.layer_windows.empty());

  nlohmann::json llama = nlohmann::json::parse(io::read_text_file(family_dir("llama3_scaled_tied") + "/config.json"));
  const ParsedConfig p = parse_config_json(llama.dump());
  CHECK(p.eos_token_id == 2);
  CHECK(p.more_eos_token_ids == std::vector<int64_t>{3});
  llama["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
  CHECK_THROWS_WITH_AS(parse_config_json(llama.dump()),
                       doctest::Contains("rope type \"yarn\" is not supported (supported: default, linear, llama3)"), Error);
  nlohmann::json neo = nlohmann::json::parse(io::read_text_file(family_dir("gpt_neo_local") + "/config.json"));
  neo.erase("attention_layers");
  CHECK(parse_config_json(neo.dump()).config.layer_windows == std::vector<int64_t>{0, 4, 0, 4});
  neo["attention_types"] = {{{"global", "sparse"}, 2}};
  CHECK_THROWS_WITH_AS(parse_config_json(neo.dump()), doctest::Contains("attention kind \"sparse\" is not supported"), Error);
}

TEST_CASE("families: generation sizes its KV cache to the prompt and the new tokens, not the whole context") {
  // Gemma 3's real context (32,768) would cost 1.2 GB of cache before the first token.
  const LoadedModel m = load_model_dir(family_dir("gemma3_text"));  // max_position_embeddings 1024
  CHECK(generation_capacity(m.config(), 10, 6) == 16);
  CHECK(generation_capacity(m.config(), 1000, 100) == 1024);  // capped by the context
  CHECK(generation_capacity(m.config(), 10, 0) == 10);
}

TEST_CASE("families: learned positions with an index offset and sinusoidal halves, from the description") {
  // OPT's learned table starts at row 2: a model with offset k equals one whose table is
  // the same table without its first k rows.
  ModelConfig c;
  c.architecture = Architecture::decoder_only;
  c.d_model = 8;
  c.n_heads = 2;
  c.n_decoder_layers = 1;
  c.d_ff = 16;
  c.vocab_size = 11;
  c.max_positions = 6;
  c.norm_first = c.decoder_final_norm = true;
  c.learned_offset = 2;
  const ModelWeights w = random_weights(c, 5, 0.5f);
  REQUIRE(w.embed.position.shape == Shape{8, 8});
  ModelConfig plain = c;
  plain.learned_offset = 0;
  ModelWeights shifted = random_weights(plain, 5, 0.5f);
  // Same weights except the position table: rows 2.. of the offset model's.
  const std::vector<WeightSlot> from = weight_slots(c, const_cast<ModelWeights&>(w));
  const std::vector<WeightSlot> to = weight_slots(plain, shifted);
  REQUIRE(from.size() == to.size());
  for (size_t i = 0; i < to.size(); ++i) *to[i].view = *from[i].view;
  shifted.embed.position = TensorView(w.embed.position.data + 2 * 8, {6, 8});
  const std::vector<int32_t> ids{1, 4, 1, 5, 9, 2};
  CHECK(diff(forward_decoder_only(c, w, ids).logits, forward_decoder_only(plain, shifted, ids).logits) == 0.0);
  CHECK_THROWS_WITH_AS(forward_decoder_only(c, w, std::vector<int32_t>(7, 1)),
                       doctest::Contains("exceed the context length max_positions = 6"), Error);
  // Our own format keeps both options.
  c.sinusoidal_halves = true;
  CHECK(parse_config_json(config_to_json(c)).config.learned_offset == 2);
  CHECK(parse_config_json(config_to_json(c)).config.sinusoidal_halves);
}

TEST_CASE("families: the logit lens and head ablation work on the new families (GQA, soft-caps, T5)") {
  for (const char* name : {"llama_gqa", "gemma2", "bloom_alibi", "t5_v1_0"}) {
    CAPTURE(name);
    tfp_model* m = tfp::testing::open_through_api(family_dir(name), name, /*with_tokenizer=*/false);
    const LoadedModel lm = load_model_dir(family_dir(name));
    const bool seq2seq = lm.config().architecture == Architecture::encoder_decoder;
    const std::vector<int32_t> ids{3, 1, 4, 1, 5, 9}, tgt{0, 7, 2};
    // The lens's last row is the model's own next-token distribution: its top-1 is the
    // forward pass's argmax at every position.
    tfp_tensors* lens = nullptr;
    REQUIRE(tfp_model_logit_lens(m, ids.data(), 6, seq2seq ? tgt.data() : nullptr, seq2seq ? 3 : 0, 3, &lens) == TFP_OK);
    const Tensor logits = seq2seq ? forward_encoder_decoder(lm.config(), lm.weights(), ids, tgt).logits
                                  : forward_decoder_only(lm.config(), lm.weights(), ids).logits;
    const std::vector<float> top = tensor_of(lens, "ids");
    const int64_t T = logits.dim(0), V = logits.dim(1), L = lm.config().n_decoder_layers;
    for (int64_t t = 0; t < T; ++t) {
      const float* row = logits.ptr() + t * V;
      CHECK(top[static_cast<size_t>((L * T + t) * 3)] == static_cast<float>(std::max_element(row, row + V) - row));
    }
    tfp_tensors_free(lens);
    // Silencing every head of layer 0 changes what the model predicts or translates.
    const std::vector<float> zeros(static_cast<size_t>(lm.config().n_heads), 0.0f);
    REQUIRE(tfp_model_set_head_mask(m, "dec", 0, zeros.data(), static_cast<int>(zeros.size())) == TFP_OK);
    tfp_tensors* effect = nullptr;
    REQUIRE(tfp_model_head_mask_effect(m, ids.data(), 6, 3, 1, &effect) == TFP_OK);
    CHECK(tensor_of(effect, "before") != tensor_of(effect, "after"));
    tfp_tensors_free(effect);
    tfp_model_free(m);
  }
}

TEST_CASE("families: a per-head fused q|k|v is reordered where it lies, kept 16-bit or int8 (GPT-NeoX, BLOOM)") {
  // The fixture rewritten as F16: asked for f16 the binder keeps every matrix 16-bit as stored,
  // the fused q|k|v too (its rows reordered in the file's bytes); as stored, this small file is
  // widened to f32 at bind. The 16-bit kernels widen B exactly, so the logits are equal bit for bit.
  // Then the F32 fixture streamed in at int8: the stream writes the q|k|v as I8 rows in the
  // file's order, the binder reorders rows and scales; the logits equal the in-heap int8 load's
  // (rows are quantised one by one: the order does not change them).
  const std::vector<int32_t> ids = {3, 17, 5, 42, 8, 1, 29};
  for (const char* name : {"pythia_parallel", "bloom_alibi"}) {
    CAPTURE(name);
    const std::string dir = family_dir(name);
    const std::string config = io::read_text_file(dir + "/config.json");
    const io::SafeTensors f32_file = io::SafeTensors::load(dir + "/model.safetensors");
    io::SafeTensorsWriter w;
    for (const io::TensorEntry& e : f32_file.entries()) w.add_f32(e.name, e.shape, f32_file.f32(e).data, io::DType::F16);
    const std::vector<uint8_t> f16_bytes = w.finish();
    auto load_as = [&](std::vector<uint8_t> bytes, Precision p) {
      ModelFiles f;
      f.name = name;
      f.config_json = config;
      f.safetensors = std::move(bytes);
      f.precision = p;
      return load_model(std::move(f));
    };
    const LoadedModel kept = load_as(f16_bytes, Precision::f16), widened = load_as(f16_bytes, Precision::stored);
    const nn::Linear& qkv = kept.weights().decoder_layers[0].attn.qkv;
    CHECK_FALSE(qkv.weight16.empty());
    CHECK(widened.weights().decoder_layers[0].attn.qkv.weight16.empty());
    const Tensor a = forward_decoder_only(kept.config(), kept.weights(), ids).logits;
    const Tensor b = forward_decoder_only(widened.config(), widened.weights(), ids).logits;
    CHECK(diff(a, b) == 0);
    // Against the reference: the F16 rounding of the weights only.
    const nlohmann::json want = read_json(dir + "/expected.json");
    if (want["input_ids"].get<std::vector<int32_t>>() == ids) CHECK(max_abs_diff(a.view(), want["logits"]) < 1e-2);

    const std::vector<uint8_t> f32_bytes = io::read_file(dir + "/model.safetensors");
    const LoadedModel in_heap = load_as(f32_bytes, Precision::int8);
    testing::Streamed s = testing::stream_in(f32_bytes, config, Precision::int8, f32_bytes.size());
    REQUIRE(s.narrowed);
    const io::SafeTensors header = io::SafeTensors::parse(std::vector<uint8_t>(s.file), "stream");
    bool qkv_i8 = false;
    for (const io::TensorEntry& e : header.entries())
      if (e.name.find("query_key_value.weight") != std::string::npos && e.name.find("_scale") == std::string::npos)
        qkv_i8 = e.dtype == io::DType::I8;
    CHECK(qkv_i8);
    const LoadedModel streamed = load_as(std::move(s.file), Precision::int8);
    CHECK_FALSE(streamed.weights().decoder_layers[0].attn.qkv.weight8.q == nullptr);
    const Tensor c = forward_decoder_only(streamed.config(), streamed.weights(), ids).logits;
    const Tensor d = forward_decoder_only(in_heap.config(), in_heap.weights(), ids).logits;
    CHECK(diff(c, d) == 0);
  }
}
