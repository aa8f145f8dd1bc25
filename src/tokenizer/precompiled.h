// SentencePiece's precompiled normalisation map ("Precompiled" normalizer: T5, ALBERT,
// XLNet, mBART files), read as Hugging Face reads it.
//
// The blob (base64 in tokenizer.json's precompiled_charsmap):
//   u32 little-endian  trie_size (bytes)
//   trie_size bytes    a double-array trie (darts-clone units, u32 LE each) over UTF-8
//                      byte strings; a key's value is an offset into the pool below
//   the rest           NUL-terminated UTF-8 replacements, one after another
//
// Normalising (HF's Precompiled::normalize, which copies SentencePiece): for every grapheme
// cluster (grapheme.h) shorter than 6 bytes, look the whole cluster up; if the trie has a
// key that is a prefix of it, the SHORTEST such key's replacement replaces the whole
// cluster. Otherwise each character is looked up alone and replaced, or kept.
//
// darts-clone units: has_leaf = bit 8; value = low 31 bits; label = bit 31 | low 8 bits;
// offset = (unit >> 10) << ((unit & (1 << 9)) >> 6). The child for byte c of the node at
// p is at (p ^ offset(unit[p])) ^ c, and a node with a leaf keeps its value at
// p ^ offset(unit[p]).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/normalizers.h"

namespace tfp {

class PrecompiledCharsmap {
 public:
  // Throws tfp::Error naming what is malformed (sizes, non-UTF-8 replacements).
  explicit PrecompiledCharsmap(std::string_view blob);
  // The replacement of the shortest key that is a prefix of `chunk`, if any.
  std::optional<std::string_view> transform(std::string_view chunk) const;

 private:
  std::vector<uint32_t> units_;
  std::string pool_;
};

NormalizerPtr make_precompiled_normalizer(std::string_view blob);

// Standard base64 (with or without '=' padding); throws tfp::Error on a bad character.
std::string base64_decode(std::string_view text);

}  // namespace tfp
