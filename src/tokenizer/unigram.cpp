// Unigram: Viterbi over a byte trie of the vocab. See unigram.h.
#include "tokenizer/unigram.h"

#include <cstdio>
#include <limits>

#include "core/error.h"

namespace tfp {

UnigramModel::UnigramModel(std::vector<std::pair<std::string, double>> pieces, int32_t unk_id, bool byte_fallback)
    : pieces_(std::move(pieces)), unk_id_(unk_id), byte_fallback_(byte_fallback) {
  TFP_CHECK(unk_id_ < 0 || static_cast<size_t>(unk_id_) < pieces_.size(), "unigram: unk_id ", unk_id_,
            " is outside the vocab (", pieces_.size(), " pieces)");
  min_score_ = std::numeric_limits<double>::infinity();
  terminal_.push_back(-1);  // the root
  for (size_t id = 0; id < pieces_.size(); ++id) {
    const auto& [tok, score] = pieces_[id];
    vocab_.add(tok, static_cast<int32_t>(id));
    min_score_ = std::min(min_score_, score);
    int32_t node = 0;
    for (unsigned char b : tok) {
      const uint64_t k = (static_cast<uint64_t>(node) << 8) | b;
      auto it = edges_.find(k);
      if (it == edges_.end()) {
        it = edges_.emplace(k, static_cast<int32_t>(terminal_.size())).first;
        terminal_.push_back(-1);
      }
      node = it->second;
    }
    // HF's token_to_ids map keeps the LAST id of a duplicated piece.
    if (!tok.empty()) terminal_[static_cast<size_t>(node)] = static_cast<int32_t>(id);
  }
}

void UnigramModel::tokenize(std::string_view text, std::vector<ModelToken>& out) const {
  if (text.empty()) return;
  constexpr double kUnkPenalty = 10.0;
  const double unk_score = min_score_ - kUnkPenalty;
  struct Best {
    int32_t id = -1;
    double score = 0;
    int64_t starts_at = -1;  // -1: not reached yet
  };
  const size_t n = text.size();
  std::vector<Best> best(n + 1);
  for (size_t s = 0; s < n;) {
    const double here = best[s].score;
    const auto lead = static_cast<unsigned char>(text[s]);
    const size_t mblen = std::min<size_t>(lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1, n - s);
    bool has_single = false;
    int32_t node = 0;
    for (size_t e = s; e < n; ++e) {
      auto it = edges_.find((static_cast<uint64_t>(node) << 8) | static_cast<unsigned char>(text[e]));
      if (it == edges_.end()) break;
      node = it->second;
      const int32_t id = terminal_[static_cast<size_t>(node)];
      if (id < 0) continue;
      Best& target = best[e + 1];
      const double cand = pieces_[static_cast<size_t>(id)].second + here;
      if (target.starts_at < 0 || cand > target.score) target = {id, cand, static_cast<int64_t>(s)};
      if (e + 1 - s == mblen) has_single = true;
    }
    if (!has_single) {
      TFP_CHECK(unk_id_ >= 0, "unigram: \"", text.substr(s, mblen), "\" is not in the vocab and there is no unk_id");
      Best& target = best[s + mblen];
      const double cand = unk_score + here;
      if (target.starts_at < 0 || cand > target.score) target = {unk_id_, cand, static_cast<int64_t>(s)};
    }
    s += mblen;
  }
  // Walk back from the end; fuse consecutive unknowns.
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // [begin, end), reversed order
  std::vector<int32_t> ids;
  for (size_t e = n; e > 0;) {
    const Best& b = best[e];
    const auto s = static_cast<size_t>(b.starts_at);
    if (b.id == unk_id_ && !ids.empty() && ids.back() == unk_id_ && spans.back().first == e) {
      spans.back().first = static_cast<uint32_t>(s);
    } else {
      spans.emplace_back(static_cast<uint32_t>(s), static_cast<uint32_t>(e));
      ids.push_back(b.id);
    }
    e = s;
  }
  for (size_t i = spans.size(); i-- > 0;) {
    const auto [b, e] = spans[i];
    int32_t id = ids[i];
    if (id == unk_id_) {
      // The fused text may itself be a vocab piece (HF looks the string up again).
      if (auto found = vocab_.find(text.substr(b, e - b))) id = *found;
    }
    if (id == unk_id_ && byte_fallback_) {
      std::vector<int32_t> bytes;
      char name[8];
      for (size_t k = b; k < e; ++k) {
        std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned char>(text[k]));
        auto bid = vocab_.find(name);
        if (!bid) break;
        bytes.push_back(*bid);
      }
      if (bytes.size() == e - b) {
        for (int32_t bid : bytes) out.push_back({bid, b, e});
        continue;
      }
    }
    out.push_back({id, b, e});
  }
}

nlohmann::json UnigramModel::to_json() const {
  nlohmann::json vocab = nlohmann::json::array();
  for (const auto& [tok, score] : pieces_) vocab.push_back({tok, score});
  return {{"type", "Unigram"},
          {"unk_id", unk_id_ >= 0 ? nlohmann::json(unk_id_) : nlohmann::json(nullptr)},
          {"vocab", vocab},
          {"byte_fallback", byte_fallback_}};
}

}  // namespace tfp
