// The subword model interface shared by byte-level BPE, WordPiece and the character
// model, and the Vocab they all keep (token string <-> id).
//
// A model sees ONE pre-tokenised piece of text (UTF-8, already normalised) and returns
// its tokens with byte spans inside that piece. The Tokenizer (tokenizer.h) maps those
// spans back to the user's original text.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace tfp {

// One token produced by a model: its id and the bytes [begin, end) of the piece it
// covers. A byte-level token may cover part of a multi-byte character.
struct ModelToken {
  int32_t id;
  uint32_t begin, end;
};

// Token string <-> id. Ids need not be contiguous in a file; missing ids decode to "".
class Vocab {
 public:
  void add(const std::string& token, int32_t id);
  std::optional<int32_t> find(std::string_view token) const;
  const std::string& token(int32_t id) const;  // "" for an unknown id
  size_t size() const { return by_id_.size(); }  // max id + 1
  const std::unordered_map<std::string, int32_t>& map() const { return to_id_; }

 private:
  std::unordered_map<std::string, int32_t> to_id_;
  std::vector<std::string> by_id_;
};

class Model {
 public:
  virtual ~Model() = default;
  // Appends the tokens of one piece to `out`.
  virtual void tokenize(std::string_view piece, std::vector<ModelToken>& out) const = 0;
  virtual const Vocab& vocab() const = 0;
  // The "model" object of tokenizer.json.
  virtual nlohmann::json to_json() const = 0;
  virtual const char* type_name() const = 0;
};

}  // namespace tfp
