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

// Identity normalisation: origin[i] = origin_last[i] = i.
NormalizedText identity_normalized(const std::u32string& input);

NormalizedText bert_normalize(const std::u32string& input, const BertNormalizerOptions& opt);

}  // namespace tfp
