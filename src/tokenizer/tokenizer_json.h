// Reading and writing Hugging Face `tokenizer.json` files.
//
// The JSON is parsed WITHOUT exceptions (json::parse(text, nullptr, false)), and every
// field is type-checked before use, so a malformed or unexpected file gives a tfp::Error
// naming the field, never an nlohmann exception or an abort.
//
// Supported (anything else is an error that names the type):
//   model          BPE (byte-level: needs the ByteLevel pre_tokenizer), WordPiece,
//                  Char (our own, see char_model.h)
//   normalizer     null, BertNormalizer
//   pre_tokenizer  null, ByteLevel (use_regex must be true), BertPreTokenizer
//   post_processor null, ByteLevel (offset trimming is not applied), BertProcessing,
//                  TemplateProcessing (the "single" template)
//   decoder        null, ByteLevel, WordPiece, Fuse
//   added_tokens   matched exactly in the raw text; lstrip/rstrip/single_word must be false
// `truncation` and `padding` are ignored: callers truncate and pad.
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
