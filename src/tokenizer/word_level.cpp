// WordLevel: one vocab lookup per piece. See word_level.h.
#include "tokenizer/word_level.h"

#include "core/error.h"
#include "io/json_excerpt.h"

namespace tfp {

WordLevelModel::WordLevelModel(Vocab vocab, std::string unk_token)
    : vocab_(std::move(vocab)), unk_token_(std::move(unk_token)) {
  auto id = vocab_.find(unk_token_);
  TFP_CHECK(id.has_value(), "word level: unk_token \"", io::text_excerpt(unk_token_), "\" is not in the vocab");
  unk_id_ = *id;
}

void WordLevelModel::tokenize(std::string_view piece, std::vector<ModelToken>& out) const {
  if (piece.empty()) return;
  out.push_back({vocab_.find(piece).value_or(unk_id_), 0, static_cast<uint32_t>(piece.size())});
}

nlohmann::json WordLevelModel::to_json() const {
  nlohmann::json vocab = nlohmann::json::object();
  for (const auto& [tok, id] : vocab_.map()) vocab[tok] = id;
  return {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", unk_token_}};
}

}  // namespace tfp
