// Byte-level BPE, as in GPT-2.
//
// Byte level: text is UTF-8 bytes, and each of the 256 byte values is given a printable
// stand-in character (byte_to_unicode), so every token is a printable string and no
// input is ever out of vocabulary. ' ' becomes 'Ġ' (U+0120), '\n' becomes 'Ċ'.
//
// BPE: a word starts as one symbol per byte; then the pair of neighbouring symbols with
// the lowest merge rank (earliest learned) is merged everywhere in the word, again and
// again, until no neighbouring pair has a rank. Each merged symbol is a vocab entry.
//
// Matches gpt-3-encoder (the JS reference) and OpenAI's encoder.py. One JS detail was
// checked and found harmless: gpt-3-encoder keys its rank table by the string "a,b", so
// 11 pairs such as ('",', '"') alias another merge's key ('"', ',"'). In every context
// tried (the pairs with up to two neighbouring punctuation/letter characters either
// side, and all golden strings) the real merge always fires first, so true BPE ranks
// give identical ids; we use true pair keys, as HF tokenizers does.
//
// Not here: dropout, continuing-subword prefixes, end-of-word suffixes, ignore_merges
// (model options of HF tokenizers we do not need; loading rejects them when set).
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/model.h"

namespace tfp {

// GPT-2's printable stand-ins: bytes that are printable Latin-1 ('!'..'~', '¡'..'¬',
// '®'..'ÿ') stand for themselves; the other 68 map to U+0100.. in byte order.
const std::array<char32_t, 256>& byte_to_unicode();
// The inverse: -1 for a character that stands for no byte.
int byte_from_unicode(char32_t c);
// "hi there" -> "hiĠthere" (UTF-8 of the stand-in characters).
std::string bytes_to_symbols(std::string_view bytes);

class BpeModel : public Model {
 public:
  using Merge = std::pair<std::string, std::string>;
  // merges[r] is the pair learned r-th (rank r). Every byte symbol and every merge
  // result must be in `vocab` (tfp::Error otherwise).
  BpeModel(Vocab vocab, std::vector<Merge> merges);

  void tokenize(std::string_view piece, std::vector<ModelToken>& out) const override;
  const Vocab& vocab() const override { return vocab_; }
  nlohmann::json to_json() const override;
  const char* type_name() const override { return "BPE"; }
  const std::vector<Merge>& merges() const { return merges_; }


 private:
  struct PairHash {
    size_t operator()(uint64_t k) const { return std::hash<uint64_t>()(k); }
  };
  static uint64_t key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  // Rank and merged id of the neighbouring pair (a, b); rank -1 when not a merge.
  std::pair<int32_t, int32_t> lookup(int32_t a, int32_t b) const;
  std::vector<int32_t> bpe_word(const std::vector<int32_t>& symbols) const;

  Vocab vocab_;
  std::vector<Merge> merges_;
  std::array<int32_t, 256> byte_id_{};  // id of each byte's stand-in symbol
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>, PairHash> ranks_;  // -> (rank, id)

  // Words repeat a lot ("Ġthe"), so results are cached by the piece's bytes.
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

}  // namespace tfp
