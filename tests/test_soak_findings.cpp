// Issue 32's soak findings (bench/soak_folders.mjs: 10,000 mutated folders through the WASM
// module; bench/RESULTS.md, "Soak"), each a regression: a token id beyond what tokenizer.json
// holds refused by name before anything is sized by it (2^31 - 1 was "internal error:
// vector", 100,000,000 took 1.13 GiB before the refusal); a TemplateProcessing template whose
// pieces expand to millions of tokens refused before they are copied (8,192 pieces × 8,193
// tokens took 391 MiB, then ran out of memory); messages that name the file once and quote a
// bounded prefix of what the file holds (a dtype, a tensor name, an id2label key). The broken files are made here from the fixtures.
// Also run under ASan + UBSan (fuzz/san_tests.cmake); the inputs the fuzz targets replay are
// in fuzz/regressions/fuzz_json_tokenizer/issue32-soak-* and fuzz_json_safetensors/.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/file.h"
#include "io/safetensors.h"
#include "model/config_json.h"
#include "model/model.h"
#include "test_checkpoint_util.h"
#include "tokenizer/pipeline_json.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_json.h"

using namespace tfp;
using nlohmann::json;
using tfp::testing::checkpoint_dir;
using tfp::testing::error_of;

namespace {

json tokenizer_of(const std::string& dir) { return json::parse(io::read_text_file(dir + "/tokenizer.json")); }
const std::string kDates = std::string(TFP_FIXTURES_DIR) + "/../../models/dates";

size_t count_of(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

// 8-byte little-endian length + header text + data bytes.
std::vector<uint8_t> safetensors_file(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out;
  const uint64_t n = header.size();  // 64-bit: size_t is 32 bits in WASM
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>((n >> (8 * i)) & 0xFF));
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data_bytes, 0);
  return out;
}

// gpt2_tiny's model.safetensors with its header changed by `edit` (the data kept).
template <typename Edit>
std::vector<uint8_t> gpt2_safetensors_with(Edit&& edit) {
  const std::vector<uint8_t> file = io::read_file(checkpoint_dir("gpt2_tiny") + "/model.safetensors");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[static_cast<size_t>(i)];
  json header = json::parse(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  edit(header);
  std::vector<uint8_t> out = safetensors_file(header.dump(), 0);
  out.insert(out.end(), file.begin() + 8 + static_cast<std::ptrdiff_t>(n), file.end());
  return out;
}

std::string safetensors_error(const std::string& header, size_t data_bytes) {
  return error_of([&] { io::SafeTensors::parse(safetensors_file(header, data_bytes), "t.safetensors"); });
}

}  // namespace

TEST_CASE("soak: a token id beyond the entries and added tokens the file holds is refused by name") {
  // gpt2_tiny (BPE): 264 model.vocab entries and 1 added token, so ids run 0..264.
  const json gpt2 = tokenizer_of(checkpoint_dir("gpt2_tiny"));
  REQUIRE(gpt2["model"]["vocab"].size() == 264);
  REQUIRE(gpt2["added_tokens"].size() == 1);
  const std::string bound = ", not a valid token id: ids must be below 265, the number of model.vocab entries (264) "
                            "and added tokens (1) the file holds";
  for (const int64_t id : {int64_t{100'000'000}, int64_t{2'147'483'647}, int64_t{2'147'483'648}, int64_t{265}}) {
    json t = gpt2;
    t["model"]["vocab"]["a"] = id;
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "soak-754/tokenizer.json"); }) ==
          "soak-754/tokenizer.json: model.vocab[\"a\"] is " + std::to_string(id) + bound);
  }
  {
    json t = gpt2;
    t["model"]["vocab"]["a"] = -1;
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "t.json"); }) ==
          "t.json: model.vocab[\"a\"] is -1, not a valid token id: ids must be below 265, the number of model.vocab "
          "entries (264) and added tokens (1) the file holds");
    t["model"]["vocab"]["a"] = 1.5;
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "t.json"); }) ==
          "t.json: model.vocab[\"a\"] is 1.5, not a token id (an integer)");
  }
  // The largest valid id is taken (an added token after the vocab's), the next one is not.
  {
    json t = gpt2;
    t["added_tokens"].push_back({{"id", 265}, {"content", "<x>"}, {"special", true}});
    const Tokenizer tok = load_tokenizer_json(t.dump(), "t.json");
    CHECK(tok.vocab_size() == 266);
    CHECK(tok.token_to_id("<x>") == 265);
    t["added_tokens"].back()["id"] = 266;
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "t.json"); }) ==
          "t.json: added_tokens[1].id is 266, not a valid token id: ids must be below 266, the number of model.vocab "
          "entries (264) and added tokens (2) the file holds");
  }
  // The saved findings' models: Char (models/dates), WordPiece (bert_tiny), and WordLevel.
  {
    json t = tokenizer_of(kDates);
    t["model"]["vocab"]["L"] = 2'147'483'647;
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "soak-1566/tokenizer.json"); }) ==
          "soak-1566/tokenizer.json: model.vocab[\"L\"] is 2147483647, not a valid token id: ids must be below 73, "
          "the number of model.vocab entries (73) and added tokens (0) the file holds");
  }
  {
    json t = tokenizer_of(checkpoint_dir("bert_tiny"));
    t["model"]["vocab"]["house"] = 2'147'483'647;
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "soak-371/tokenizer.json"); }) ==
          "soak-371/tokenizer.json: model.vocab[\"house\"] is 2147483647, not a valid token id: ids must be below 45, "
          "the number of model.vocab entries (40) and added tokens (5) the file holds");
  }
  {
    const json t = {{"model", {{"type", "WordLevel"}, {"vocab", {{"[UNK]", 0}, {"a", 100'000'000}}}, {"unk_token", "[UNK]"}}}};
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "w.json"); }) ==
          "w.json: model.vocab[\"a\"] is 100000000, not a valid token id: ids must be below 2, the number of "
          "model.vocab entries (2) and added tokens (0) the file holds");
  }
  // A long token is quoted by its first characters.
  {
    json t = tokenizer_of(kDates);
    t["model"]["vocab"][std::string(100'000, 'k')] = 100'000'000;
    const std::string err = error_of([&] { load_tokenizer_json(t.dump(), "t.json"); });
    CHECK(err.starts_with("t.json: model.vocab[\"" + std::string(60, 'k') + "…\"] is 100000000, not a valid token id"));
    CHECK(err.size() < 300);
  }
  // Through the model loader, as the page opens a folder: the tokenizer's message, by file.
  {
    json t = gpt2;
    t["model"]["vocab"]["a"] = 100'000'000;
    model::ModelFiles f;
    f.name = "soak-754";
    f.config_json = io::read_text_file(checkpoint_dir("gpt2_tiny") + "/config.json");
    f.safetensors = io::read_file(checkpoint_dir("gpt2_tiny") + "/model.safetensors");
    f.tokenizer_json = t.dump();
    CHECK(error_of([&] { model::load_model(std::move(f)); }) ==
          "soak-754/tokenizer.json: model.vocab[\"a\"] is 100000000" + bound);
  }
}

TEST_CASE("soak: a TemplateProcessing template that expands to millions of tokens is refused before they are copied") {
  const json bert = tokenizer_of(checkpoint_dir("bert_tiny"));
  auto with_post = [&](const json& post) {
    json t = bert;
    t["post_processor"] = post;
    return t.dump();
  };
  auto special = [](const std::string& name) { return json{{"SpecialToken", {{"id", name}, {"type_id", 0}}}}; };
  const json sequence = {{"Sequence", {{"id", "A"}, {"type_id", 0}}}};

  // The soak's file (seed 2, folder 4805): 8,192 [CLS] pieces, [CLS] standing for 8,193 tokens.
  json single = json::array();
  for (int i = 0; i < 8192; ++i) single.push_back(special("[CLS]"));
  single.push_back(sequence);
  const json many_tokens(std::vector<std::string>(8193, "[CLS]"));
  const json soak = {{"type", "TemplateProcessing"},
                     {"single", single},
                     {"special_tokens", {{"[CLS]", {{"id", "[CLS]"}, {"ids", json::array()}, {"tokens", many_tokens}}}}}};
  CHECK(error_of([&] { load_tokenizer_json(with_post(soak), "soak-4805/tokenizer.json"); }) ==
        "soak-4805/tokenizer.json: post_processor.special_tokens.[CLS].tokens makes the post-processor add 0 + 8193 "
        "special tokens around every text: at most 1024 are supported");

  // One token a piece: refused at the piece that passes the bound (here the 1,025th).
  json one = soak;
  one["special_tokens"]["[CLS]"]["tokens"] = json::array({"[CLS]"});
  CHECK(error_of([&] { load_tokenizer_json(with_post(one), "t.json"); }) ==
        "t.json: post_processor.single[1024] makes the post-processor add 1024 + 1 special tokens around every text: "
        "at most 1024 are supported");
  // Across the processors of a Sequence, and on either side of the text.
  json half = one;
  half["single"] = json::array();
  for (int i = 0; i < 600; ++i) half["single"].push_back(special("[CLS]"));
  half["single"].push_back(sequence);
  for (int i = 0; i < 400; ++i) half["single"].push_back(special("[SEP]"));
  const json two = {{"type", "Sequence"}, {"processors", json::array({half, half})}};
  CHECK(error_of([&] { load_tokenizer_json(with_post(two), "t.json"); }) ==
        "t.json: post_processor.processors[1].single[24] makes the post-processor add 1024 + 1 special tokens "
        "around every text: at most 1024 are supported");
  // At the bound it loads, and an entry named by several pieces expands each time (read once).
  const Tokenizer at_bound = load_tokenizer_json(with_post(half), "t.json");
  CHECK(at_bound.encode("").ids.size() == 1000);
  json pair = soak;
  pair["single"] = json::array({special("[CLS]"), sequence, special("[CLS]")});
  pair["special_tokens"]["[CLS]"]["tokens"] = json::array({"[CLS]", "[SEP]"});
  const Tokenizer twice = load_tokenizer_json(with_post(pair), "t.json");
  const int32_t cls = *twice.token_to_id("[CLS]"), sep = *twice.token_to_id("[SEP]");
  CHECK(twice.encode("").ids == std::vector<int32_t>{cls, sep, cls, sep});
  CHECK(kMaxPostProcessorTokens == 1024);
}

TEST_CASE("soak: messages name the file once and quote a bounded prefix of what it holds") {
  // (a) A model's own message gets the file in front once, whatever the model type.
  const json gpt2 = tokenizer_of(checkpoint_dir("gpt2_tiny"));
  {
    json t = gpt2;
    t["model"]["vocab"]["a"] = "zero";  // BPE: read_vocab's message already names the file
    const std::string err = error_of([&] { load_tokenizer_json(t.dump(), "soak-273/tokenizer.json"); });
    CHECK(err == "soak-273/tokenizer.json: model.vocab[\"a\"] is \"zero\", not a token id (an integer)");
    CHECK(count_of(err, "soak-273/tokenizer.json") == 1);
    t = gpt2;
    t["model"]["merges"] = json::array({"a zz"});  // the BPE constructor's message
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "soak-273/tokenizer.json"); }) ==
          "soak-273/tokenizer.json: bpe: merge 0 (\"a\", \"zz\") uses or makes a token that is not in the vocab");
  }
  for (const char* type : {"WordLevel", "WordPiece", "Char"}) {
    CAPTURE(type);
    const json bad_id = {{"model", {{"type", type}, {"vocab", {{"a", "x"}}}, {"unk_token", "a"}}}};
    const std::string err = error_of([&] { load_tokenizer_json(bad_id.dump(), "s/tokenizer.json"); });
    CHECK(err == "s/tokenizer.json: model.vocab[\"a\"] is \"x\", not a token id (an integer)");
    const json bad_unk = {{"model", {{"type", type}, {"vocab", {{"a", 0}}}, {"unk_token", std::string(10'000, 'u')}}}};
    const std::string unk = error_of([&] { load_tokenizer_json(bad_unk.dump(), "s/tokenizer.json"); });
    CHECK(unk.starts_with("s/tokenizer.json: "));
    CHECK(count_of(unk, "s/tokenizer.json") == 1);
    CHECK(unk.find("unk_token \"" + std::string(60, 'u') + "…\" is not in the vocab") != std::string::npos);
  }
  // A long merge, a long replacement character and a long post-processor token: excerpts.
  {
    json t = gpt2;
    t["model"]["merges"] = json::array({std::string(100'000, 'm')});
    const std::string err = error_of([&] { load_tokenizer_json(t.dump(), "t.json"); });
    CHECK(err == "t.json: model.merges[0] \"" + std::string(60, 'm') + "…\" is not two tokens separated by one space");
    t = gpt2;
    t["model"]["merges"] = json::array({json::array({std::string(100'000, 'm'), "a"})});
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "t.json"); }).size() < 300);
    t = gpt2;
    t["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", std::string(100'000, 'r')}};
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "t.json"); }) ==
          "t.json: pre_tokenizer.replacement \"" + std::string(60, 'r') + "…\" is not exactly one character");
    t = gpt2;
    t["post_processor"] = {{"type", "BertProcessing"}, {"cls", {std::string(100'000, 'c'), 0}}, {"sep", {"a", 1}}};
    CHECK(error_of([&] { load_tokenizer_json(t.dump(), "t.json"); }) ==
          "t.json: tokenizer: post-processor token \"" + std::string(60, 'c') + "…\" is not in the vocab");
  }

  // (b) The safetensors header: a 512 KiB dtype, a 1 MB name, a shape of 100,000 dimensions.
  const std::string dtype(512 * 1024, 'D');
  CHECK(safetensors_error(R"({"w":{"dtype":")" + dtype + R"(","shape":[1],"data_offsets":[0,4]}})", 4) ==
        "safetensors 't.safetensors': tensor 'w': unknown dtype '" + std::string(60, 'D') + "…'");
  const std::string name(1'000'000, 'n');
  CHECK(safetensors_error(R"({")" + name + R"(":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", 8) ==
        "safetensors 't.safetensors': tensor '" + std::string(200, 'n') + "…': shape [1] of F32 needs 4 bytes but "
        "data_offsets [0, 8] hold 8");
  std::string dims = "1";
  for (int i = 1; i < 100'000; ++i) dims += ",1";
  CHECK(safetensors_error(R"({"w":{"dtype":"F32","shape":[)" + dims + R"(],"data_offsets":[0,8]}})", 8) ==
        "safetensors 't.safetensors': tensor 'w': shape [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, … "
        "(100000 dimensions)] of F32 needs 4 bytes but data_offsets [0, 8] hold 8");
  // A valid file whose tensor has a 100 KB name: the binder's list of problems, each line
  // at most 300 bytes (it was the whole name).
  model::ModelFiles f;
  f.name = "long";
  f.config_json = io::read_text_file(checkpoint_dir("gpt2_tiny") + "/config.json");
  f.safetensors = gpt2_safetensors_with([](json& h) {
    h[std::string(100'000, 'n')] = h["h.0.attn.c_attn.bias"];
    h.erase("h.0.attn.c_attn.bias");
  });
  const std::string bind = error_of([&] { model::load_model(std::move(f)); });
  CHECK(bind.starts_with("checkpoint 'long/model.safetensors' (gpt2) does not match its config: "));
  CHECK(bind.find("\n  unexpected tensor '" + std::string(281, 'n') + "…") != std::string::npos);
  CHECK(bind.size() < 2000);
  // (c) config.json: an id2label key of 200,000 characters (seed 1, folder 6432: a 196 KB message).
  json cfg = json::parse(io::read_text_file(std::string(TFP_FIXTURES_DIR) + "/../../models/numbers-transformer/config.json"));
  cfg["id2label"] = {{"0", "A"}, {std::string(200'000, 'k'), "B"}};
  CHECK(error_of([&] { model::parse_config_json(cfg.dump(), "soak-6432/config.json"); }) ==
        "soak-6432/config.json: tfp config field \"id2label\": key \"" + std::string(60, 'k') +
            "…\" is not one of the ids 0..1 (each once)");
  // (d) A syntax error inside a 600 KB string (seed 2, folder 4486; seed 3, folder 6088):
  // nlohmann's "last read" token, and a number of 100,000 digits, by their first characters.
  std::string long_string;
  for (int i = 0; i < 200'000; ++i) long_string += "\u4e2d";  // 中
  const std::string bad_config = R"({"model_type": ")" + long_string + "\x01\"}";
  const std::string config_err = error_of([&] { model::parse_config_json(bad_config, "soak-4486/config.json"); });
  CHECK(config_err.starts_with("soak-4486/config.json: not valid JSON at line 1, column 600017: syntax error while "
                               "parsing value - invalid string: control character U+0001 (SOH) must be escaped to "
                               "\\u0001; last read: '\"" + long_string.substr(0, 57) + "…'"));
  CHECK(config_err.size() < 400);
  const std::string tok_err = error_of([&] { load_tokenizer_json("{\"model\": \"" + long_string + "\xff\"}", "t.json"); });
  CHECK(tok_err.starts_with("t.json: malformed JSON (600014 bytes) at line 1, column "));
  CHECK(tok_err.size() < 400);
  const std::string digits = "1" + std::string(100'000, '0');
  const std::string number_err = error_of([&] { load_tokenizer_json("{\"model\": " + digits + "}", "t.json"); });
  CHECK(number_err == "t.json: malformed JSON (100012 bytes) number overflow parsing '" + digits.substr(0, 60) + "…'");
  // Short ones are quoted whole, as before.
  CHECK(safetensors_error(R"({"w":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}})", 4) ==
        "safetensors 't.safetensors': tensor 'w': unknown dtype 'Q7'");
}
