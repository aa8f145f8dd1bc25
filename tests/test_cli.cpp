// The tfp tool's logic (src/cli/, without main) on the checkpoint fixtures: JSON shapes
// and values against the golden outputs of tests/fixtures/gen_checkpoints.py (tolerance
// 1e-4, as in test_checkpoint*.cpp; the CLI prints 9 significant digits), consistency
// between --text and --ids, and the error contract: {"error": ...} on stderr, exit 1,
// nothing on stdout.
#include <doctest/doctest.h>

#include <sstream>

#include "cli/cli.h"
#include "core/tensor.h"
#include "tokenizer/unicode.h"
#include "test_checkpoint_util.h"

using tfp::testing::checkpoint_dir;
using tfp::testing::read_json;

namespace {

struct CliResult {
  int code;
  std::string out, err;
  nlohmann::json json() const {
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    return j;
  }
  std::string error() const {
    const nlohmann::json j = nlohmann::json::parse(err, nullptr, false);
    REQUIRE(j.is_object());
    return j.value("error", std::string("(no error field)"));
  }
};

CliResult tfp_cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = tfp::cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

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

}  // namespace

TEST_CASE("cli: info") {
  const CliResult r = tfp_cli({"info", checkpoint_dir("gpt2_tiny")});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const nlohmann::json j = r.json();
  CHECK(j["family"] == "gpt2");
  CHECK(j["architecture"] == "decoder_only");
  // wte 264·16 + wpe 32·16 + 2 layers × (16·48+48 + 16·16+16 + 16·64+64 + 64·16+16 + 4·16) + ln_f 2·16
  CHECK(j["parameters"] == 264 * 16 + 32 * 16 + 2 * (816 + 272 + 1088 + 1040 + 64) + 32);
  CHECK(j["config"]["layer_norm_eps"] == 1e-5);
  CHECK(j["tokenizer"]["vocab_size"] == 264);
  const nlohmann::json b = tfp_cli({"info", checkpoint_dir("bert_tiny")}).json();
  CHECK(b["unused_allowed"].size() == 2);  // the pooler; cls.predictions.* is the bound MLM head
  CHECK(b["ignored_tensors"] == nlohmann::json::array({"bert.embeddings.position_ids"}));
  CHECK(b["ignored_tensor_count"] == 1);
  CHECK(b["dtypes"]["I64"] == 1);
}

TEST_CASE("cli: tokenize needs only tokenizer.json") {
  const CliResult r = tfp_cli({"tokenize", checkpoint_dir("tokenizer_only"), " the cat"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = r.json();
  // " the" → "Ġthe" (merges Ġ t, h e, Ġt he) = 258; " cat" → Ġ c a t = 32 99 97 116.
  CHECK(j["ids"] == nlohmann::json({258, 32, 99, 97, 116}));
  CHECK(j["tokens"][0] == "Ġthe");
  CHECK(j["offsets"][0] == nlohmann::json({0, 4}));
  const nlohmann::json bert = tfp_cli({"tokenize", checkpoint_dir("bert_tiny"), "The cat sat."}).json();
  CHECK(bert["tokens"] == nlohmann::json({"[CLS]", "the", "cat", "sat", ".", "[SEP]"}));
  CHECK(bert["special_mask"] == nlohmann::json({1, 0, 0, 0, 0, 1}));
}

TEST_CASE("cli: forward on GPT-2 and BERT matches the golden outputs") {
  const nlohmann::json want = read_json(checkpoint_dir("gpt2_tiny") + "/expected.json");
  std::string ids;
  for (int id : want["input_ids"]) {
    if (!ids.empty()) ids += ',';
    ids += std::to_string(id);
  }
  const CliResult r = tfp_cli({"forward", checkpoint_dir("gpt2_tiny"), "--ids", ids, "--attention"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = r.json();
  CHECK(max_diff(j["logits"], want["logits"]) < 1e-4);
  CHECK(max_diff(j["attention"], want["attentions"]) < 1e-4);  // [layer][head][T][T]

  // --text tokenises first: same result as --ids of its tokens.
  const nlohmann::json t = tfp_cli({"forward", checkpoint_dir("gpt2_tiny"), "--text", " the cat"}).json();
  const nlohmann::json i = tfp_cli({"forward", checkpoint_dir("gpt2_tiny"), "--ids", "258,32,99,97,116"}).json();
  CHECK(t["ids"] == i["ids"]);
  CHECK(t["logits"] == i["logits"]);
  CHECK_FALSE(t.contains("attention"));

  const nlohmann::json bw = read_json(checkpoint_dir("bert_tiny") + "/expected.json");
  auto csv = [](const nlohmann::json& a) {
    std::string s;
    for (int x : a) {
      if (!s.empty()) s += ',';
      s += std::to_string(x);
    }
    return s;
  };
  const nlohmann::json b = tfp_cli({"forward", checkpoint_dir("bert_tiny"), "--ids", csv(bw["input_ids"]),
                                    "--token-type-ids", csv(bw["token_type_ids"]), "--attention-mask",
                                    csv(bw["attention_mask"]), "--attention"})
                               .json();
  CHECK(max_diff(b["hidden"], bw["hidden"]) < 1e-4);
  CHECK(max_diff(b["attention"], bw["attentions"]) < 1e-4);
}

TEST_CASE("cli: forward --inputs on nn.Transformer") {
  const std::string dir = checkpoint_dir("torch_transformer");
  const CliResult r = tfp_cli({"forward", dir, "--inputs", dir + "/inputs.safetensors", "--attention"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = r.json();
  const nlohmann::json want = read_json(dir + "/expected.json");
  CHECK(j["batch"] == 1);
  CHECK(max_diff(j["output"][0], want["output"]) < 1e-4);
  CHECK(max_diff(j["memory"][0], want["memory"]) < 1e-4);
  CHECK(j["attention"].size() == want["attentions"].size());
  for (auto it = want["attentions"].begin(); it != want["attentions"].end(); ++it) {
    CAPTURE(it.key());
    REQUIRE(j["attention"].contains(it.key()));
    CHECK(max_diff(j["attention"][it.key()][0], it.value()) < 1e-4);
  }
}

TEST_CASE("cli: generate (greedy equals the golden continuation; seeded sampling repeats)") {
  const nlohmann::json want = read_json(checkpoint_dir("gpt2_tiny") + "/expected.json");
  // " tHel" tokenises to the golden prompt [256 (Ġt), 72 H, 101 e, 108 l].
  const CliResult r = tfp_cli({"generate", checkpoint_dir("gpt2_tiny"), "--prompt", " tHel", "--max-tokens", "6",
                               "--temperature", "0"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = r.json();
  CHECK(j["prompt_ids"] == want["greedy_prompt"]);
  CHECK(j["ids"] == want["greedy_continuation"]);
  CHECK(j["stop_reason"] == "max_tokens");
  const std::vector<std::string> sampled{"generate", checkpoint_dir("gpt2_tiny"), "--prompt", "Hello", "--max-tokens",
                                         "8", "--temperature", "0.9", "--top-k", "40", "--top-p", "0.9", "--seed", "17"};
  const nlohmann::json s1 = tfp_cli(sampled).json(), s2 = tfp_cli(sampled).json();
  CHECK(s1["ids"].size() == 8);
  CHECK(s1["ids"] == s2["ids"]);
  CHECK(s1["text"] == s2["text"]);
}

TEST_CASE("cli: errors are JSON on stderr with exit code 1") {
  auto fails = [](std::vector<std::string> args, const std::string& message) {
    const CliResult r = tfp_cli(std::move(args));
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(r.error() == message);
  };
  fails({"bogus"}, "unknown command 'bogus' (info, tokenize, forward, generate, analyze; see tfp --help)");
  fails({"info"}, "info: expected 1 argument, got 0 (see tfp --help)");
  fails({"info", "/nonexistent"}, "load_model: '/nonexistent' is not a folder");
  fails({"forward", checkpoint_dir("gpt2_tiny"), "--ids", "1,,2"},
        "--ids: '1,,2' is not a comma-separated list of integers (item 1: '')");
  fails({"forward", checkpoint_dir("gpt2_tiny"), "--ids", "1", "--text", "a"},
        "forward: give only one of --ids, --text and --text-file");
  fails({"forward", checkpoint_dir("gpt2_tiny"), "--ids", "1", "--attention-mask", "1"},
        "forward: --attention-mask does not apply to a decoder-only model");
  fails({"forward", checkpoint_dir("gpt2_tiny"), "--ids", "1", "--colour"}, "forward: unknown option --colour");
  fails({"forward", checkpoint_dir("bert_tiny"), "--ids", "2,5,3", "--token-type-ids", "0,1"},
        "forward: --token-type-ids has 2 values for 3 tokens");
  fails({"forward", checkpoint_dir("torch_encoder_prenorm"), "--ids", "1"},
        "forward: '" + checkpoint_dir("torch_encoder_prenorm") +
            "' is a PyTorch nn.Transformer checkpoint (it takes embeddings): pass --inputs FILE.safetensors");
  fails({"generate", checkpoint_dir("gpt2_tiny"), "--prompt", "hi", "--temperature", "-1"},
        "sampling: temperature must be >= 0 (0 = greedy), got -1");
  fails({"generate", checkpoint_dir("bert_tiny"), "--prompt", "hi"},
        "generate: needs a decoder-only language model, this one is encoder_only");
  fails({"tokenize", checkpoint_dir("torch_transformer"), "x"},
        "load_tokenizer: '" + checkpoint_dir("torch_transformer") + "' has no tokenizer.json");
  // An input longer than the context (32 positions) is an error naming the position.
  std::string long_ids = "1";
  for (int k = 0; k < 40; ++k) long_ids += ",1";
  const CliResult too_long = tfp_cli({"forward", checkpoint_dir("gpt2_tiny"), "--ids", long_ids});
  CHECK(too_long.code == 1);
  CHECK(too_long.error().find("32") != std::string::npos);
  const CliResult help = tfp_cli({"--help"});
  CHECK(help.code == 0);
  CHECK(help.out.starts_with("usage:"));
  // --version: the engine's version, then the Unicode version of each kind of character data.
  const CliResult version = tfp_cli({"--version"});
  CHECK(version.code == 0);
  CHECK(version.out == std::string("tfp 0.1.0\nUnicode ") + tfp::unicode::unicode_versions() +
                           " (each as Hugging Face tokenizers 0.23 uses it)\n");
  CHECK(version.out.find("16.0.0 classes") != std::string::npos);
}
