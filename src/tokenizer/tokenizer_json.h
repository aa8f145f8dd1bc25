// Reading and writing Hugging Face `tokenizer.json` files.
//
// The JSON is parsed WITHOUT exceptions (json::parse(text, nullptr, false)), and every
// field is type-checked before use, so a malformed or unexpected file gives a tfp::Error
// naming the field, never an nlohmann exception or an abort.
//
// Supported (anything else is an error that names the type and where it is):
//   model          BPE (byte_fallback, unk_token + fuse_unk, ignore_merges, merges as "a b"
//                  or ["a", "b"], continuing_subword_prefix, end_of_word_suffix; bpe.h),
//                  Unigram (unk_id, byte_fallback; unigram.h), WordPiece, WordLevel,
//                  Char (ours)
//   normalizer     Sequence, Prepend, Replace (String or Regex), NFC, NFD, NFKC, NFKD,
//                  Strip, Lowercase, StripAccents, BertNormalizer, Precompiled
//                  (SentencePiece's charsmap of T5/ALBERT files; precompiled.h)
//   pre_tokenizer  Sequence, Split (String or Regex; Removed, Isolated, MergedWithPrevious,
//                  MergedWithNext, Contiguous; invert), ByteLevel (with or without its
//                  regex), Metaspace (prepend_scheme always/first/never, split), Digits,
//                  Whitespace, WhitespaceSplit, Punctuation, BertPreTokenizer,
//                  CharDelimiterSplit
//   post_processor TemplateProcessing (the "single" template), BertProcessing,
//                  RobertaProcessing, ByteLevel (offset trimming is not applied), Sequence
//   decoder        Sequence, ByteLevel, ByteFallback, Replace, Fuse, Strip, Metaspace,
//                  WordPiece, BPEDecoder
//   added_tokens   special or not; lstrip, rstrip, single_word; normalized (matched after
//                  the normalizer) — as Hugging Face applies them (added_tokens.h)
// Regex patterns go through our own matcher (regex.h), which names any construct it lacks.
// Refused by name: the Nmt and ByteLevel normalizers, BPE dropout, the UnicodeScripts and
// FixedLength pre-tokenizers, the CTC decoder. Only single sequences:
// the "pair" template is not read.
// `truncation` and `padding` are ignored: callers truncate and pad.
// Limits (a file beyond them is refused by name before anything is sized by it): every
// token id (model.vocab values, added_tokens ids, unk_id) is below the number of
// model.vocab entries plus added tokens the file holds. Hugging Face takes any u32 id,
// sparse ones too; real files number their vocab 0..n-1 and put added tokens after, and a
// table sized by a larger id would hold what the file does not. The post_processor adds
// at most kMaxPostProcessorTokens (1,024) tokens around a text (pipeline_json.h).
#pragma once
#include <string>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace tfp {

// `source` names the file in error messages ("gpt2/tokenizer.json").
Tokenizer load_tokenizer_json(std::string_view text, const std::string& source = "tokenizer.json");
Tokenizer load_tokenizer_file(const std::string& path);

// A tokenizer.json that load_tokenizer_json (and HF tokenizers, for BPE and WordPiece)
// can read back.
std::string to_tokenizer_json(const Tokenizer& tok);

}  // namespace tfp
