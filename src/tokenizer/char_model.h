// The character model: one token per Unicode code point. The simplest tokenizer there
// is, used by the toy tasks (copy, reverse, sort, add) where characters ARE the symbols.
//
// Our own format (Hugging Face tokenizers cannot load it, and says so by type name): a
// tokenizer.json whose model is
//     {"type": "Char", "vocab": {"a": 0, "b": 1, ...}, "unk_token": "<unk>"}
// with no normalizer and no pre_tokenizer. Every vocab key must be exactly one code
// point, except the unk token and any added (special) tokens. A character missing from
// the vocab becomes unk_token; without an unk_token, it is an error naming the character.
#pragma once
#include <string>

#include "tokenizer/model.h"

namespace tfp {

class CharModel : public Model {
 public:
  CharModel(Vocab vocab, std::string unk_token);  // unk_token may be "" (none)

  // A vocab of every distinct code point in `text`, in code point order, after the
  // given special tokens (which take ids 0, 1, ...).
  static CharModel from_text(std::string_view text, const std::vector<std::string>& specials,
                             const std::string& unk_token);

  void tokenize(std::string_view piece, std::vector<ModelToken>& out) const override;
  const Vocab& vocab() const override { return vocab_; }
  nlohmann::json to_json() const override;
  const char* type_name() const override { return "Char"; }

 private:
  Vocab vocab_;
  std::string unk_token_;
  int32_t unk_id_ = -1;
};

}  // namespace tfp
