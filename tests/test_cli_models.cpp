// Every shipped model folder (models/*, listed from the disk so a new one is covered)
// loads with `tfp info` and runs with `tfp forward --attention`, the recurrent
// numbers-gru included; the printed shapes follow the architecture: [T][V] logits,
// [layer][head][Tq][Tk] attention (an encoder–decoder's three kinds under their own keys;
// the GRU's additive attention is one cross-attention layer of one head and it has no
// self-attention layers). The READMEs' example commands decode as the cards say.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "test_checkpoint_util.h"
#include "test_cli_util.h"

using tfp::testing::run_cli;

namespace {

std::string models_dir() { return tfp::testing::repo_dir() + "/models"; }

std::vector<std::string> shipped_models() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(models_dir()))
    if (e.is_directory() && std::filesystem::exists(e.path() / "config.json")) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// The shape of a nested JSON array ({} for a number; an empty array is {0}).
std::vector<size_t> shape_of(const nlohmann::json& j) {
  std::vector<size_t> s;
  const nlohmann::json* p = &j;
  while (p->is_array()) {
    s.push_back(p->size());
    if (p->empty()) break;
    p = &(*p)[0];
  }
  return s;
}

}  // namespace

TEST_CASE("cli shipped models: every folder loads with info and runs with forward") {
  const std::vector<std::string> names = shipped_models();
  for (const char* must : {"brown-gpt", "brown-pos", "dates", "numbers-gru", "numbers-transformer"})
    CHECK(std::find(names.begin(), names.end(), must) != names.end());
  for (const std::string& name : names) {
    CAPTURE(name);
    const std::string dir = models_dir() + "/" + name;
    const tfp::testing::CliRun info = run_cli({"info", dir});
    INFO(info.err);
    REQUIRE(info.code == 0);
    const nlohmann::json i = info.json();
    CHECK(i["description"]["summary"].get<std::string>().size() > 40);
    REQUIRE(i["tokenizer"].is_object());
    const std::string arch = i["architecture"];
    const bool recurrent = i["description"]["kind"] == "recurrent";
    const int64_t V = i["config"]["vocab_size"];
    const int64_t L_enc = i["description"]["layers"]["encoder"], L_dec = i["description"]["layers"]["decoder"];
    const size_t H = recurrent ? 1 : i["description"]["attention"]["heads"].get<size_t>();

    std::vector<std::string> args{"forward", dir, "--ids", "3,4,5,6", "--attention"};
    const size_t S = 4, T = 3;
    if (arch == "encoder_decoder") {
      const int64_t start = i["decoder_start_token_id"];
      REQUIRE(start >= 0);
      args.insert(args.end(), {"--decoder-ids", std::to_string(start) + ",5,6"});
    }
    const tfp::testing::CliRun fwd = run_cli(args);
    INFO(fwd.err);
    REQUIRE(fwd.code == 0);
    const nlohmann::json f = fwd.json();
    if (arch == "decoder_only") {
      CHECK(shape_of(f["logits"]) == std::vector<size_t>{S, size_t(V)});
      CHECK(shape_of(f["attention"]) == std::vector<size_t>{size_t(L_dec), H, S, S});
    } else if (arch == "encoder_only") {
      CHECK(shape_of(f["hidden"]).size() == 2);
      CHECK(shape_of(f["logits"])[0] == S);  // a tagger: [T][labels]
      CHECK(shape_of(f["attention"]) == std::vector<size_t>{size_t(L_enc), H, S, S});
    } else {
      CHECK(shape_of(f["logits"]) == std::vector<size_t>{T, size_t(V)});
      CHECK(shape_of(f["cross_attentions"]) == std::vector<size_t>{recurrent ? 1 : size_t(L_dec), H, T, S});
      if (recurrent) {
        CHECK(f["encoder_attentions"] == nlohmann::json::array());  // no self-attention layers
        CHECK(f["decoder_attentions"] == nlohmann::json::array());
      } else {
        CHECK(shape_of(f["encoder_attentions"]) == std::vector<size_t>{size_t(L_enc), H, S, S});
        CHECK(shape_of(f["decoder_attentions"]) == std::vector<size_t>{size_t(L_dec), H, T, T});
      }
    }
  }
}

TEST_CASE("cli shipped models: the encoder-decoders' README commands") {
  const std::string gru = models_dir() + "/numbers-gru", tr = models_dir() + "/numbers-transformer";
  for (const std::string& dir : {gru, tr}) {
    CAPTURE(dir);
    // tfp forward DIR --text "forty-two" --tgt-text ">42" --attention (the cards' command)
    const nlohmann::json f =
        run_cli({"forward", dir, "--text", "forty-two", "--tgt-text", ">42", "--attention"}).json();
    CHECK(f["decoder_tokens"] == nlohmann::json({">", "4", "2"}));
    CHECK(shape_of(f["cross_attentions"])[2] == 3);
    const nlohmann::json g = run_cli({"generate", dir, "--prompt", "forty-two"}).json();
    CHECK(g["text"] == "42.");
    CHECK(g["stop_reason"] == "eos");
    CHECK(g["decoder_start_token_id"] == 2);
  }
  const nlohmann::json info = run_cli({"info", gru}).json();
  CHECK(info["model_type"] == "tfp_gru_seq2seq");
  CHECK(info["description"]["attention"]["kind"] == "additive");
  CHECK(info["parameters"] == 193187);
  const nlohmann::json dates =
      run_cli({"generate", models_dir() + "/dates", "--prompt", "3 March 2021", "--max-tokens", "12"}).json();
  CHECK(dates["text"] == "2021-03-03#");
}
