// WordPiece: greedy longest-match-first over one word. See wordpiece.h.
#include "tokenizer/wordpiece.h"

#include "core/error.h"
#include "io/json_excerpt.h"

namespace tfp {

namespace {
bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

WordPieceModel::WordPieceModel(Vocab vocab, std::string unk_token, std::string continuing_prefix,
                               size_t max_input_chars_per_word)
    : vocab_(std::move(vocab)),
      unk_token_(std::move(unk_token)),
      prefix_(std::move(continuing_prefix)),
      max_chars_(max_input_chars_per_word) {
  auto unk = vocab_.find(unk_token_);
  TFP_CHECK(unk.has_value(), "wordpiece: unk_token \"", io::text_excerpt(unk_token_), "\" is not in the vocab");
  unk_id_ = *unk;
}

void WordPieceModel::tokenize(std::string_view word, std::vector<ModelToken>& out) const {
  if (word.empty()) return;
  const uint32_t n = static_cast<uint32_t>(word.size());
  size_t chars = 0;
  for (char c : word) chars += !is_continuation_byte(c);
  if (chars > max_chars_) {
    out.push_back({unk_id_, 0, n});
    return;
  }
  const size_t first_new = out.size();
  uint32_t start = 0;
  std::string candidate;
  while (start < n) {
    // Shrink [start, end) one character at a time from the right until it is a token.
    uint32_t end = n;
    int32_t found = -1;
    while (start < end) {
      candidate.assign(start > 0 ? prefix_ : std::string());
      candidate.append(word.substr(start, end - start));
      if (auto id = vocab_.find(candidate)) {
        found = *id;
        break;
      }
      do { --end; } while (end > start && is_continuation_byte(word[end]));  // whole chars
    }
    if (found < 0) {
      // No vocab entry starts here: the whole word is unknown.
      out.resize(first_new);
      out.push_back({unk_id_, 0, n});
      return;
    }
    out.push_back({found, start, end});
    start = end;
  }
}

nlohmann::json WordPieceModel::to_json() const {
  nlohmann::json vocab = nlohmann::json::object();
  for (const auto& [tok, id] : vocab_.map()) vocab[tok] = id;
  return {{"type", "WordPiece"},
          {"unk_token", unk_token_},
          {"continuing_subword_prefix", prefix_},
          {"max_input_chars_per_word", max_chars_},
          {"vocab", vocab}};
}

}  // namespace tfp
