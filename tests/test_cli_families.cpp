// The tfp tool on every model family (tests/fixtures/families, golden values from the
// plain-PyTorch references of gen_families.py): `tfp generate DIR --ids <greedy prompt>
// --max-tokens 6 --temperature 0` prints exactly the reference's six greedy tokens, for
// the decoder-only families and for T5 (decoded from decoder_start_token_id through the KV
// cache); `tfp forward` prints logits within 1e-4 and attention probabilities within 2e-5
// — for T5 all three kinds, each under its own key, [layer][head][Tq][Tk]; `tfp info`
// describes each family's machinery (positions, heads, norms, windows, soft-caps).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "test_checkpoint_util.h"
#include "test_cli_util.h"

using tfp::testing::csv;
using tfp::testing::read_json;
using tfp::testing::run_cli;

namespace {

std::string family_dir(const std::string& name) { return std::string(TFP_FIXTURES_DIR) + "/families/" + name; }

// Every case folder (a new fixture is picked up without editing this test).
std::vector<std::string> family_cases() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(std::string(TFP_FIXTURES_DIR) + "/families"))
    if (e.is_directory() && std::filesystem::exists(e.path() / "expected.json")) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

bool is_t5(const nlohmann::json& want) { return want.contains("decoder_input_ids"); }

// Max |a - b| over two nested JSON arrays of the same shape.
double max_diff(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<double> x, y;
  tfp::Shape sx, sy;
  tfp::testing::flatten(a, x, sx);
  tfp::testing::flatten(b, y, sy);
  REQUIRE(sx == sy);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(x[i] - y[i]));
  return worst;
}

nlohmann::json info_of(const std::string& name) {
  const tfp::testing::CliRun r = run_cli({"info", family_dir(name)});
  REQUIRE(r.code == 0);
  return r.json()["description"];
}

}  // namespace

TEST_CASE("cli families: generate --ids, greedy, prints the reference's six tokens for every family") {
  const std::vector<std::string> cases = family_cases();
  CHECK(cases.size() >= 14);
  for (const std::string& name : cases) {
    CAPTURE(name);
    const nlohmann::json want = read_json(family_dir(name) + "/expected.json");
    const tfp::testing::CliRun r = run_cli({"generate", family_dir(name), "--ids", csv(want["greedy"]["input_ids"]),
                                            "--max-tokens", "6", "--temperature", "0"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json j = r.json();
    CHECK(j["ids"] == want["greedy"]["tokens"]);
    CHECK(j["prompt_ids"] == want["greedy"]["input_ids"]);
    CHECK(j["stop_reason"] == "max_tokens");
    CHECK(j["probs"].size() == 6);
    CHECK_FALSE(j.contains("tokens"));  // no tokenizer.json in these folders: ids only
    CHECK_FALSE(j.contains("text"));
    if (is_t5(want)) {
      CHECK(j["decoder_start_token_id"] == want["greedy"]["decoder_start_token_id"]);
      // Beam search of size 1 is the greedy path; --beam 1 given explicitly is the same.
      const nlohmann::json b = run_cli({"generate", family_dir(name), "--ids", csv(want["greedy"]["input_ids"]),
                                        "--max-tokens", "6", "--beam", "1"})
                                   .json();
      CHECK(b["ids"] == j["ids"]);
      CHECK(b["probs"] == j["probs"]);
    } else {
      CHECK_FALSE(j.contains("decoder_start_token_id"));
    }
  }
}

TEST_CASE("cli families: forward prints logits and attention within the tolerances") {
  for (const std::string& name : family_cases()) {
    CAPTURE(name);
    const nlohmann::json want = read_json(family_dir(name) + "/expected.json");
    if (is_t5(want)) {
      const tfp::testing::CliRun r = run_cli({"forward", family_dir(name), "--ids", csv(want["input_ids"]),
                                              "--decoder-ids", csv(want["decoder_input_ids"]), "--attention"});
      INFO(r.err);
      REQUIRE(r.code == 0);
      const nlohmann::json j = r.json();
      CHECK(j["ids"] == want["input_ids"]);
      CHECK(j["decoder_ids"] == want["decoder_input_ids"]);
      CHECK(max_diff(j["logits"], want["logits"]) < 1e-4);
      // [layer][head][S][S], [layer][head][T][T], [layer][head][T][S]
      CHECK(max_diff(j["encoder_attentions"], want["encoder_attentions"]) < 2e-5);
      CHECK(max_diff(j["decoder_attentions"], want["decoder_attentions"]) < 2e-5);
      CHECK(max_diff(j["cross_attentions"], want["cross_attentions"]) < 2e-5);
      // The older keys and flags still work and say the same.
      CHECK(j["attention"]["encoder"] == j["encoder_attentions"]);
      CHECK(j["attention"]["decoder"] == j["decoder_attentions"]);
      CHECK(j["attention"]["cross"] == j["cross_attentions"]);
      CHECK(j["tgt_ids"] == j["decoder_ids"]);
      const nlohmann::json old = run_cli({"forward", family_dir(name), "--ids", csv(want["input_ids"]), "--tgt-ids",
                                          csv(want["decoder_input_ids"])})
                                     .json();
      CHECK(old["logits"] == j["logits"]);
      CHECK_FALSE(old.contains("cross_attentions"));
    } else {
      const tfp::testing::CliRun r =
          run_cli({"forward", family_dir(name), "--ids", csv(want["input_ids"]), "--attention"});
      INFO(r.err);
      REQUIRE(r.code == 0);
      const nlohmann::json j = r.json();
      CHECK(max_diff(j["logits"], want["logits"]) < 1e-4);
      CHECK(max_diff(j["attention"], want["attentions"]) < 2e-5);  // [layer][head][T][T]
      CHECK_FALSE(j.contains("cross_attentions"));
    }
  }
}

TEST_CASE("cli families: encoder-decoder errors name the decoder input and the decoding options") {
  const std::string t5 = family_dir("t5_v1_0");
  auto fails = [](std::vector<std::string> args, const std::string& message) {
    const tfp::testing::CliRun r = run_cli(std::move(args));
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(r.error() == message);
  };
  fails({"forward", t5, "--ids", "1,2"},
        "forward: an encoder-decoder model needs the decoder's input too: --decoder-ids 1,2,3 (starting with its "
        "decoder start token 0), --decoder-text TEXT or --decoder-text-file PATH");
  fails({"forward", t5, "--ids", "1,2", "--decoder-ids", "0", "--tgt-ids", "0"},
        "forward: give --decoder-ids or its older name --tgt-ids, not both");
  fails({"forward", t5, "--ids", "1,2", "--decoder-text", "x"},
        "forward: --decoder-text needs a tokenizer.json in '" + t5 + "' (or give --decoder-ids)");
  fails({"forward", family_dir("llama_gqa"), "--ids", "1,2", "--decoder-ids", "0"},
        "forward: --decoder-ids does not apply to a decoder-only model");
  fails({"generate", t5, "--ids", "1,2", "--temperature", "0.8"},
        "generate: '" + t5 +
            "' is an encoder-decoder model: it decodes greedily (--temperature 0, the default for it) or by beam "
            "search (--beam N); --temperature > 0, --top-k, --top-p and --seed are for decoder-only models");
  fails({"generate", family_dir("llama_gqa"), "--ids", "1,2", "--beam", "2"},
        "generate: --beam applies to encoder-decoder models; '" + family_dir("llama_gqa") +
            "' is decoder-only (use --temperature 0 for greedy)");
  fails({"generate", family_dir("llama_gqa"), "--ids", "1,2", "--decoder-start-id", "0"},
        "generate: --decoder-start-id applies to encoder-decoder models; '" + family_dir("llama_gqa") +
            "' is decoder-only");
  fails({"generate", t5, "--ids", "1,2", "--decoder-start-id", "9999"},
        "translate: start token id 9999 is outside the vocabulary [0, 64)");
  fails({"generate", family_dir("llama_gqa"), "--prompt", "hi"},
        "generate: --prompt needs a tokenizer.json in '" + family_dir("llama_gqa") + "' (or give --ids)");
  fails({"generate", family_dir("llama_gqa")},
        "generate: give the prompt as --prompt TEXT, --text-file PATH or --ids 1,2,3");
  // Beam search of 3 runs and returns at most --max-tokens tokens.
  const nlohmann::json b = run_cli({"generate", t5, "--ids", "5,6,7", "--beam", "3", "--max-tokens", "4"}).json();
  CHECK(b["ids"].size() <= 4);
  CHECK(b["probs"].size() == b["ids"].size());
  // --decoder-start-id: the config's own start gives the default path; another id is echoed.
  const std::string src = csv(read_json(t5 + "/expected.json")["greedy"]["input_ids"]);
  const nlohmann::json d0 = run_cli({"generate", t5, "--ids", src, "--max-tokens", "6"}).json();
  CHECK(run_cli({"generate", t5, "--ids", src, "--max-tokens", "6", "--decoder-start-id", "0"}).json()["ids"] ==
        d0["ids"]);
  CHECK(run_cli({"generate", t5, "--ids", src, "--max-tokens", "6", "--decoder-start-id", "3"})
            .json()["decoder_start_token_id"] == 3);
}

TEST_CASE("cli families: info describes each family's machinery") {
  const nlohmann::json llama = info_of("llama_gqa");
  CHECK(llama["positions"]["kind"] == "rope");
  CHECK(llama["positions"]["base"] == 10000.0);
  CHECK(llama["positions"]["pairing"] == "rotate_half");
  CHECK(llama["attention"]["heads"] == 4);
  CHECK(llama["attention"]["kv_heads"] == 2);
  CHECK(llama["attention"]["kind"] == "grouped-query");
  CHECK(llama["attention"]["head_dim"] == 8);
  CHECK(llama["norm"]["kind"] == "rms_norm");
  CHECK(llama["norm"]["placement"] == "pre");
  CHECK(llama["mlp"]["gated"] == true);
  CHECK(llama["head"]["tied"] == false);
  CHECK(llama["summary"].get<std::string>().find("grouped-query") != std::string::npos);

  const nlohmann::json l3 = info_of("llama3_scaled_tied");
  CHECK(l3["positions"]["scaling"]["type"] == "llama3");
  CHECK(l3["positions"]["scaling"]["factor"] == 8.0);
  CHECK(l3["positions"]["scaling"]["original_max_positions"] == 64);
  CHECK(l3["attention"]["head_dim"] == 16);  // explicit head_dim != 32 / 4

  const nlohmann::json neox = info_of("pythia_parallel");
  CHECK(neox["positions"]["fraction"] == 0.25);
  CHECK(neox["positions"]["rotated_dims"] == 4);  // of D = 16
  CHECK(neox["residual"] == "parallel");
  CHECK(neox["norm"]["kind"] == "layer_norm");

  const nlohmann::json neo = info_of("gpt_neo_local");
  CHECK(neo["positions"]["kind"] == "learned");
  CHECK(neo["attention"]["windows"] == nlohmann::json({0, 4, 0, 4}));
  CHECK(neo["attention"]["scale_rule"] == "none");
  CHECK(neo["attention"]["scale"] == 1.0);

  const nlohmann::json bloom = info_of("bloom_alibi");
  CHECK(bloom["positions"]["kind"] == "alibi");
  // 6 heads: the 4 slopes of 4 heads (2^-2, 2^-4, 2^-6, 2^-8), then slopes 0 and 2 of 8 heads (2^-1, 2^-3).
  CHECK(bloom["positions"]["slopes"] == nlohmann::json({0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125}));
  CHECK(bloom["norm"]["embedding_norm"] == true);

  const nlohmann::json g2 = info_of("gemma2");
  CHECK(g2["norm"]["weight"] == "1 + w");
  CHECK(g2["norm"]["placement"] == "sandwich");
  CHECK(g2["attention"]["softcap"] == 5.0);
  CHECK(g2["head"]["final_softcap"] == 6.0);
  CHECK(g2["attention"]["scale_text"] == "1/sqrt(8)");  // query_pre_attn_scalar 8, head_dim 12
  CHECK(g2["attention"]["windows"] == nlohmann::json({4, 0, 4, 0}));
  CHECK(std::fabs(g2["embeddings"]["scale"].get<double>() - std::sqrt(32.0)) < 1e-5);

  const nlohmann::json g3 = info_of("gemma3_text");
  CHECK(g3["positions"]["base"] == 1e6);
  CHECK(g3["positions"]["local_base"] == 1e4);
  CHECK(g3["positions"]["base_per_layer"] == nlohmann::json({1e4, 1e4, 1e6, 1e4, 1e4}));
  CHECK(g3["positions"]["scaling"]["type"] == "linear");
  CHECK(g3["positions"]["scaling"]["applies_to"] == "global layers");
  CHECK(g3["attention"]["windows"] == nlohmann::json({4, 4, 0, 4, 4}));
  CHECK(g3["attention"]["kind"] == "multi-query");
  CHECK(g3["attention"]["qk_norm"] == true);

  const nlohmann::json t5 = info_of("t5_v1_0");
  CHECK(t5["positions"]["kind"] == "relative_buckets");
  CHECK(t5["positions"]["num_buckets"] == 8);
  CHECK(t5["positions"]["max_distance"] == 16);
  CHECK(t5["attention"]["scale_rule"] == "none");
  CHECK(t5["layers"] == nlohmann::json({{"encoder", 2}, {"decoder", 2}}));
  CHECK(std::fabs(t5["head"]["scale"].get<double>() - 1 / std::sqrt(24.0)) < 1e-6);  // tied: d_model^-0.5
  const nlohmann::json flan = info_of("flan_t5");
  CHECK(flan["mlp"]["gated"] == true);
  CHECK(flan["head"]["tied"] == false);
  CHECK(flan["head"]["scale"] == 1.0);

  // nn.Transformer checkpoints (no embeddings) are described too.
  const nlohmann::json torch = run_cli({"info", tfp::testing::checkpoint_dir("torch_decoder")}).json();
  CHECK(torch["description"]["summary"].get<std::string>().starts_with("PyTorch nn.TransformerDecoder"));
  CHECK(torch["description"]["positions"]["kind"] == "none");

  const nlohmann::json full = run_cli({"info", family_dir("t5_v1_0")}).json();
  CHECK(full["decoder_start_token_id"] == 0);
  CHECK(full["family"] == "t5");
}
