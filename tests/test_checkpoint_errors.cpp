// Loader errors: every missing, mis-shaped, unexpected or wrongly typed tensor and every
// bad config field is reported by name (checkpoint name and role). Broken checkpoints are
// made here from the good fixtures by rewriting their safetensors/config in memory.
#include <doctest/doctest.h>

#include "model/model.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;
using tfp::testing::load_error;
using tfp::testing::checkpoint_dir;

namespace {

ModelFiles gpt2_files() {
  const std::string dir = checkpoint_dir("gpt2_tiny");
  ModelFiles f;
  f.name = "gpt2_tiny";
  f.config_json = io::read_text_file(dir + "/config.json");
  f.safetensors = io::read_file(dir + "/model.safetensors");
  return f;
}

// The good file with `drop` removed and `add` (name → tensor) added.
std::vector<uint8_t> rewrite(const std::vector<uint8_t>& good, const std::string& drop,
                             const std::vector<std::pair<std::string, Tensor>>& add = {},
                             io::DType add_dtype = io::DType::F32) {
  const io::SafeTensors st = io::SafeTensors::parse(good);
  io::SafeTensorsWriter w;
  for (const io::TensorEntry& e : st.entries())
    if (e.name != drop) w.add_f32(e.name, st.f32(e).shape, st.f32(e).data);
  for (const auto& [name, t] : add) {
    if (add_dtype == io::DType::I64) {
      const std::vector<int64_t> v(static_cast<size_t>(t.numel()), 1);
      w.add_raw(name, io::DType::I64, t.shape, v.data(), v.size() * 8);
    } else {
      w.add_f32(name, t);
    }
  }
  return w.finish();
}

std::string with_field(std::string config, const std::string& from, const std::string& to) {
  const size_t at = config.find(from);
  REQUIRE(at != std::string::npos);
  return config.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("checkpoint errors: missing, mis-shaped, unexpected and non-float tensors") {
  const ModelFiles good = gpt2_files();
  REQUIRE(load_error(gpt2_files()) == "(no error)");

  SUBCASE("missing") {
    ModelFiles f = gpt2_files();
    f.safetensors = rewrite(good.safetensors, "h.1.ln_1.weight");
    CHECK(load_error(std::move(f)) ==
          "checkpoint 'gpt2_tiny/model.safetensors' (gpt2) does not match its config: 1 problem:\n"
          "  missing tensor 'h.1.ln_1.weight' (role dec.1.norm_attn.gamma)");
  }
  SUBCASE("mis-shaped: config with a longer context than wpe") {
    ModelFiles f = gpt2_files();
    f.config_json = with_field(f.config_json, "\"n_positions\":32", "\"n_positions\":64");
    CHECK(load_error(std::move(f)) ==
          "checkpoint 'gpt2_tiny/model.safetensors' (gpt2) does not match its config: 1 problem:\n"
          "  tensor 'wpe.weight' (role embed.position) has shape [32, 16], expected [64, 16]");
  }
  SUBCASE("mis-shaped Conv1D weight stored as nn.Linear (out, in)") {
    ModelFiles f = gpt2_files();
    f.safetensors = rewrite(good.safetensors, "h.0.attn.c_attn.weight", {{"h.0.attn.c_attn.weight", Tensor({48, 16})}});
    CHECK(load_error(std::move(f)) ==
          "checkpoint 'gpt2_tiny/model.safetensors' (gpt2) does not match its config: 1 problem:\n"
          "  tensor 'h.0.attn.c_attn.weight' (role dec.0.attn.qkv.weight) has shape [48, 16], expected [16, 48]");
  }
  SUBCASE("unexpected: the file has more layers than the config") {
    ModelFiles f = gpt2_files();
    f.config_json = with_field(f.config_json, "\"n_layer\":2", "\"n_layer\":1");
    const std::string err = load_error(std::move(f));
    CHECK(err.starts_with("checkpoint 'gpt2_tiny/model.safetensors' (gpt2) does not match its config: 12 problems:\n"
                          "  unexpected tensor 'h.1."));
    CHECK(err.find("(role dec.1.") != std::string::npos);  // the layer the tensor names
    CHECK(err.find("which this config does not have: layer count or options differ?)") != std::string::npos);
  }
  SUBCASE("unexpected: an unknown name") {
    ModelFiles f = gpt2_files();
    f.safetensors = rewrite(good.safetensors, "", {{"adapter.weight", Tensor({2, 2})}});
    CHECK(load_error(std::move(f)) ==
          "checkpoint 'gpt2_tiny/model.safetensors' (gpt2) does not match its config: 1 problem:\n"
          "  unexpected tensor 'adapter.weight'");
  }
  SUBCASE("non-float weight") {
    ModelFiles f = gpt2_files();
    f.safetensors = rewrite(good.safetensors, "ln_f.bias", {{"ln_f.bias", Tensor({16})}}, io::DType::I64);
    CHECK(load_error(std::move(f)) ==
          "checkpoint 'gpt2_tiny/model.safetensors' (gpt2) does not match its config: 1 problem:\n"
          "  tensor 'ln_f.bias' (role dec.norm.beta) has dtype I64; weights must be F32, F16 or BF16");
  }
  SUBCASE("ambiguous: the same tensor with and without the prefix") {
    ModelFiles f = gpt2_files();
    f.safetensors = rewrite(good.safetensors, "", {{"transformer.ln_f.bias", Tensor({16})}});
    CHECK(load_error(std::move(f)).find("tensors 'ln_f.bias' and 'transformer.ln_f.bias' are both 'ln_f.bias'") !=
          std::string::npos);
  }
  SUBCASE("an untied GPT-2 head is refused, not silently replaced by wte") {
    ModelFiles f = gpt2_files();
    f.safetensors = rewrite(good.safetensors, "", {{"lm_head.weight", Tensor({264, 16}, 0.5f)}});
    CHECK(load_error(std::move(f)) == "gpt2_tiny/model.safetensors: lm_head.weight differs from wte.weight, but "
                                      "GPT-2 ties them (untied heads are not supported)");
  }
  SUBCASE("a broken safetensors file names the file") {
    ModelFiles f = gpt2_files();
    f.safetensors.resize(100);
    CHECK(load_error(std::move(f)).starts_with("safetensors 'gpt2_tiny/model.safetensors': "));
  }
  SUBCASE("tokenizer larger than the embedding table") {
    ModelFiles f = gpt2_files();
    f.config_json = with_field(f.config_json, "\"vocab_size\":264", "\"vocab_size\":200");
    // (Its bos and eos ids inside the smaller vocabulary too, or the config is refused first.)
    f.config_json = with_field(with_field(f.config_json, "\"bos_token_id\":263", "\"bos_token_id\":199"),
                               "\"eos_token_id\":263", "\"eos_token_id\":199");
    f.tokenizer_json = io::read_text_file(checkpoint_dir("gpt2_tiny") + "/tokenizer.json");
    f.safetensors = rewrite(good.safetensors, "wte.weight", {{"wte.weight", Tensor({200, 16})}});
    CHECK(load_error(std::move(f)) == "gpt2_tiny: tokenizer.json has 264 tokens but the model's vocab_size is 200");
  }
}

TEST_CASE("checkpoint errors: config.json") {
  auto err = [](const std::string& text) {
    try {
      parse_config_json(text, "x/config.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  // Where it stops being JSON (nlohmann's line and column).
  CHECK(err("{") ==
        "x/config.json: not valid JSON at line 1, column 2: syntax error while parsing object key - unexpected "
        "end of input; expected string literal");
  CHECK(err("{\n  \"model_type\": \"gpt2\",\n  \"n_embd\": 16,\n}").find("at line 4, column 1") !=
        std::string::npos);
  CHECK(err("[]") == "x/config.json: expected a JSON object");
  CHECK(err("{}") == "x/config.json: missing \"model_type\" (one of gpt2, bert, llama, mistral, qwen2, qwen3, gemma2, gemma3_text, "
        "gpt_neox, gpt_neo, bloom, t5, torch_transformer, tfp)");
  CHECK(err(R"({"model_type":"mamba"})") ==
        "x/config.json: unknown model_type \"mamba\" (supported: gpt2, bert, llama, mistral, qwen2, qwen3, "
        "gemma2, gemma3_text, gpt_neox, gpt_neo, bloom, t5, torch_transformer, tfp)");
  CHECK(err(R"({"model_type":"gpt2","n_embd":16})") == "x/config.json: gpt2 config needs integer \"n_head\"");
  CHECK(err(R"({"model_type":"gpt2","n_embd":"16"})") ==
        "x/config.json: gpt2 config field \"n_embd\" must be an integer, got \"16\"");
  CHECK(err(R"({"model_type":"gpt2","n_embd":-16})") ==
        "x/config.json: gpt2 config field \"n_embd\" must not be negative, got -16");
  CHECK(err(R"({"model_type":"gpt2","n_embd":16,"n_head":3,"n_layer":1,"n_positions":8,"vocab_size":10})") ==
        "x/config.json: model config: n_heads 3 does not divide d_model 16");
  CHECK(err(R"({"model_type":"gpt2","n_embd":16,"n_head":4,"n_layer":1,"n_positions":8,"vocab_size":10,)"
            R"("activation_function":"softsign"})") ==
        "x/config.json: gpt2 config field \"activation_function\": unsupported activation \"softsign\" (supported: "
        "relu, gelu, gelu_new, gelu_pytorch_tanh, silu)");
  CHECK(err(R"({"model_type":"bert","hidden_size":16,"num_attention_heads":4,"num_hidden_layers":1,)"
            R"("intermediate_size":32,"max_position_embeddings":8,"vocab_size":10,)"
            R"("position_embedding_type":"relative_key"})") ==
        "x/config.json: bert config position_embedding_type \"relative_key\" is not supported (only \"absolute\")");
  CHECK(err(R"({"model_type":"torch_transformer","kind":"seq2seq","d_model":16,"nhead":4})") ==
        "x/config.json: torch_transformer config field \"kind\" must be \"transformer\", \"encoder\" or "
        "\"decoder\", got \"seq2seq\"");

  // Defaults: GPT-2 n_inner null → 4·n_embd, eps 1e-5, gelu_new; BERT eps 1e-12.
  const ParsedConfig g = parse_config_json(
      R"({"model_type":"gpt2","n_embd":16,"n_head":4,"n_layer":1,"n_ctx":8,"vocab_size":10,"n_inner":null})");
  CHECK(g.config.d_ff == 64);
  CHECK(g.config.max_positions == 8);
  CHECK(g.config.activation == nn::Activation::gelu_tanh);
  CHECK(g.config.norm_first);
  const ParsedConfig b = parse_config_json(
      R"({"model_type":"bert","hidden_size":16,"num_attention_heads":4,"num_hidden_layers":1,)"
      R"("intermediate_size":32,"max_position_embeddings":8,"vocab_size":10})");
  CHECK(b.config.layer_norm_eps == 1e-12f);
  CHECK(b.config.activation == nn::Activation::gelu_erf);
  CHECK(b.config.type_vocab_size == 2);
}

TEST_CASE("checkpoint errors: folders") {
  CHECK_THROWS_WITH_AS(load_model_dir("/nonexistent/model"), "load_model: '/nonexistent/model' is not a folder",
                       Error);
  const std::string fixtures = TFP_FIXTURES_DIR;
  CHECK_THROWS_WITH_AS(load_model_dir(fixtures), ("load_model: '" + fixtures + "' has no model.safetensors").c_str(),
                       Error);
}

TEST_CASE("config.json id2label: names by id, written back, bad maps refused by name") {
  const std::string text = io::read_text_file(std::string(TFP_FIXTURES_DIR) + "/../../models/brown-pos/config.json");
  const ParsedConfig p = parse_config_json(text, "brown-pos/config.json");
  // brown-pos: 12 coarse tags, ids 0..11 (the file lists them in key order "0", "1", "10", ...).
  REQUIRE(p.config.id2label.size() == 12);
  CHECK(p.config.id2label[0] == "NOUN");
  CHECK(p.config.id2label[10] == ".");
  CHECK(p.config.id2label[11] == "X");
  // Written back by config_to_json (what tfp_model_info_json's "config" carries).
  const ParsedConfig again = parse_config_json(config_to_json(p.config));
  CHECK(again.config.id2label == p.config.id2label);

  auto err = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    try {
      parse_config_json(t, "x/config.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(err("\"0\": \"NOUN\"", "\"12\": \"NOUN\"") ==
        "x/config.json: tfp config field \"id2label\": key \"12\" is not one of the ids 0..11 (each once)");
  CHECK(err("\"0\": \"NOUN\"", "\"x\": \"NOUN\"") ==
        "x/config.json: tfp config field \"id2label\": key \"x\" is not one of the ids 0..11 (each once)");
  CHECK(err("\"0\": \"NOUN\"", "\"0\": 5") ==
        "x/config.json: tfp config field \"id2label\": label 0 must be a string, got 5");
  CHECK(err("\"n_labels\": 12", "\"n_labels\": 11") ==
        "x/config.json: model config: id2label names 12 labels, n_labels is 11");
}

TEST_CASE("checkpoint errors: a NaN or infinity in any weight is refused with the tensor and the first bad index") {
  const std::string dir = tfp::testing::checkpoint_dir("gpt2_tiny");
  const io::SafeTensors st = io::SafeTensors::load(dir + "/model.safetensors");
  auto with_bad = [&](const std::string& target, int64_t flat, float value) {
    io::SafeTensorsWriter w;
    for (const io::TensorEntry& e : st.entries()) {
      const TensorView v = st.f32(e);
      std::vector<float> data(v.data, v.data + v.numel());
      if (e.name == target) data[static_cast<size_t>(flat)] = value;
      w.add_f32(e.name, e.shape, data.data());
    }
    model::ModelFiles f;
    f.name = "bad";
    f.config_json = io::read_text_file(dir + "/config.json");
    f.safetensors = w.finish();
    return f;
  };
  CHECK_THROWS_WITH_AS(model::load_model(with_bad("h.1.mlp.c_fc.weight", 19, std::nanf(""))),
                       doctest::Contains("tensor 'h.1.mlp.c_fc.weight' (role dec.1.ffn.fc1.weight) holds NaN at "
                                         "index [0, 19] (flat 19)"),
                       Error);
  CHECK_THROWS_WITH_AS(model::load_model(with_bad("wte.weight", 17, -INFINITY)),
                       doctest::Contains("tensor 'wte.weight' (role embed.token) holds an infinity at index [1, 1]"),
                       Error);
  CHECK_NOTHROW(model::load_model(with_bad("wte.weight", 17, 1e30f)));  // huge but finite: fine
}
