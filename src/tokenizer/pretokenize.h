// Pre-tokenisation: cutting text into "words" before the subword model runs.
//
//   split_gpt2     GPT-2's regex, matched by hand (no std::regex), code point by code point
//   split_bert     BERT's basic tokenizer split: whitespace, then each punctuation mark
//                  and each CJK ideograph alone
//
// Both take code points and return [begin, end) index pairs into them, so the caller can
// carry offsets through. Neither changes a character: normalisation happens before.
//
// The Tokenizer itself runs tokenizer.json's steps (pre_tokenizers.h): its ByteLevel step
// matches the same GPT-2 pattern with regex.h, where \s is Oniguruma's (White_Space, as
// Hugging Face has it), not JavaScript's; the two differ only on U+0085 and U+FEFF.
// split_gpt2 stays for the BPE trainer's word counts and as the gpt-3-encoder reference.
#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace tfp {

using PieceSpan = std::pair<uint32_t, uint32_t>;  // [begin, end) in code points

// GPT-2 (and gpt-3-encoder's JS, with the u flag):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// \s is JavaScript's \s (unicode::is_js_space). Every code point lands in exactly one
// piece; concatenating the pieces gives the input back.
std::vector<PieceSpan> split_gpt2(std::u32string_view text);

// BERT's BasicTokenizer split (after clean-up / CJK spacing in the normaliser): drop
// whitespace (Unicode White_Space), emit each punctuation mark as its own piece.
std::vector<PieceSpan> split_bert(std::u32string_view text);

}  // namespace tfp
