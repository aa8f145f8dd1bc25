// The tokenizer.json pipeline steps (normalizers.h, pre_tokenizers.h, decoders.h, bpe.h,
// unigram.h, added_tokens.h) on small hand-made files.
//
// Oracle: Hugging Face tokenizers' documented behaviour, applied by hand; each
// expectation carries its derivation. (The real Llama/Qwen/Gemma files are compared with
// HF's own library in tests/js/tokenizer_pipelines.test.mjs.)
#include <doctest/doctest.h>

#include "core/error.h"
#include "tokenizer/decoders.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/pre_tokenizers.h"
#include "tokenizer/tokenizer_json.h"
#include "tokenizer/unicode.h"

using namespace tfp;
using nlohmann::json;
using Ids = std::vector<int32_t>;
using Strings = std::vector<std::string>;

namespace {

std::string normalized(const NormalizerPtr& n, const char* text) {
  NormalizedText t = identity_normalized(unicode::to_u32(text));
  n->normalize(t);
  return unicode::to_utf8(t.cps);
}

Strings pieces(const PreTokenizerPtr& p, const char* text) {
  std::vector<NormalizedText> v{identity_normalized(unicode::to_u32(text))};
  p->pre_tokenize(v);
  Strings out;
  for (const NormalizedText& t : v) out.push_back(unicode::to_utf8(t.cps));
  return out;
}

Strings decoded(const DecoderPtr& d, Strings tokens) {
  d->decode_chain(tokens);
  return tokens;
}

// A tokenizer.json around `model` and the given pipeline objects.
Tokenizer tok(json model, json extra = json::object()) {
  extra["model"] = std::move(model);
  return load_tokenizer_json(extra.dump(), "t.json");
}

}  // namespace

TEST_CASE("tokenizer pipeline: normalizers") {
  // Llama 2: Prepend "▁" then every " " -> "▁".
  const NormalizerPtr llama = make_sequence_normalizer(
      {make_prepend_normalizer("▁"), make_replace_normalizer(TextPattern::literal(" "), "▁")});
  CHECK(normalized(llama, "hi there") == "▁hi▁there");
  CHECK(normalized(llama, "") == "");  // Prepend leaves empty text empty
  // Regex Replace: runs of two or more spaces -> one (T5's clean-up).
  CHECK(normalized(make_replace_normalizer(TextPattern::regex(" {2,}"), " "), "a   b  c d") == "a b c d");
  // NFC composes e + U+0301 into é; NFD takes it apart again; Hangul composes arithmetically.
  const NormalizerPtr nfc = make_normal_form_normalizer(NormalForm::NFC);
  CHECK(normalized(nfc, "e\u0301") == "\u00e9");
  CHECK(normalized(make_normal_form_normalizer(NormalForm::NFD), "\u00e9") == "e\u0301");
  CHECK(normalized(nfc, "\u1100\u1161\u11a8") == "\uac01");  // ᄀ + ᅡ + ᆨ = 각
  // Canonical ordering first: in a + U+0301 (ccc 230) + U+0323 (ccc 220) the dot below
  // sorts first; a + U+0323 composes to U+1EA1 (ạ), which has no composition with the
  // acute, so U+0301 stays.
  CHECK(normalized(nfc, "a\u0301\u0323") == "\u1ea1\u0301");
  // NFKC: compatibility forms (ligature fi, circled one, full-width A) become plain.
  CHECK(normalized(make_normal_form_normalizer(NormalForm::NFKC), "\ufb01\u2460\uff21") == "fi1A");
  CHECK(normalized(make_normal_form_normalizer(NormalForm::NFKD), "\u00bd") == "1\u20442");  // ½ -> 1⁄2
  // Strip, Lowercase, StripAccents (after NFD).
  CHECK(normalized(make_strip_normalizer(true, true), " \t a b \n") == "a b");
  CHECK(normalized(make_strip_normalizer(false, true), "  a  ") == "  a");
  CHECK(normalized(make_lowercase_normalizer(), "ÀB İ") == "àb i\u0307");
  CHECK(normalized(make_sequence_normalizer({make_normal_form_normalizer(NormalForm::NFD),
                                             make_strip_accents_normalizer()}),
                   "café") == "cafe");
}

TEST_CASE("tokenizer pipeline: Split behaviours on a-b--c, as HF's SplitDelimiterBehavior") {
  // Parts: a | - | b | - | - | c  (matches of "-" are the dashes).
  auto split = [](SplitBehavior b, bool invert = false) {
    return pieces(make_split_pre_tokenizer(TextPattern::literal("-"), b, invert), "a-b--c");
  };
  CHECK(split(SplitBehavior::Removed) == Strings{"a", "b", "c"});
  CHECK(split(SplitBehavior::Isolated) == Strings{"a", "-", "b", "-", "-", "c"});
  // A match joins the piece before it, unless the piece before is itself a match.
  CHECK(split(SplitBehavior::MergedWithPrevious) == Strings{"a-", "b-", "-", "c"});
  // The mirror image: a match joins the piece after it.
  CHECK(split(SplitBehavior::MergedWithNext) == Strings{"a", "-b", "-", "-c"});
  // Neighbouring matches join each other.
  CHECK(split(SplitBehavior::Contiguous) == Strings{"a", "-", "b", "--", "c"});
  // invert: the letters are the matches; Removed then keeps the dashes, each its own part
  // (the two neighbouring dashes were two matches of "-").
  CHECK(split(SplitBehavior::Removed, true) == Strings{"-", "-", "-"});
  // A regex Split (Qwen/Llama 3 style, shortened).
  const auto re = make_split_pre_tokenizer(TextPattern::regex("\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+|\\s+"),
                                           SplitBehavior::Isolated, false);
  CHECK(pieces(re, "Hi 42!!") == Strings{"Hi", " ", "4", "2", "!!"});
}

TEST_CASE("tokenizer pipeline: Metaspace, ByteLevel, Digits, Whitespace, Punctuation") {
  // Metaspace: spaces -> ▁, ▁ prepended, split before each ▁ (MergedWithNext).
  CHECK(pieces(make_metaspace_pre_tokenizer(U'▁', PrependScheme::Always, true), "Hey  friend") ==
        Strings{"▁Hey", "▁", "▁friend"});
  CHECK(pieces(make_metaspace_pre_tokenizer(U'▁', PrependScheme::Never, false), "a b") == Strings{"a▁b"});
  // "first" prepends only to a piece that starts the text (origin 0).
  std::vector<NormalizedText> later{identity_normalized(U"ab", 5)};
  make_metaspace_pre_tokenizer(U'▁', PrependScheme::First, false)->pre_tokenize(later);
  CHECK(unicode::to_utf8(later[0].cps) == "ab");
  CHECK(pieces(make_metaspace_pre_tokenizer(U'▁', PrependScheme::First, false), "ab") == Strings{"▁ab"});
  // ByteLevel: "é" is bytes C3 A9 -> stand-ins Ã ©; ' ' -> Ġ. With the regex the words split.
  CHECK(pieces(make_byte_level_pre_tokenizer(false, false), "é x") == Strings{"Ã©Ġx"});
  CHECK(pieces(make_byte_level_pre_tokenizer(true, true), "hi  there") == Strings{"Ġhi", "Ġ", "Ġthere"});
  // Digits: each alone, or runs.
  CHECK(pieces(make_digits_pre_tokenizer(true), "ab12c3") == Strings{"ab", "1", "2", "c", "3"});
  CHECK(pieces(make_digits_pre_tokenizer(false), "ab12c3") == Strings{"ab", "12", "c", "3"});
  // Whitespace: \w+ and [^\w\s]+ runs.
  CHECK(pieces(make_whitespace_pre_tokenizer(), "Hey man!! ok?") == Strings{"Hey", "man", "!!", "ok", "?"});
  CHECK(pieces(make_whitespace_split_pre_tokenizer(), " a\tb\u3000c ") == Strings{"a", "b", "c"});
  CHECK(pieces(make_punctuation_pre_tokenizer(SplitBehavior::Isolated), "a,b.") == Strings{"a", ",", "b", "."});
  CHECK(pieces(make_char_delimiter_pre_tokenizer(U'|'), "a|b||c") == Strings{"a", "b", "c"});
}

TEST_CASE("tokenizer pipeline: decoders") {
  // ByteFallback: <0xE2><0x82><0xAC> is "€" in UTF-8; a lone <0xE2> is one U+FFFD.
  CHECK(decoded(make_byte_fallback_decoder(), {"<0xE2>", "<0x82>", "<0xAC>", "a"}) == Strings{"€", "a"});
  CHECK(decoded(make_byte_fallback_decoder(), {"<0xE2>", "<0x82>", "b"}) == Strings{"\uFFFD", "\uFFFD", "b"});
  // Llama 2's chain: ▁ -> space, bytes, fuse, strip one leading space.
  const DecoderPtr llama = make_sequence_decoder({make_replace_decoder(TextPattern::literal("▁"), " "),
                                                  make_byte_fallback_decoder(), make_fuse_decoder(),
                                                  make_strip_decoder(U' ', 1, 0)});
  CHECK(decoded(llama, {"▁Hello", "▁wor", "ld", "<0x21>"}) == Strings{"Hello world!"});
  // Strip x: at most 2 from the front ("xxxaxx" -> "xaxx"), at most 1 from the back -> "xax".
  CHECK(decoded(make_strip_decoder(U'x', 2, 1), {"xxxaxx"}) == Strings{"xax"});
  // Metaspace: in the first token ▁ disappears, later it is a space.
  CHECK(decoded(make_metaspace_decoder(U'▁', PrependScheme::Always), {"▁Hey", "▁friend"}) ==
        Strings{"Hey", " friend"});
  CHECK(decoded(make_metaspace_decoder(U'▁', PrependScheme::Never), {"▁Hey"}) == Strings{" Hey"});
  // ByteLevel: Ġ is the stand-in for ' '.
  CHECK(decoded(make_byte_level_decoder(), {"Hello", "Ġw", "Ã©"}) == Strings{"Hello wé"});
  CHECK(decoded(make_bpe_suffix_decoder("</w>"), {"hel", "lo</w>", "you</w>"}) == Strings{"hel", "lo ", "you"});
}

TEST_CASE("tokenizer pipeline: BPE byte_fallback, unk fusing and ignore_merges") {
  // vocab: <unk> 0, a 1, b 2, ab 3, c 4, abc 5, <0xC3> 6, <0xA9> 7; merges: (a, b) only.
  const json vocab = {{"<unk>", 0}, {"a", 1}, {"b", 2}, {"ab", 3}, {"c", 4}, {"abc", 5}, {"<0xC3>", 6}, {"<0xA9>", 7}};
  json model = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array({json::array({"a", "b"})})},
                {"unk_token", "<unk>"}, {"byte_fallback", true}};
  // "abé": a b -> ab; é is not in the vocab -> its bytes C3 A9.
  CHECK(tok(model).encode("abé").ids == Ids{3, 6, 7});
  // Without byte_fallback: unknown characters -> <unk>, consecutive ones fused.
  model["byte_fallback"] = false;
  model["fuse_unk"] = true;
  CHECK(tok(model).encode("aé€b").ids == Ids{1, 0, 2});
  model["fuse_unk"] = false;
  CHECK(tok(model).encode("aé€b").ids == Ids{1, 0, 0, 2});
  // ignore_merges: a piece that is itself a token wins ("abc" has no merge path).
  CHECK(tok(model).encode("abc").ids == Ids{3, 4});
  model["ignore_merges"] = true;
  CHECK(tok(model).encode("abc").ids == Ids{5});
  // No unk_token: an unknown character is dropped, as HF does; a and b then meet and merge.
  model.erase("unk_token");
  CHECK(tok(model).encode("aéb").ids == Ids{3});
  // Merges as "a b" strings are read the same.
  model["merges"] = json::array({"a b"});
  model["ignore_merges"] = false;
  CHECK(tok(model).encode("ab").ids == Ids{3});
  // continuing_subword_prefix: "a" "##b" merge into "ab"; end_of_word_suffix "</w>".
  json wp = {{"type", "BPE"},
             {"vocab", {{"a", 0}, {"##b", 1}, {"ab", 2}, {"b</w>", 3}, {"##b</w>", 4}, {"ab</w>", 5}}},
             {"merges", json::array({"a ##b</w>"})},
             {"continuing_subword_prefix", "##"},
             {"end_of_word_suffix", "</w>"}};
  CHECK(tok(wp).encode("ab").ids == Ids{5});
}

TEST_CASE("tokenizer pipeline: Unigram Viterbi, unknowns and byte fallback") {
  // Scores: a -1, b -2, ab -2.5, c -3. "abc": a+b+c = -6, ab+c = -5.5 -> ab c.
  json model = {{"type", "Unigram"},
                {"unk_id", 0},
                {"vocab", json::array({json::array({"<unk>", 0.0}), json::array({"a", -1.0}), json::array({"b", -2.0}),
                                       json::array({"ab", -2.5}), json::array({"c", -3.0})})}};
  CHECK(tok(model).encode("abc").ids == Ids{3, 4});
  // "ba": b+a = -3 is the only path.
  CHECK(tok(model).encode("ba").ids == Ids{2, 1});
  // "adde": d and e are unknown (score min -10 = -13 each) and fuse into one <unk>.
  const Encoding e = tok(model).encode("adde");
  CHECK(e.ids == Ids{1, 0});
  CHECK(e.offsets[1] == Offset{1, 4});
  // byte_fallback: the unknown "é" -> <0xC3> <0xA9>.
  model["vocab"].push_back(json::array({"<0xC3>", -5.0}));
  model["vocab"].push_back(json::array({"<0xA9>", -5.0}));
  model["byte_fallback"] = true;
  CHECK(tok(model).encode("aé").ids == Ids{1, 5, 6});
  // T5 shape: Metaspace + Unigram; "a b" -> ▁a ▁b.
  json t5 = {{"type", "Unigram"},
             {"unk_id", 0},
             {"vocab", json::array({json::array({"<unk>", 0.0}), json::array({"▁a", -1.0}), json::array({"▁b", -1.0}),
                                    json::array({"▁", -2.0})})}};
  const Tokenizer t = tok(t5, {{"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "▁"},
                                                   {"prepend_scheme", "always"}, {"split", true}}},
                               {"decoder", {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "always"}}}});
  CHECK(t.encode("a b").ids == Ids{1, 2});
  CHECK(t.decode({1, 2}) == "a b");
}

TEST_CASE("tokenizer pipeline: WordLevel looks whole pieces up") {
  // WhitespaceSplit: "the cat sat" -> the | cat | sat; "sat" is not in the vocab -> [UNK].
  const json model = {{"type", "WordLevel"}, {"vocab", {{"[UNK]", 0}, {"the", 1}, {"cat", 2}}}, {"unk_token", "[UNK]"}};
  const Tokenizer t = tok(model, {{"pre_tokenizer", {{"type", "WhitespaceSplit"}}}});
  CHECK(t.encode("the cat sat").ids == Ids{1, 2, 0});
  CHECK_THROWS_WITH_AS(tok({{"type", "WordLevel"}, {"vocab", {{"a", 0}}}, {"unk_token", "[UNK]"}}),
                       doctest::Contains("t.json: word level: unk_token \"[UNK]\" is not in the vocab"), Error);
}

TEST_CASE("tokenizer pipeline: added tokens with lstrip, rstrip, single_word, normalized") {
  const json model = {{"type", "Char"}, {"vocab", {{"a", 0}, {"b", 1}, {" ", 2}, {"x", 3}}}, {"unk_token", "x"}};
  // Ids follow the vocab's (4 entries, ids 0..3): an id must be below the entries plus the
  // added tokens the file holds (tests/test_soak_findings.cpp).
  auto with_added = [&](json flags) {
    json t = {{"id", 4}, {"content", "ab"}, {"special", true}};
    t.update(flags);
    return tok(model, {{"added_tokens", json::array({t})}});
  };
  // Plain: "ab" anywhere, even inside "bab".
  CHECK(with_added(json::object()).encode("bab a").ids == Ids{1, 4, 2, 0});
  // single_word: not when a word character touches it ("bab"), yes when alone.
  CHECK(with_added({{"single_word", true}}).encode("bab ab").ids == Ids{1, 0, 1, 2, 4});
  // lstrip / rstrip: the token takes the spaces beside it (offsets show it).
  const Encoding l = with_added({{"lstrip", true}}).encode("a  ab b");
  CHECK(l.ids == Ids{0, 4, 2, 1});
  CHECK(l.offsets[1] == Offset{1, 5});
  CHECK(with_added({{"rstrip", true}}).encode("a ab  b").ids == Ids{0, 2, 4, 1});
  // normalized: matched after the normalizer (Lowercase), so "AB" finds it.
  const Tokenizer n = tok(model, {{"normalizer", {{"type", "Lowercase"}}},
                                  {"added_tokens", json::array({{{"id", 4}, {"content", "ab"}, {"normalized", true}}})}});
  CHECK(n.encode("xAB").ids == Ids{3, 4});
  // Thousands of added tokens: the longest match at the leftmost position wins.
  json many = json::array();
  for (int i = 0; i < 3000; ++i) many.push_back({{"id", 4 + i}, {"content", "<t" + std::to_string(i) + ">"}});
  const Tokenizer m = tok(model, {{"added_tokens", many}});
  CHECK(m.encode("a<t12><t1>").ids == Ids{0, 16, 5});
  CHECK(m.decode({0, 16, 5}, false) == "a <t12> <t1>");  // no decoder: joined with " "
}

TEST_CASE("tokenizer pipeline: TemplateProcessing and bad input named by field") {
  using doctest::Contains;
  const json model = {{"type", "Char"}, {"vocab", {{"a", 0}, {"<s>", 1}, {"</s>", 2}}}};
  const Tokenizer t = tok(model, {{"post_processor", {{"type", "TemplateProcessing"},
                                                      {"single", json::array({{{"SpecialToken", {{"id", "<s>"}}}},
                                                                              {{"Sequence", {{"id", "A"}}}},
                                                                              {{"SpecialToken", {{"id", "</s>"}}}}})},
                                                      {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}},
                                                                          {"</s>", {{"id", "</s>"}, {"ids", {2}}, {"tokens", {"</s>"}}}}}}}}});
  CHECK(t.encode("aa").ids == Ids{1, 0, 0, 2});
  CHECK(t.encode("aa", false).ids == Ids{0, 0});

  auto err = [&](json extra) { return tok(model, std::move(extra)); };
  CHECK_THROWS_WITH_AS(err({{"normalizer", {{"type", "Sequence"}, {"normalizers", json::array({{{"type", "Nmt"}}})}}}}),
                       Contains("unsupported normalizer type \"Nmt\" at normalizer.normalizers[0]"), Error);
  CHECK_THROWS_WITH_AS(err({{"pre_tokenizer", {{"type", "Split"}, {"behavior", "Isolated"}}}}),
                       Contains("t.json: pre_tokenizer lacks \"pattern\""), Error);
  CHECK_THROWS_WITH_AS(err({{"pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "(?<=x)y"}}}}}}),
                       Contains("t.json: pre_tokenizer.pattern.Regex: regex /(?<=x)y/: lookbehind"), Error);
  CHECK_THROWS_WITH_AS(err({{"pre_tokenizer", {{"type", "Split"}, {"pattern", {{"String", "x"}}}, {"behavior", "Merged"}}}}),
                       Contains("pre_tokenizer.behavior \"Merged\" is not one of"), Error);
  CHECK_THROWS_WITH_AS(err({{"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "ab"}}}}),
                       Contains("pre_tokenizer.replacement \"ab\" is not exactly one character"), Error);
  CHECK_THROWS_WITH_AS(err({{"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "_"}, {"prepend_scheme", "sometimes"}}}}),
                       Contains("prepend_scheme \"sometimes\" is not one of always, first, never"), Error);
  CHECK_THROWS_WITH_AS(err({{"decoder", {{"type", "Strip"}, {"content", " "}, {"start", -1}}}}),
                       Contains("decoder.start is not a count"), Error);
  CHECK_THROWS_WITH_AS(err({{"decoder", {{"type", "Sequence"}, {"decoders", json::array({{{"type", "CTC"}}})}}}}),
                       Contains("unsupported decoder type \"CTC\" at decoder.decoders[0]"), Error);
  CHECK_THROWS_WITH_AS(err({{"normalizer", {{"type", "Replace"}, {"pattern", {{"Glob", "*"}}}, {"content", ""}}}}),
                       Contains("normalizer.pattern is not {\"String\": ...} or {\"Regex\": ...}"), Error);
  CHECK_THROWS_WITH_AS(tok({{"type", "Unigram"}, {"vocab", json::array({json::array({"a", "high"})})}}),
                       Contains("t.json: model.vocab[0] is not [piece, score]"), Error);
  CHECK_THROWS_WITH_AS(tok({{"type", "BPE"}, {"vocab", {{"a", 0}}}, {"merges", json::array()}, {"dropout", 0.1}}),
                       Contains("model.dropout is not supported"), Error);
  CHECK_THROWS_WITH_AS(tok({{"type", "BPE"}, {"vocab", {{"a", 0}}}, {"merges", json::array()}, {"unk_token", "<unk>"}}),
                       Contains("unk_token \"<unk>\" is not in the vocab"), Error);
  CHECK_THROWS_WITH_AS(err({{"added_tokens", json::array({{{"id", "one"}, {"content", "x"}}})}}),
                       Contains("t.json: added_tokens[0].id is \"one\", not a token id (an integer)"), Error);
  // A Unigram text with an unknown character and no unk_id.
  const Tokenizer u = tok({{"type", "Unigram"}, {"vocab", json::array({json::array({"a", -1.0})})}});
  CHECK_THROWS_WITH_AS(u.encode("ab"), Contains("\"b\" is not in the vocab and there is no unk_id"), Error);
}
