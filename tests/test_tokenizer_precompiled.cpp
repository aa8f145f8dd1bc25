// SentencePiece's Precompiled normalizer (src/tokenizer/precompiled.h) and the grapheme
// clusters it looks up first (grapheme.h).
//
// Oracle: the charsmap of tests/fixtures/tokenizer/shapes/t5.json, whose mappings are
// listed in make_shapes.mjs (full-width ASCII -> ASCII, U+3000 -> ' ', "ｶﾞ" -> "ガ",
// "e" + U+0301 -> "é", U+200B -> "" ...), applied by hand with HF's rules. The same file
// is compared with HF's own library in tests/js/tokenizer_pipelines.test.mjs.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "tokenizer/grapheme.h"
#include "tokenizer/precompiled.h"
#include "tokenizer/tokenizer_json.h"
#include "tokenizer/unicode.h"

using namespace tfp;
using nlohmann::json;

namespace {

std::string t5_charsmap() {
  std::ifstream in(std::string(TFP_FIXTURES_DIR) + "/tokenizer/shapes/t5.json", std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  const json j = json::parse(ss.str());
  return base64_decode(j["normalizer"]["normalizers"][0]["precompiled_charsmap"].get<std::string>());
}

std::string normalized(const NormalizerPtr& n, const char* text) {
  NormalizedText t = identity_normalized(unicode::to_u32(text));
  n->normalize(t);
  return unicode::to_utf8(t.cps);
}

std::vector<size_t> cluster_ends(const char32_t* text) {
  std::u32string_view t(text);
  std::vector<size_t> ends;
  for (size_t i = 0; i < t.size(); i = ends.back()) ends.push_back(grapheme_end(t, i));
  return ends;
}

}  // namespace

TEST_CASE("tokenizer precompiled: grapheme clusters") {
  // e + acute is one cluster; CR LF one; a ZWJ family one; two flags two; Hangul L V T one.
  CHECK(cluster_ends(U"e\u0301x") == std::vector<size_t>{2, 3});
  CHECK(cluster_ends(U"\r\n\n") == std::vector<size_t>{2, 3});
  CHECK(cluster_ends(U"\U0001F468\u200D\U0001F469\u200D\U0001F467!") == std::vector<size_t>{5, 6});
  CHECK(cluster_ends(U"\U0001F1FA\U0001F1F8\U0001F1EB\U0001F1F7") == std::vector<size_t>{2, 4});
  CHECK(cluster_ends(U"\u1100\u1161\u11A8\u1100") == std::vector<size_t>{3, 4});
  CHECK(cluster_ends(U"\uFF76\uFF9E") == std::vector<size_t>{2});  // half-width ka + voiced mark
}

TEST_CASE("tokenizer precompiled: the charsmap as HF applies it") {
  const std::string blob = t5_charsmap();
  const PrecompiledCharsmap map(blob);
  CHECK(map.transform("\xEF\xBC\xA1") == std::optional<std::string_view>("A"));  // U+FF21 -> A
  CHECK(!map.transform("A").has_value());
  const NormalizerPtr n = make_precompiled_normalizer(blob);
  // Full-width letters and the ideographic space.
  CHECK(normalized(n, "\uFF28\uFF49\u3000\uFF54\uFF48\uFF45\uFF52\uFF45") == "Hi there");
  // The key "ｶﾞ" -> "ガ" never fires: the cluster is 6 bytes, and only clusters shorter
  // than 6 bytes are looked up whole; neither half is a key on its own.
  CHECK(normalized(n, "\uFF76\uFF9E") == "\uFF76\uFF9E");
  // e + U+0301 is a key; a lone U+0301 is not.
  CHECK(normalized(n, "e\u0301 \u0301") == "\u00E9 \u0301");
  // A deletion (U+200B -> "").
  CHECK(normalized(n, "a\u200Bb") == "ab");
  // SentencePiece's quirk: the cluster Ａ + U+0301 (5 bytes) starts with the key "Ａ", so
  // the SHORTEST prefix key's replacement stands for the whole cluster: the accent is gone.
  CHECK(normalized(n, "\uFF21\u0301") == "A");
  // Text with nothing to map is unchanged.
  CHECK(normalized(n, "plain text") == "plain text");
}

TEST_CASE("tokenizer precompiled: malformed charsmaps are named") {
  using doctest::Contains;
  CHECK_THROWS_WITH_AS(PrecompiledCharsmap(std::string("\x01\x00", 2)), Contains("too short for its header"), Error);
  CHECK_THROWS_WITH_AS(PrecompiledCharsmap(std::string("\x40\x00\x00\x00\x00\x00\x00\x00", 8)),
                       Contains("trie size 64 does not fit the 8-byte blob"), Error);
  CHECK_THROWS_WITH_AS(base64_decode("ab$c"), Contains("base64: invalid character at position 2"), Error);
  const std::string bad = R"({"normalizer": {"type": "Precompiled", "precompiled_charsmap": "AQ=="},
                              "model": {"type": "Char", "vocab": {"a": 0}}})";
  CHECK_THROWS_WITH_AS(load_tokenizer_json(bad, "t.json"),
                       Contains("t.json: normalizer.precompiled_charsmap: precompiled charsmap: 1 bytes is too short"),
                       Error);
}
