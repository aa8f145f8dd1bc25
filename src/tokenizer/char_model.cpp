// The character model: one token per code point. See char_model.h for the format.
#include "tokenizer/char_model.h"

#include <set>

#include "core/error.h"
#include "io/json_excerpt.h"
#include "tokenizer/unicode.h"

namespace tfp {

CharModel::CharModel(Vocab vocab, std::string unk_token)
    : vocab_(std::move(vocab)), unk_token_(std::move(unk_token)) {
  if (!unk_token_.empty()) {
    auto id = vocab_.find(unk_token_);
    TFP_CHECK(id.has_value(), "char model: unk_token \"", io::text_excerpt(unk_token_), "\" is not in the vocab");
    unk_id_ = *id;
  }
}

CharModel CharModel::from_text(std::string_view text, const std::vector<std::string>& specials,
                               const std::string& unk_token) {
  Vocab vocab;
  int32_t next = 0;
  for (const std::string& s : specials) vocab.add(s, next++);
  if (!unk_token.empty() && !vocab.find(unk_token)) vocab.add(unk_token, next++);
  std::set<char32_t> seen;
  for (const unicode::DecodedChar& c : unicode::decode_utf8(text)) seen.insert(c.cp);
  for (char32_t cp : seen) {
    std::string s;
    unicode::append_utf8(s, cp);
    if (!vocab.find(s)) vocab.add(s, next++);
  }
  return CharModel(std::move(vocab), unk_token);
}

void CharModel::tokenize(std::string_view piece, std::vector<ModelToken>& out) const {
  // The piece is valid UTF-8 (the Tokenizer decoded it), so each code point is one
  // lead byte plus its continuation bytes.
  for (const unicode::DecodedChar& c : unicode::decode_utf8(piece)) {
    auto id = vocab_.find(piece.substr(c.begin, c.end - c.begin));
    if (!id) {
      TFP_CHECK(unk_id_ >= 0, "char model: character ", unicode::cp_label(c.cp), " at byte ", c.begin,
                " of the piece is not in the vocab and there is no unk_token");
      id = unk_id_;
    }
    out.push_back({*id, c.begin, c.end});
  }
}

nlohmann::json CharModel::to_json() const {
  nlohmann::json vocab = nlohmann::json::object();
  for (const auto& [tok, id] : vocab_.map()) vocab[tok] = id;
  nlohmann::json j = {{"type", "Char"}, {"vocab", vocab}};
  j["unk_token"] = unk_token_.empty() ? nlohmann::json(nullptr) : nlohmann::json(unk_token_);
  return j;
}

}  // namespace tfp
