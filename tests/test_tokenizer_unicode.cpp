// Unicode helpers: UTF-8 decoding (strict + lossy), normal forms, lowercase, character classes.
//
// Oracles: the UTF-8 rules of Unicode §3.9 (table 3-7) and the WHATWG "maximal subpart"
// replacement, derived by hand below; normal forms, lowercase and every character class from
// Hugging Face tokenizers itself (npm `tokenizers`): fixtures/tokenizer/unicode_cases.json and
// hf_unicode_classes.json, written by make_unicode_cases.mjs and make_hf_unicode_classes.mjs
// there. Exact: each class must agree with HF's on every code point.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/unicode.h"
#include "tokenizer/unicode_norm.h"

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

namespace {

nlohmann::json read_fixture(const std::string& name) {
  std::ifstream in(std::string(TFP_FIXTURES_DIR) + "/tokenizer/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str(), nullptr, false);
}

std::string normal_form(const std::u32string& text, NormalForm form) {
  NormalizedText t = identity_normalized(text);
  apply_normal_form(t, form);
  return unicode::to_utf8(t.cps);
}

}  // namespace

TEST_CASE("tokenizer unicode: normal forms and lowercase match Hugging Face tokenizers") {
  const auto j = read_fixture("unicode_cases.json");
  REQUIRE(j.is_object());
  const std::pair<const char*, NormalForm> forms[] = {
      {"nfd", NormalForm::NFD}, {"nfkd", NormalForm::NFKD}, {"nfc", NormalForm::NFC}, {"nfkc", NormalForm::NFKC}};
  size_t bad = 0;
  for (const auto& c : j["cases"]) {
    const std::string text = c["text"].get<std::string>();
    const std::u32string cps = unicode::to_u32(text);
    const auto want = [&](const char* key) { return c.contains(key) ? c[key].get<std::string>() : text; };
    for (const auto& entry : forms)  // not a structured binding: see below
      if (normal_form(cps, entry.second) != want(entry.first) && ++bad <= 5)
        MESSAGE(std::string(entry.first), " differs for ", nlohmann::json(text).dump());
    std::u32string low;
    for (char32_t cp : cps) unicode::append_lower(cp, low);
    if (unicode::to_utf8(low) != want("lower") && ++bad <= 5) MESSAGE("lowercase differs for ", nlohmann::json(text).dump());
  }
  MESSAGE(j["cases"].size(), " strings checked against ", j["oracle"].get<std::string>());
  CHECK(bad == 0);
}

TEST_CASE("tokenizer unicode: every character class equals Hugging Face's on every code point") {
  const auto j = read_fixture("hf_unicode_classes.json");
  REQUIRE(j.is_object());
  auto bitmap = [](const nlohmann::json& runs) {
    std::vector<bool> bits(0x110000, false);
    for (const auto& r : runs)
      for (uint32_t c = r[0].get<uint32_t>(); c <= r[1].get<uint32_t>(); ++c) bits[c] = true;
    return bits;
  };
  std::vector<std::string> category(0x110000, "Cn");
  const auto& names = j["names"];
  for (const auto& r : j["category"])
    for (uint32_t c = r[0].get<uint32_t>(); c <= r[1].get<uint32_t>(); ++c) category[c] = names[r[2].get<size_t>()];
  const auto& cls = j["classes"];
  // Each engine class beside the HF component it reproduces.
  const std::pair<const char*, bool (*)(char32_t)> ours[] = {
      {"oniguruma_word", &unicode::is_oniguruma_word},
      {"regex_crate_word", &unicode::is_regex_crate_word},
      {"white_space", &unicode::is_white_space},
      {"bert_punct", &unicode::is_bert_punct},
      {"bert_control", [](char32_t c) { return c != 0 && unicode::is_bert_control(c); }},  // NUL: removed apart
      {"bert_strip", [](char32_t c) {  // after BERT's NFD, every piece is a nonspacing mark
         const std::u32string d = unicode::nfd(std::u32string(1, c));
         return std::all_of(d.begin(), d.end(), unicode::is_bert_nonspacing_mark);
       }},
      {"strip_accents", &unicode::is_combining_mark},
      {"numeric", &unicode::is_numeric},
  };
  for (const auto& entry : ours) {
    // Not a structured binding: clang 14 cannot capture one in doctest's MESSAGE lambda.
    const auto& name = entry.first;
    const auto& pred = entry.second;
    const std::vector<bool> hf = bitmap(cls[name]);
    size_t bad = 0;
    for (char32_t cp = 0; cp < 0x110000; ++cp) {
      if (cp >= 0xD800 && cp < 0xE000) continue;
      if (pred(cp) != hf[cp] && ++bad <= 3) MESSAGE(std::string(name), " differs at ", unicode::cp_label(cp));
    }
    CHECK_MESSAGE(bad == 0, std::string(name));
  }
  size_t bad = 0;
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    if (cp >= 0xD800 && cp < 0xE000) continue;
    if (unicode::general_category(cp) != category[cp] && ++bad <= 3) MESSAGE("\\p{..} category differs at ", unicode::cp_label(cp));
  }
  CHECK(bad == 0);
  MESSAGE("classes checked against ", j["oracle"].get<std::string>(), "; ours: Unicode ", std::string(unicode::unicode_versions()));
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
