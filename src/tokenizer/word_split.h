// The words fallback: how text becomes tokens for a model that has no tokenizer.json
// and no vocabulary — a PyTorch nn.Transformer checkpoint, which takes vectors, not ids.
//
// There is nothing to look words up in, so the split is the simplest honest one:
//   - whitespace (Unicode White_Space) separates tokens and is dropped;
//   - each punctuation mark (BERT's definition) and each CJK ideograph is a token alone;
//   - everything else runs together into a word, kept exactly as typed (no lowercasing,
//     no accent stripping), so "The" and "the" are different tokens.
// Ids: there is no vocabulary, so token i's id is the index of its text among the
// DISTINCT texts of this input, in order of first appearance ("a b a" → 0 1 0). Equal
// texts get equal ids within one call; ids mean nothing across calls. The caller turns
// each token's text into a vector (api tfp_seeded_token_embeddings: same text, same
// vector), which is what the model actually reads.
//
// Offsets as Tokenizer::encode gives them: bytes of the UTF-8 input and UTF-16 units.
// Invalid UTF-8 throws tfp::Error naming the byte offset. special_mask is all 0.
#pragma once
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace tfp {

// The name the model info reports for this fallback ("tokenizer_fallback": "words").
inline constexpr const char* kWordsFallbackName = "words";

Encoding encode_words(std::string_view text);

}  // namespace tfp
