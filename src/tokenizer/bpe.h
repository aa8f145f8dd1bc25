// BPE, as Hugging Face tokenizers runs it (GPT-2, Llama, Qwen, Gemma, ...).
//
// A piece of text starts as one symbol per character (a character missing from the vocab
// becomes its "<0xNN>" byte tokens with byte_fallback, else unk_token, else it is
// dropped, as HF does). Then the neighbouring pair with the lowest merge rank (earliest
// learned) is merged, again and again (leftmost first among equal ranks), until no
// neighbouring pair is a merge. A priority queue over a linked list of symbols keeps this
// O(n log n), so a whole 100 kB text as one piece (Llama 2, Gemma) stays fast.
//
// Byte level (GPT-2): the ByteLevel pre-tokenizer has already turned every UTF-8 byte
// into a printable stand-in character (byte_to_unicode), so every character is in the
// vocab. ' ' becomes 'Ġ' (U+0120), '\n' becomes 'Ċ'.
//
// Options (tokenizer.json model fields):
//   byte_fallback               "<0x41>"-style tokens for characters not in the vocab
//   unk_token, fuse_unk         the unknown token; consecutive unknowns fused into one
//   ignore_merges               a piece that is itself in the vocab is one token (Llama 3)
//   continuing_subword_prefix   put before every symbol but the first ("##")
//   end_of_word_suffix          put after the last symbol ("</w>")
// Not here: dropout (loading refuses a non-zero dropout).
//
// gpt-3-encoder (the JS GPT-2 reference) keys its ranks by the string "a,b", so 11 pairs
// alias another merge's key; in every context tried the real merge fires first, so true
// pair keys (as HF uses) give identical ids.
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

struct BpeOptions {
  std::string unk_token;  // "" for none
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::string continuing_subword_prefix, end_of_word_suffix;
};

class BpeModel : public Model {
 public:
  using Merge = std::pair<std::string, std::string>;
  // merges[r] is the pair learned r-th (rank r). Both halves and the merged token must
  // be in `vocab` (tfp::Error otherwise); a pair listed twice keeps its last rank, as HF.
  BpeModel(Vocab vocab, std::vector<Merge> merges, BpeOptions options = {});

  void tokenize(std::string_view piece, std::vector<ModelToken>& out) const override;
  const Vocab& vocab() const override { return vocab_; }
  nlohmann::json to_json() const override;
  const char* type_name() const override { return "BPE"; }
  const std::vector<Merge>& merges() const { return merges_; }
  const BpeOptions& options() const { return options_; }

 private:
  struct PairHash {
    size_t operator()(uint64_t k) const { return std::hash<uint64_t>()(k); }
  };
  static uint64_t key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  // Rank and merged id of the neighbouring pair (a, b); rank -1 when not a merge.
  std::pair<int32_t, int32_t> lookup(int32_t a, int32_t b) const;
  struct Symbol {
    int32_t id;
    uint32_t len;  // bytes of the piece it covers
  };
  // The piece's initial symbols: one per character, or byte tokens, or unk.
  void initial_symbols(std::string_view piece, std::vector<Symbol>& out) const;
  void merge_all(std::vector<Symbol>& word) const;

  Vocab vocab_;
  std::vector<Merge> merges_;
  BpeOptions options_;
  int32_t unk_id_ = -1;
  std::array<int32_t, 256> byte_fallback_id_{};  // "<0xNN>" ids, -1 where missing
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>, PairHash> ranks_;  // -> (rank, id)

  // Words repeat a lot ("Ġthe"), so results are cached by the piece's bytes.
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<Symbol>> cache_;
};

}  // namespace tfp
