// Learning byte-level BPE merges from a corpus (how GPT-2's vocab was made).
//
//   1. Pre-tokenise every text with the GPT-2 pattern and count each distinct word
//      ("Ġthe": 5120, "Ġcat": 31, ...). Merges never cross word boundaries.
//   2. Spell each word in byte symbols (the 256 byte-level characters).
//   3. Count every neighbouring symbol pair, weighted by word frequency. Merge the most
//      frequent pair everywhere into a new symbol; that is merge number r (rank r).
//      Ties go to the pair whose (left, right) strings sort first (bytewise), so the
//      result is deterministic.
//   4. Repeat until the vocab reaches vocab_size or no pair occurs min_frequency times.
//
// The result is a Tokenizer (byte-level BPE with the ByteLevel pre-tokenizer/decoder)
// that to_tokenizer_json() saves and load_tokenizer_json() reads back.
// Vocab ids: special tokens first (0, 1, ...), then the 256 byte symbols in byte
// order, then one id per merge in merge order.
#pragma once
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tfp {

struct BpeTrainerOptions {
  size_t vocab_size = 1000;      // specials + 256 bytes + merges
  int64_t min_frequency = 2;     // a pair seen fewer times is not merged
  std::vector<std::string> special_tokens = {"<|endoftext|>"};
};

// Throws tfp::Error on invalid UTF-8 in a text (naming the text index and byte offset)
// or a vocab_size too small for the specials and the 256 byte symbols.
Tokenizer train_bpe(const std::vector<std::string>& texts, const BpeTrainerOptions& options);

}  // namespace tfp
