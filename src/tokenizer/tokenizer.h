// The Tokenizer: one pipeline, as in Hugging Face tokenizers, for every model type.
//
//   text (UTF-8, validated)
//     -> added tokens   "<|endoftext|>", "[CLS]", "<s>", ... (added_tokens.h): found in the
//                       raw text first and never split, normalised or pre-tokenised
//                       (tokens with "normalized": true are found after normalising)
//     -> normalizer     normalizers.h (Sequence, NFC, Replace, Prepend, BERT's, ...)
//     -> pre-tokenizer  pre_tokenizers.h (Split with a regex, ByteLevel, Metaspace, ...)
//     -> model          BPE, Unigram, WordPiece or Char (model.h): each piece -> tokens
//     -> post-processor none, or tokens before/after the sequence ([CLS] ... [SEP], <s> ...)
//   Encoding { ids, tokens, offsets (bytes), offsets_utf16, special_mask }
//   decode: ids -> token strings -> decoder (decoders.h), or joined with " " without one
//
// Offsets: `offsets[i]` is the byte span [begin, end) of the ORIGINAL UTF-8 text that
// token i came from; `offsets_utf16[i]` is the same span in UTF-16 code units, which is
// what JavaScript's string indices (`text.slice(begin, end)`) count. A byte-level token
// holding only part of a character's bytes gets that whole character's span, so two
// neighbouring tokens may share a span. Special tokens added by the post-processor get
// the empty span (0, 0).
//
// Two ways to build one: load_tokenizer_json (tokenizer_json.h) fills the general
// pipeline steps; code that trains tokenizers sets the simple fields of PipelineConfig
// (BERT normaliser, ByteLevel/BERT pre-tokenizer, decoder kind) and the constructor
// turns them into the same steps.
//
// Not supported: pair sequences, truncation and padding (callers handle those).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unordered_map>

#include "tokenizer/added_tokens.h"
#include "tokenizer/decoders.h"
#include "tokenizer/model.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/pre_tokenizers.h"
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
  bool lstrip = false, rstrip = false, single_word = false;  // see added_tokens.h
  bool normalized = false;  // matched in the normalised text instead of the raw text
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

  // The general pipeline (tokenizer.json). A null step is built from the fields above.
  NormalizerPtr normalizer;
  PreTokenizerPtr pre_tokenizer_steps;
  DecoderPtr decoder_steps;
  // The loaded file's "normalizer", "pre_tokenizer", "post_processor" and "decoder"
  // objects, which to_tokenizer_json writes back as they were (null: built in code).
  nlohmann::json source;
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
  // Normalise, pre-tokenise and model cps[first, last) of the input into `out`.
  void encode_segment(const std::vector<unicode::DecodedChar>& chars, const std::u32string& cps, size_t first,
                      size_t last, Encoding& out) const;
  // Pre-tokenise and model one normalised stretch (no added tokens inside).
  void encode_pieces(const std::vector<unicode::DecodedChar>& chars, NormalizedText text, Encoding& out) const;
  void emit_added(const AddedToken& t, uint32_t begin, uint32_t end, Encoding& out) const;
  const AddedToken* added_by_id(int32_t id) const;

  std::unique_ptr<Model> model_;
  PipelineConfig config_;
  std::vector<AddedToken> added_;  // in file order
  std::unordered_map<int32_t, size_t> added_index_by_id_;
  std::unordered_map<std::string, size_t> added_index_by_content_;
  AddedTokenMatcher raw_matcher_, normalized_matcher_;  // token = index into added_
  SpecialIds special_;
};

}  // namespace tfp
