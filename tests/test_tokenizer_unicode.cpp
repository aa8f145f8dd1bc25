// Unicode helpers: UTF-8 decoding (strict + lossy), NFD, lowercase, BERT classes.
//
// Oracles: the UTF-8 rules of Unicode §3.9 (table 3-7) and the WHATWG "maximal subpart"
// replacement, derived by hand below; NFD and lowercase from Python's unicodedata
// (fixtures/tokenizer/unicode_cases.json, written by make_unicode_cases.py). Exact.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/unicode.h"

using namespace tfp;

TEST_CASE("tokenizer unicode: strict UTF-8 decoding names the bad byte's offset") {
  // "aé€😀" = 61 | C3 A9 | E2 82 AC | F0 9F 98 80
  const auto chars = unicode::decode_utf8("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  REQUIRE(chars.size() == 4);
  CHECK(chars[1].cp == 0xE9);
  CHECK(chars[2].cp == 0x20AC);
  CHECK(chars[3].cp == 0x1F600);
  CHECK(chars[3].begin == 6);
  CHECK(chars[3].end == 10);

  using doctest::Contains;
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("ab\xFF"), Contains("byte offset 2 (byte 0xFF): invalid lead byte"), Error);
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("a\x80"), Contains("byte offset 1 (byte 0x80): unexpected continuation"), Error);
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("xy\xE2\x82"), Contains("byte offset 2 (byte 0xE2): truncated"), Error);
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("\xC0\xAF"), Contains("byte offset 0"), Error);   // overlong '/'
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("\xE0\x80\xAF"), Contains("overlong"), Error);  // overlong '/'
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("\xED\xA0\x80"), Contains("surrogate"), Error); // U+D800
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("\xF4\x90\x80\x80"), Contains("out-of-range"), Error);  // > U+10FFFF
  CHECK_THROWS_WITH_AS(unicode::decode_utf8("\xC3" "A"), Contains("missing continuation"), Error);
}

TEST_CASE("tokenizer unicode: lossy decoding replaces each maximal ill-formed subpart") {
  // Unicode §3.9 example: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 ->
  // a, FFFD (F1 80 80), FFFD (E1 80), FFFD (C2), b, FFFD (80), c, FFFD, FFFD, d.
  const std::string in = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
  const std::string R = "\xEF\xBF\xBD";
  CHECK(unicode::utf8_lossy(in) == "a" + R + R + R + "b" + R + "c" + R + R + "d");
  CHECK(unicode::utf8_lossy("\xED\xA0\x80") == R + R + R);  // surrogate: E D is bad at its 2nd byte
  CHECK(unicode::utf8_lossy("ok \xE2\x82\xAC") == "ok \xE2\x82\xAC");
}

TEST_CASE("tokenizer unicode: NFD and lowercase match Python's unicodedata") {
  std::ifstream in(std::string(TFP_FIXTURES_DIR) + "/tokenizer/unicode_cases.json", std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  const auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["unicode"].get<std::string>() == unicode::unicode_version());
  size_t bad_nfd = 0, bad_lower = 0;
  for (const auto& c : j["cases"]) {
    const std::u32string text = unicode::to_u32(c["text"].get<std::string>());
    if (unicode::to_utf8(unicode::nfd(text)) != c["nfd"].get<std::string>() && ++bad_nfd <= 3)
      MESSAGE("NFD differs for ", c["text"].get<std::string>());
    std::u32string low;
    for (char32_t cp : text) unicode::append_lower(cp, low);
    if (unicode::to_utf8(low) != c["lower"].get<std::string>() && ++bad_lower <= 3)
      MESSAGE("lowercase differs for ", c["text"].get<std::string>());
  }
  MESSAGE(j["cases"].size(), " strings checked");
  CHECK(bad_nfd == 0);
  CHECK(bad_lower == 0);
}

TEST_CASE("tokenizer unicode: BERT and JS character classes") {
  // JS \s has U+FEFF but not U+0085; Unicode White_Space the other way round.
  CHECK(unicode::is_js_space(0xFEFF));
  CHECK_FALSE(unicode::is_js_space(0x85));
  CHECK(unicode::is_white_space(0x85));
  CHECK_FALSE(unicode::is_white_space(0xFEFF));
  CHECK(unicode::is_js_space(0x3000));  // ideographic space (Zs)
  // BERT punctuation: ASCII symbols count ('$' is Sc, '^' Sk), Unicode P* counts.
  CHECK(unicode::is_bert_punct('$'));
  CHECK(unicode::is_bert_punct('^'));
  CHECK(unicode::is_bert_punct(0x3001));  // 、 Po
  CHECK_FALSE(unicode::is_bert_punct(0x20AC));  // € is Sc, outside ASCII: not punctuation
  // Controls: \t \n \r are whitespace to BERT; U+200B (Cf) and U+0001 (Cc) are controls.
  CHECK_FALSE(unicode::is_bert_control('\t'));
  CHECK(unicode::is_bert_control(0x01));
  CHECK(unicode::is_bert_control(0x200B));
  // CJK: ideographs yes, kana and Hangul no.
  CHECK(unicode::is_cjk(0x4F60));
  CHECK(unicode::is_cjk(0x20000));
  CHECK_FALSE(unicode::is_cjk(0x3042));  // あ
  CHECK_FALSE(unicode::is_cjk(0xAC00));  // 가
}

TEST_CASE("tokenizer unicode: GPT-2 pre-tokenisation pieces, derived from the pattern") {
  auto pieces = [](const char* s) {
    const std::u32string t = unicode::to_u32(s);
    std::vector<std::string> out;
    for (auto [b, e] : split_gpt2(t)) out.push_back(unicode::to_utf8(t.substr(b, e - b)));
    return out;
  };
  using V = std::vector<std::string>;
  // 's is a contraction alternative; "'S" is not, so ' falls to punctuation, S to letters.
  CHECK(pieces("it's IT'S") == V{"it", "'s", " IT", "'", "S"});
  // \s+(?!\S): of 3 spaces before "b", 2 form a piece and the 3rd joins " b".
  CHECK(pieces("a   b") == V{"a", "  ", " b"});
  // At the end of the text the whole run is one piece.
  CHECK(pieces("a  ") == V{"a", "  "});
  // " ?" is only U+0020: a tab before a word is its own piece.
  CHECK(pieces("a\tb") == V{"a", "\t", "b"});
  // Numbers and letters are separate runs; punctuation runs include apostrophes.
  CHECK(pieces("abc123!!'s") == V{"abc", "123", "!!'", "s"});
}
