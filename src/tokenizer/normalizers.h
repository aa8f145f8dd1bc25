// The normalizers of tokenizer.json as composable steps on NormalizedText (text that
// remembers, for every character, which input characters it came from).
//
//   Sequence      each step in order
//   Prepend       put a string before non-empty text (Llama 2: "▁")
//   Replace       every match of a literal or regex pattern -> content
//   NFD NFKD NFC NFKC   Unicode normal forms (unicode_norm.h)
//   Strip         drop White_Space at the left and/or right end
//   Lowercase     per-character lowercase (unicode::append_lower)
//   StripAccents  drop combining marks (Mn Mc Me); usually after NFD
//   BertNormalizer  BERT's clean-up (normalizer.h)
//   Precompiled   SentencePiece's charsmap (precompiled.h)
// Not here: ByteLevel, Nmt; loading names them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/normalizer.h"
#include "tokenizer/pattern.h"
#include "tokenizer/unicode_norm.h"

namespace tfp {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(NormalizedText& text) const = 0;
};
using NormalizerPtr = std::shared_ptr<const Normalizer>;

NormalizerPtr make_sequence_normalizer(std::vector<NormalizerPtr> steps);
NormalizerPtr make_prepend_normalizer(const std::string& prefix);
NormalizerPtr make_replace_normalizer(TextPattern pattern, const std::string& content);
NormalizerPtr make_normal_form_normalizer(NormalForm form);
NormalizerPtr make_strip_normalizer(bool left, bool right);
NormalizerPtr make_lowercase_normalizer();
NormalizerPtr make_strip_accents_normalizer();
NormalizerPtr make_bert_normalizer(const BertNormalizerOptions& options);

}  // namespace tfp
