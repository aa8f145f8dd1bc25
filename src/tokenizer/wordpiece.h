// WordPiece (BERT): greedy longest-match-first subwords.
//
// For one word (already lower-cased / split by the BERT normaliser and pre-tokeniser):
//   start at the first character; take the LONGEST prefix of the rest that is in the
//   vocab (with "##" in front unless it starts the word); emit it; continue after it.
//   If at some point no prefix (not even one character) is in the vocab, the WHOLE word
//   becomes [UNK] — WordPiece never emits a partial word.
// A word longer than max_input_chars_per_word characters is [UNK] without trying.
//
//   "unaffable" with vocab {un, ##aff, ##able}  ->  un ##aff ##able
//
// Not here: the BERT normaliser and punctuation split (normalizer.h, pretokenize.h).
#pragma once
#include <string>

#include "tokenizer/model.h"

namespace tfp {

class WordPieceModel : public Model {
 public:
  WordPieceModel(Vocab vocab, std::string unk_token, std::string continuing_prefix = "##",
                 size_t max_input_chars_per_word = 100);

  void tokenize(std::string_view piece, std::vector<ModelToken>& out) const override;
  const Vocab& vocab() const override { return vocab_; }
  nlohmann::json to_json() const override;
  const char* type_name() const override { return "WordPiece"; }
  const std::string& continuing_prefix() const { return prefix_; }
  const std::string& unk_token() const { return unk_token_; }

 private:
  Vocab vocab_;
  std::string unk_token_;
  int32_t unk_id_;
  std::string prefix_;
  size_t max_chars_;
};

}  // namespace tfp
