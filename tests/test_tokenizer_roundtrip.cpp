// Loaded tokenizer.json files written back by to_tokenizer_json and read again give the
// same ids and the same decoded text (the committed shape fixtures of
// tests/fixtures/tokenizer/shapes/: BPE, Unigram, WordPiece and WordLevel with their
// pipelines).
// Oracle: the first load. Exact.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tokenizer/tokenizer_json.h"

using namespace tfp;

namespace {

std::string read(const std::string& name) {
  std::ifstream in(std::string(TFP_FIXTURES_DIR) + "/tokenizer/shapes/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("tokenizer roundtrip: shape fixtures survive to_tokenizer_json") {
  const char* texts[] = {"Hello world, it's 2024!", "  two  spaces\tand\nlines ", "café ｆｕｌｌ ①", "我们 😀 <s>x</s>",
                         "[MASK] <mask> [NUM] 42"};
  for (const char* name : {"bloom.json", "falcon.json", "mistral.json", "neox.json", "t5.json",
                           "unigram_byte_fallback.json", "wordpiece.json", "word_level.json"}) {
    CAPTURE(name);
    const Tokenizer a = load_tokenizer_json(read(name), name);
    const Tokenizer b = load_tokenizer_json(to_tokenizer_json(a), std::string(name) + " (written back)");
    CHECK(a.vocab_size() == b.vocab_size());
    for (const char* t : texts) {
      CAPTURE(t);
      const Encoding ea = a.encode(t), eb = b.encode(t);
      CHECK(ea.ids == eb.ids);
      CHECK(ea.offsets == eb.offsets);
      CHECK(a.decode(ea.ids) == b.decode(eb.ids));
    }
  }
}

TEST_CASE("tokenizer roundtrip: a merge whose tokens hold a space is written as a pair") {
  const std::string text = R"({"model": {"type": "BPE", "vocab": {"a": 0, " ": 1, "a ": 2},
                                "merges": [["a", " "]]}})";
  const Tokenizer a = load_tokenizer_json(text);
  CHECK(a.encode("a a").ids == std::vector<int32_t>{2, 0});  // "a " merges; the last "a" stays
  const std::string written = to_tokenizer_json(a);
  CHECK(written.find(R"("merges":[["a"," "]])") != std::string::npos);
  CHECK(load_tokenizer_json(written).encode("a a").ids == std::vector<int32_t>{2, 0});
}
