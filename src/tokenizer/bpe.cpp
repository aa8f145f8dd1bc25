// Byte-level BPE: the byte <-> printable character map, the merge loop and the cache.
// See bpe.h for the algorithm in words.
#include "tokenizer/bpe.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <queue>

#include "core/error.h"
#include "io/json_excerpt.h"
#include "tokenizer/unicode.h"

namespace tfp {

// ---- Vocab (shared by all models; it lives here to keep model.h header-only) ------

void Vocab::add(const std::string& token, int32_t id) {
  TFP_CHECK(id >= 0, "vocab: negative id ", id, " for token \"", io::text_excerpt(token), "\"");
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

BpeModel::BpeModel(Vocab vocab, std::vector<Merge> merges, BpeOptions options)
    : vocab_(std::move(vocab)), merges_(std::move(merges)), options_(std::move(options)) {
  if (!options_.unk_token.empty()) {
    auto id = vocab_.find(options_.unk_token);
    TFP_CHECK(id.has_value(), "bpe: unk_token \"", io::text_excerpt(options_.unk_token), "\" is not in the vocab");
    unk_id_ = *id;
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    auto id = vocab_.find(name);
    byte_fallback_id_[static_cast<size_t>(b)] = id ? *id : -1;
  }
  TFP_CHECK(!options_.byte_fallback ||
                (options_.continuing_subword_prefix.empty() && options_.end_of_word_suffix.empty()),
            "bpe: byte_fallback together with continuing_subword_prefix or end_of_word_suffix is not supported");
  const std::string& prefix = options_.continuing_subword_prefix;
  for (size_t r = 0; r < merges_.size(); ++r) {
    const auto& [a, b] = merges_[r];
    // HF: the merged token is a + b without b's continuing-subword prefix.
    const std::string merged = a + (!prefix.empty() && b.starts_with(prefix) ? b.substr(prefix.size()) : b);
    auto ia = vocab_.find(a), ib = vocab_.find(b), im = vocab_.find(merged);
    TFP_CHECK(ia && ib && im, "bpe: merge ", r, " (\"", io::text_excerpt(a), "\", \"", io::text_excerpt(b),
              "\") uses or makes a token that is not in the vocab");
    ranks_[key(*ia, *ib)] = std::make_pair(static_cast<int32_t>(r), *im);  // last listing wins, as in HF
  }
}

std::pair<int32_t, int32_t> BpeModel::lookup(int32_t a, int32_t b) const {
  auto it = ranks_.find(key(a, b));
  return it == ranks_.end() ? std::make_pair(-1, -1) : it->second;
}

void BpeModel::initial_symbols(std::string_view w, std::vector<Symbol>& word) const {
  std::string s;
  int32_t unk_len = -1;  // pending unk symbol (fused over consecutive unknown characters)
  auto flush_unk = [&] {
    if (unk_len >= 0) word.push_back({unk_id_, static_cast<uint32_t>(unk_len)});
    unk_len = -1;
  };
  for (size_t i = 0; i < w.size();) {
    size_t n = 1;
    const auto lead = static_cast<unsigned char>(w[i]);
    if (lead >= 0xF0) n = 4;
    else if (lead >= 0xE0) n = 3;
    else if (lead >= 0xC0) n = 2;
    n = std::min(n, w.size() - i);
    s.assign(w.substr(i, n));
    if (i != 0) s.insert(0, options_.continuing_subword_prefix);
    if (i + n == w.size()) s += options_.end_of_word_suffix;
    if (auto id = vocab_.find(s)) {
      flush_unk();
      word.push_back({*id, static_cast<uint32_t>(n)});
    } else {
      bool done = false;
      if (options_.byte_fallback) {
        done = true;
        for (unsigned char b : s) done = done && byte_fallback_id_[b] >= 0;
        if (done) {
          // One byte each (the constructor refuses a prefix or suffix with byte_fallback,
          // so `s` is exactly the character's bytes).
          for (unsigned char b : s) word.push_back({byte_fallback_id_[b], 1});
        }
      }
      if (!done && unk_id_ >= 0) {
        if (unk_len >= 0 && options_.fuse_unk) {
          unk_len += static_cast<int32_t>(n);
        } else {
          flush_unk();
          unk_len = static_cast<int32_t>(n);
        }
      }
    }
    i += n;
  }
  flush_unk();
}

void BpeModel::merge_all(std::vector<Symbol>& word) const {
  if (word.size() < 2) return;
  // Linked list over `word`; merged-away symbols get len 0.
  const auto n = static_cast<int32_t>(word.size());
  std::vector<int32_t> prev(word.size()), next(word.size());
  for (int32_t i = 0; i < n; ++i) prev[static_cast<size_t>(i)] = i - 1, next[static_cast<size_t>(i)] = i + 1 < n ? i + 1 : -1;
  struct Entry {
    int32_t rank, pos, new_id;
    bool operator>(const Entry& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (int32_t i = 0; i + 1 < n; ++i) {
    auto [rank, id] = lookup(word[static_cast<size_t>(i)].id, word[static_cast<size_t>(i) + 1].id);
    if (rank >= 0) queue.push({rank, i, id});
  }
  while (!queue.empty()) {
    const Entry top = queue.top();
    queue.pop();
    const auto pos = static_cast<size_t>(top.pos);
    if (word[pos].len == 0 || next[pos] < 0) continue;
    const auto right = static_cast<size_t>(next[pos]);
    // A stale entry: the pair at pos changed since it was queued.
    if (lookup(word[pos].id, word[right].id).second != top.new_id) continue;
    word[pos].id = top.new_id;
    word[pos].len += word[right].len;
    word[right].len = 0;
    next[pos] = next[right];
    if (next[right] >= 0) prev[static_cast<size_t>(next[right])] = top.pos;
    if (prev[pos] >= 0) {
      auto [rank, id] = lookup(word[static_cast<size_t>(prev[pos])].id, word[pos].id);
      if (rank >= 0) queue.push({rank, prev[pos], id});
    }
    if (next[pos] >= 0) {
      auto [rank, id] = lookup(word[pos].id, word[static_cast<size_t>(next[pos])].id);
      if (rank >= 0) queue.push({rank, top.pos, id});
    }
  }
  std::erase_if(word, [](const Symbol& s) { return s.len == 0; });
}

void BpeModel::tokenize(std::string_view piece, std::vector<ModelToken>& out) const {
  if (piece.empty()) return;
  if (options_.ignore_merges) {
    if (auto id = vocab_.find(piece)) {
      out.push_back({*id, 0, static_cast<uint32_t>(piece.size())});
      return;
    }
  }
  // Words repeat a lot ("Ġthe"), so short pieces' results are cached.
  constexpr size_t kMaxCachedPiece = 256;
  std::vector<Symbol> word;
  bool cached = false;
  if (piece.size() <= kMaxCachedPiece) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(std::string(piece));
    if (it != cache_.end()) word = it->second, cached = true;
  }
  if (!cached) {
    word.reserve(piece.size());
    initial_symbols(piece, word);
    merge_all(word);
    if (piece.size() <= kMaxCachedPiece) {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      if (cache_.size() > 200000) cache_.clear();  // bound memory on long inputs
      cache_.emplace(std::string(piece), word);
    }
  }
  uint32_t pos = 0;
  for (const Symbol& s : word) {
    out.push_back({s.id, pos, pos + s.len});
    pos += s.len;
  }
}

nlohmann::json BpeModel::to_json() const {
  nlohmann::json vocab = nlohmann::json::object();
  for (const auto& [tok, id] : vocab_.map()) vocab[tok] = id;
  nlohmann::json merges = nlohmann::json::array();
  // "a b" as older files write it; a pair when a token itself holds a space.
  for (const auto& [a, b] : merges_) {
    if (a.find(' ') == std::string::npos && b.find(' ') == std::string::npos) merges.push_back(a + " " + b);
    else merges.push_back(nlohmann::json::array({a, b}));
  }
  auto opt_str = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", opt_str(options_.unk_token)},
          {"continuing_subword_prefix", opt_str(options_.continuing_subword_prefix)},
          {"end_of_word_suffix", opt_str(options_.end_of_word_suffix)},
          {"fuse_unk", options_.fuse_unk},
          {"byte_fallback", options_.byte_fallback},
          {"ignore_merges", options_.ignore_merges},
          {"vocab", vocab},
          {"merges", merges}};
}

}  // namespace tfp
