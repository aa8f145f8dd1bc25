// Leftmost-longest added-token matching with HF's single_word / lstrip / rstrip rules.
// See added_tokens.h.
#include "tokenizer/added_tokens.h"

#include "tokenizer/unicode.h"

namespace tfp {

namespace {

// \w as the regex crate (HF's STARTS_WITH_WORD / ENDS_WITH_WORD) defines it.
bool is_word_char(char32_t c) { return unicode::is_regex_crate_word(c); }

}  // namespace

void AddedTokenMatcher::add(const std::u32string& content, int32_t token, AddedTokenRules rules) {
  if (content.empty()) return;
  int32_t node = 0;
  for (char32_t c : content) {
    const uint64_t k = (static_cast<uint64_t>(node) << 21) | c;
    auto it = edges_.find(k);
    if (it == edges_.end()) {
      it = edges_.emplace(k, static_cast<int32_t>(terminal_.size())).first;
      terminal_.push_back(-1);
    }
    node = it->second;
  }
  if (terminal_[static_cast<size_t>(node)] < 0) {
    terminal_[static_cast<size_t>(node)] = static_cast<int32_t>(rules_.size());
    rules_.push_back(rules);
    tokens_.push_back(token);
  } else {  // the same content twice: the later entry wins
    rules_[static_cast<size_t>(terminal_[static_cast<size_t>(node)])] = rules;
    tokens_[static_cast<size_t>(terminal_[static_cast<size_t>(node)])] = token;
  }
}

std::vector<AddedTokenMatcher::Match> AddedTokenMatcher::find(std::u32string_view text) const {
  std::vector<Match> out;
  if (rules_.empty()) return out;
  size_t previous_end = 0;
  for (size_t s = 0; s < text.size();) {
    // Longest token starting at s.
    int32_t node = 0, hit = -1;
    size_t hit_end = 0;
    for (size_t e = s; e < text.size(); ++e) {
      auto it = edges_.find((static_cast<uint64_t>(node) << 21) | text[e]);
      if (it == edges_.end()) break;
      node = it->second;
      if (terminal_[static_cast<size_t>(node)] >= 0) hit = terminal_[static_cast<size_t>(node)], hit_end = e + 1;
    }
    if (hit < 0) {
      ++s;
      continue;
    }
    const AddedTokenRules& r = rules_[static_cast<size_t>(hit)];
    size_t b = s, e = hit_end;
    if (r.single_word && ((b > 0 && is_word_char(text[b - 1])) || (e < text.size() && is_word_char(text[e])))) {
      s = hit_end;  // skipped whole
      continue;
    }
    if (r.lstrip)
      while (b > previous_end && unicode::is_white_space(text[b - 1])) --b;
    if (r.rstrip)
      while (e < text.size() && unicode::is_white_space(text[e])) ++e;
    out.push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e), tokens_[static_cast<size_t>(hit)]});
    previous_end = e;
    s = e;
  }
  return out;
}

}  // namespace tfp
