// Byte-level BPE: the byte <-> printable character map, the merge loop and the cache.
// See bpe.h for the algorithm in words.
#include "tokenizer/bpe.h"

#include <limits>

#include "core/error.h"
#include "tokenizer/unicode.h"

namespace tfp {

// ---- Vocab (shared by all models; it lives here to keep model.h header-only) ------

void Vocab::add(const std::string& token, int32_t id) {
  TFP_CHECK(id >= 0, "vocab: negative id ", id, " for token \"", token, "\"");
  to_id_[token] = id;
  if (static_cast<size_t>(id) >= by_id_.size()) by_id_.resize(static_cast<size_t>(id) + 1);
  by_id_[static_cast<size_t>(id)] = token;
}

std::optional<int32_t> Vocab::find(std::string_view token) const {
  auto it = to_id_.find(std::string(token));
  if (it == to_id_.end()) return std::nullopt;
  return it->second;
}

const std::string& Vocab::token(int32_t id) const {
  static const std::string empty;
  if (id < 0 || static_cast<size_t>(id) >= by_id_.size()) return empty;
  return by_id_[static_cast<size_t>(id)];
}

// ---- the byte map -------------------------------------------------------------------

const std::array<char32_t, 256>& byte_to_unicode() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    // Printable Latin-1 bytes keep their own character...
    auto keeps_itself = [](int b) {
      return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    // ...and the rest (controls, space, DEL, NBSP, soft hyphen) are moved past Latin-1,
    // to U+0100, U+0101, ... in byte order. So ' ' (0x20, the 33rd such byte) is U+0120.
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) t[static_cast<size_t>(b)] = keeps_itself(b) ? char32_t(b) : next++;
    return t;
  }();
  return table;
}

int byte_from_unicode(char32_t c) {
  static const std::unordered_map<char32_t, int> inverse = [] {
    std::unordered_map<char32_t, int> m;
    for (int b = 0; b < 256; ++b) m[byte_to_unicode()[static_cast<size_t>(b)]] = b;
    return m;
  }();
  auto it = inverse.find(c);
  return it == inverse.end() ? -1 : it->second;
}

std::string bytes_to_symbols(std::string_view bytes) {
  std::string out;
  for (unsigned char b : bytes) unicode::append_utf8(out, byte_to_unicode()[b]);
  return out;
}

// ---- the model ----------------------------------------------------------------------

BpeModel::BpeModel(Vocab vocab, std::vector<Merge> merges)
    : vocab_(std::move(vocab)), merges_(std::move(merges)) {
  for (int b = 0; b < 256; ++b) {
    std::string sym;
    unicode::append_utf8(sym, byte_to_unicode()[static_cast<size_t>(b)]);
    auto id = vocab_.find(sym);
    TFP_CHECK(id.has_value(), "bpe: vocab lacks the byte-level symbol \"", sym, "\" for byte ", b);
    byte_id_[static_cast<size_t>(b)] = *id;
  }
  for (size_t r = 0; r < merges_.size(); ++r) {
    const auto& [a, b] = merges_[r];
    auto ia = vocab_.find(a), ib = vocab_.find(b), im = vocab_.find(a + b);
    TFP_CHECK(ia && ib && im, "bpe: merge ", r, " (\"", a, "\", \"", b,
              "\") uses or makes a token that is not in the vocab");
    // A pair listed twice keeps its first (lowest) rank.
    ranks_.emplace(key(*ia, *ib), std::make_pair(static_cast<int32_t>(r), *im));
  }
}

std::pair<int32_t, int32_t> BpeModel::lookup(int32_t a, int32_t b) const {
  auto it = ranks_.find(key(a, b));
  return it == ranks_.end() ? std::make_pair(-1, -1) : it->second;
}

std::vector<int32_t> BpeModel::bpe_word(const std::vector<int32_t>& symbols) const {
  std::vector<int32_t> word = symbols;
  while (word.size() > 1) {
    // 1. Find the neighbouring pair with the lowest rank (equal ranks are equal pairs).
    int32_t best_rank = std::numeric_limits<int32_t>::max(), best_id = -1;
    int32_t first = -1, second = -1;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      auto [rank, merged] = lookup(word[i], word[i + 1]);
      if (rank >= 0 && rank < best_rank) {
        best_rank = rank;
        best_id = merged;
        first = word[i];
        second = word[i + 1];
      }
    }
    if (best_id < 0) break;  // no pair is a merge: done
    // 2. Merge every occurrence of (first, second), left to right, without overlap.
    std::vector<int32_t> next;
    next.reserve(word.size());
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == first && word[i + 1] == second) {
        next.push_back(best_id);
        i += 2;
      } else {
        next.push_back(word[i]);
        i += 1;
      }
    }
    word.swap(next);
  }
  return word;
}

void BpeModel::tokenize(std::string_view piece, std::vector<ModelToken>& out) const {
  if (piece.empty()) return;
  const std::string cache_key(piece);
  std::vector<int32_t> ids;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(cache_key);
    if (it != cache_.end()) ids = it->second;
  }
  if (ids.empty()) {
    std::vector<int32_t> symbols;
    symbols.reserve(piece.size());
    for (unsigned char b : piece) symbols.push_back(byte_id_[b]);
    ids = bpe_word(symbols);
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() > 200000) cache_.clear();  // bound memory on long inputs
    cache_.emplace(cache_key, ids);
  }
  // Each stand-in character is exactly one byte, so a token covers as many bytes as it
  // has characters.
  uint32_t pos = 0;
  for (int32_t id : ids) {
    uint32_t n = 0;
    for (unsigned char c : vocab_.token(id)) n += (c & 0xC0) != 0x80;  // count code points
    out.push_back({id, pos, pos + n});
    pos += n;
  }
}

nlohmann::json BpeModel::to_json() const {
  nlohmann::json vocab = nlohmann::json::object();
  for (const auto& [tok, id] : vocab_.map()) vocab[tok] = id;
  nlohmann::json merges = nlohmann::json::array();
  for (const auto& [a, b] : merges_) merges.push_back(a + " " + b);
  return {{"type", "BPE"},          {"dropout", nullptr},
          {"unk_token", nullptr},   {"continuing_subword_prefix", nullptr},
          {"end_of_word_suffix", nullptr}, {"fuse_unk", false},
          {"byte_fallback", false}, {"vocab", vocab},
          {"merges", merges}};
}

}  // namespace tfp
