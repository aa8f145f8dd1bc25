// The Tokenizer: one pipeline, as in Hugging Face tokenizers, for every model type.
//
//   text (UTF-8, validated)
//     -> added tokens   "<|endoftext|>", "[CLS]", ... matched in the raw text first;
//                       they are never split, normalised or pre-tokenised
//     -> normalizer     none, or BERT's (normalizer.h)
//     -> pre-tokenizer  none, GPT-2 byte-level regex, or BERT's split (pretokenize.h)
//     -> model          BPE, WordPiece or Char (model.h): each piece -> tokens
//     -> post-processor none, or [CLS] ... [SEP] around the sequence
//   Encoding { ids, tokens, offsets (bytes), offsets_utf16, special_mask }
//
// Offsets: `offsets[i]` is the byte span [begin, end) of the ORIGINAL UTF-8 text that
// token i came from; `offsets_utf16[i]` is the same span in UTF-16 code units, which is
// what JavaScript's string indices (`text.slice(begin, end)`) count. A byte-level token
// holding only part of a character's bytes gets that whole character's span, so two
// neighbouring tokens may share a span. Special tokens added by the post-processor get
// the empty span (0, 0).
//
// Not supported (loading says so by name): other model/normalizer/pre-tokenizer/
// decoder types, pair sequences, truncation and padding (callers handle those).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/model.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/unicode.h"

namespace tfp {

struct Offset {
  uint32_t begin = 0, end = 0;
  bool operator==(const Offset&) const = default;
};

struct Encoding {
  std::vector<int32_t> ids;
  std::vector<std::string> tokens;
  std::vector<Offset> offsets;        // bytes of the UTF-8 input
  std::vector<Offset> offsets_utf16;  // UTF-16 code units (JS string indices)
  std::vector<uint8_t> special_mask;  // 1 for added/special tokens
  size_t size() const { return ids.size(); }
};

struct AddedToken {
  int32_t id;
  std::string content;
  bool special = true;  // skipped by decode(..., skip_special = true)
};

enum class PreTokenizerKind { None, ByteLevel, Bert };
// None joins tokens with " " (as HF does without a decoder); Fuse concatenates them.
enum class DecoderKind { None, ByteLevel, WordPiece, Fuse };

// Everything around the model, as read from (and written to) tokenizer.json.
struct PipelineConfig {
  std::optional<BertNormalizerOptions> bert_normalizer;
  PreTokenizerKind pre_tokenizer = PreTokenizerKind::None;
  bool add_prefix_space = false;  // ByteLevel: " " before the text, as if mid-sentence
  // Post-processor: tokens put before / after the sequence (BERT: [CLS] / [SEP]).
  std::vector<std::string> prefix_tokens, suffix_tokens;
  DecoderKind decoder = DecoderKind::None;
  std::string wordpiece_prefix = "##";  // WordPiece decoder
  bool wordpiece_cleanup = true;        // WordPiece decoder: " ." -> "." etc.
};

// Ids of well-known special tokens, -1 where the tokenizer has none.
struct SpecialIds {
  int32_t unk = -1, pad = -1, cls = -1, sep = -1, mask = -1, bos = -1, eos = -1;
};

class Tokenizer {
 public:
  Tokenizer(std::unique_ptr<Model> model, PipelineConfig config, std::vector<AddedToken> added);

  // Throws tfp::Error on invalid UTF-8 (naming the byte offset).
  Encoding encode(std::string_view text, bool add_special_tokens = true) const;
  // Invalid byte sequences (from a byte-level token split mid-character) become U+FFFD.
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = true) const;

  std::optional<int32_t> token_to_id(std::string_view token) const;
  std::string id_to_token(int32_t id) const;  // "" for an unknown id
  size_t vocab_size() const;                  // model vocab + added tokens (max id + 1)
  const SpecialIds& special_ids() const { return special_; }
  const Model& model() const { return *model_; }
  Model& model() { return *model_; }
  const PipelineConfig& config() const { return config_; }
  const std::vector<AddedToken>& added_tokens() const { return added_; }

 private:
  // Normalise, pre-tokenise and model chars[first, last) of the input into `out`.
  void encode_segment(const std::vector<unicode::DecodedChar>& chars, size_t first, size_t last,
                      Encoding& out) const;
  const AddedToken* added_by_id(int32_t id) const;

  std::unique_ptr<Model> model_;
  PipelineConfig config_;
  std::vector<AddedToken> added_;            // in file order
  std::vector<const AddedToken*> by_length_;  // longest first, for matching
  SpecialIds special_;
};

}  // namespace tfp
