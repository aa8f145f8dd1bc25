// WordLevel (HF tokenizers): each pre-tokenised piece is looked up whole; a piece not in
// the vocab is unk_token. The simplest model, used by word-per-token vocabularies.
#pragma once
#include <string>

#include "tokenizer/model.h"

namespace tfp {

class WordLevelModel : public Model {
 public:
  WordLevelModel(Vocab vocab, std::string unk_token);  // unk_token must be in the vocab

  void tokenize(std::string_view piece, std::vector<ModelToken>& out) const override;
  const Vocab& vocab() const override { return vocab_; }
  nlohmann::json to_json() const override;
  const char* type_name() const override { return "WordLevel"; }

 private:
  Vocab vocab_;
  std::string unk_token_;
  int32_t unk_id_ = -1;
};

}  // namespace tfp
