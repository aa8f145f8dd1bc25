// Unigram (SentencePiece's unigram language model; T5, ALBERT, XLNet, mBART).
//
// Every vocab piece has a score (a log probability). A piece of text is cut into the
// sequence of vocab pieces with the highest total score (Viterbi over byte positions,
// exactly as HF's encode_optimized):
//   best[0] = 0; for each character start s, for each vocab piece p that is a prefix of
//   text[s..] (found by walking a byte trie): best[s + |p|] = max(.., best[s] + score(p)).
//   A character that starts no vocab piece of its own length gets the unknown piece with
//   score min_score - 10. Ties keep the first candidate (shorter pieces come first).
// Consecutive unknown characters fuse into one unk token. With byte_fallback, an unknown
// stretch becomes its "<0xNN>" byte tokens when they are all in the vocab.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/model.h"

namespace tfp {

class UnigramModel : public Model {
 public:
  // pieces[i] = (token, score) with id i; unk_id -1 for none.
  UnigramModel(std::vector<std::pair<std::string, double>> pieces, int32_t unk_id, bool byte_fallback);

  void tokenize(std::string_view piece, std::vector<ModelToken>& out) const override;
  const Vocab& vocab() const override { return vocab_; }
  nlohmann::json to_json() const override;
  const char* type_name() const override { return "Unigram"; }

 private:
  std::vector<std::pair<std::string, double>> pieces_;
  Vocab vocab_;
  int32_t unk_id_;
  bool byte_fallback_;
  double min_score_ = 0;
  // Byte trie: edge (node << 8 | byte) -> child; terminal_[node] = piece id or -1.
  std::unordered_map<uint64_t, int32_t> edges_;
  std::vector<int32_t> terminal_;
};

}  // namespace tfp
