// The pre-tokenizers of tokenizer.json: each cuts every piece of (normalised) text into
// smaller pieces, and some rewrite characters (ByteLevel, Metaspace). A piece is a
// NormalizedText, so every character still knows where in the input it came from.
// Empty pieces are dropped after every step, as Hugging Face does.
//
//   Sequence          each step in order
//   Split             cut at a literal or regex pattern; the behaviour says what happens
//                     to the matches: Removed, Isolated, MergedWithPrevious,
//                     MergedWithNext, Contiguous; `invert` swaps matches and the rest
//   ByteLevel         (add_prefix_space: " " first) optional GPT-2 regex split, then every
//                     UTF-8 byte becomes its printable stand-in (bpe.h)
//   Metaspace         ' ' -> replacement ("▁"); prepend it (always, first piece of the
//                     text only, never); optionally split before each replacement
//   Digits            digits (\p{N}) apart from the rest: each alone, or runs together
//   Whitespace        \w+ and [^\w\s]+ runs; whitespace dropped
//   WhitespaceSplit   cut at White_Space, dropping it
//   Punctuation       each punctuation character (BERT's definition) apart
//   BertPreTokenizer  WhitespaceSplit then Punctuation (pretokenize.h)
//   CharDelimiterSplit  cut at one character, dropping it
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/normalizer.h"
#include "tokenizer/pattern.h"

namespace tfp {

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
enum class PrependScheme { Always, First, Never };

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(std::vector<NormalizedText>& pieces) const = 0;
};
using PreTokenizerPtr = std::shared_ptr<const PreTokenizer>;

// The GPT-2 pattern ByteLevel uses when use_regex is true.
inline constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

PreTokenizerPtr make_sequence_pre_tokenizer(std::vector<PreTokenizerPtr> steps);
PreTokenizerPtr make_split_pre_tokenizer(TextPattern pattern, SplitBehavior behavior, bool invert);
PreTokenizerPtr make_byte_level_pre_tokenizer(bool add_prefix_space, bool use_regex);
PreTokenizerPtr make_metaspace_pre_tokenizer(char32_t replacement, PrependScheme scheme, bool split);
PreTokenizerPtr make_digits_pre_tokenizer(bool individual_digits);
PreTokenizerPtr make_whitespace_pre_tokenizer();
PreTokenizerPtr make_whitespace_split_pre_tokenizer();
PreTokenizerPtr make_punctuation_pre_tokenizer(SplitBehavior behavior);
PreTokenizerPtr make_bert_pre_tokenizer();
PreTokenizerPtr make_char_delimiter_pre_tokenizer(char32_t delimiter);

// Cuts one piece given its matches ([begin, end) code point spans, sorted, disjoint),
// with Hugging Face's SplitDelimiterBehavior; appends the non-empty results to `out`.
void split_piece(const NormalizedText& piece, const std::vector<std::pair<uint32_t, uint32_t>>& matches,
                 SplitBehavior behavior, bool invert, std::vector<NormalizedText>& out);

}  // namespace tfp
