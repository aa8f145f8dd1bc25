// BERT's text normaliser (HF tokenizers' "BertNormalizer"), with offset tracking.
//
// In order, each step optional as tokenizer.json says:
//   clean_text            drop NUL, U+FFFD and control characters; any whitespace -> ' '
//   handle_chinese_chars  put spaces around every CJK ideograph, so each is its own word
//   strip_accents         NFD, then drop nonspacing marks (Mn): "café" -> "cafe".
//                         When null in the file it follows `lowercase` (BERT uncased).
//   lowercase             "Hello" -> "hello" (unicode::append_lower)
//
// Every output character remembers which input character it came from (`origin`), so
// tokens can be mapped back to the user's text even though "é" became "e" and a CJK
// ideograph gained two spaces.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfp {

struct BertNormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // nullopt: same as lowercase
  bool lowercase = true;
};

struct NormalizedText {
  std::u32string cps;
  // cps[i] came from input code points origin[i] .. origin_last[i]. Usually the two are
  // equal; a removed character (a dropped accent or control) is added to the span of the
  // character before it, as HF tokenizers does, so "cafe" + U+0301 still covers the accent.
  std::vector<uint32_t> origin, origin_last;
};

// Identity normalisation: origin[i] = origin_last[i] = first + i (`first` is where the
// input starts in a longer text, so origins can index that text directly).
NormalizedText identity_normalized(const std::u32string& input, uint32_t first = 0);

// The characters [begin, end) with their origins.
NormalizedText slice(const NormalizedText& t, size_t begin, size_t end);

// Rebuilds the text, letting `step(cp, emit)` emit zero or more characters per input
// character; each emitted character inherits the origin span of the one it came from.
// A character that emits nothing widens the span of the last emitted character.
template <typename Step>
NormalizedText rewrite_chars(const NormalizedText& in, Step step) {
  NormalizedText out;
  out.cps.reserve(in.cps.size());
  out.origin.reserve(in.cps.size());
  out.origin_last.reserve(in.cps.size());
  for (size_t i = 0; i < in.cps.size(); ++i) {
    const size_t before = out.cps.size();
    auto emit = [&](char32_t c) {
      out.cps.push_back(c);
      out.origin.push_back(in.origin[i]);
      out.origin_last.push_back(in.origin_last[i]);
    };
    step(in.cps[i], emit);
    if (out.cps.size() == before && before > 0 && out.origin_last.back() < in.origin_last[i])
      out.origin_last.back() = in.origin_last[i];
  }
  return out;
}

NormalizedText bert_normalize(const std::u32string& input, const BertNormalizerOptions& opt);
NormalizedText bert_normalize(NormalizedText text, const BertNormalizerOptions& opt);

}  // namespace tfp
