// Pre-tokenisers: GPT-2's regex as a hand-written matcher, and BERT's whitespace +
// punctuation split. See pretokenize.h.
#include "tokenizer/pretokenize.h"

#include "tokenizer/unicode.h"

namespace tfp {

namespace {

// The GPT-2 pattern is an alternation tried left to right at each position; the FIRST
// alternative that matches wins (a regex alternation is ordered, not longest-match).
// Each matcher below returns the length it matches at `pos`, or 0 for no match.
class Gpt2Matcher {
 public:
  explicit Gpt2Matcher(std::u32string_view t) : t_(t) {}

  size_t match_at(size_t pos) const {
    if (size_t n = contraction(pos)) return n;
    if (size_t n = space_then_run(pos, &unicode::is_letter)) return n;
    if (size_t n = space_then_run(pos, &unicode::is_number)) return n;
    if (size_t n = space_then_run(pos, &is_other)) return n;
    return whitespace(pos);
  }

 private:
  // [^\s\p{L}\p{N}]: punctuation, symbols, marks, controls, unassigned...
  static bool is_other(char32_t c) {
    return !unicode::is_js_space(c) && !unicode::is_letter(c) && !unicode::is_number(c);
  }

  char32_t at(size_t i) const { return i < t_.size() ? t_[i] : 0; }

  // 's|'t|'re|'ve|'m|'ll|'d  — ASCII apostrophe, lower case only ("'S" is not one).
  size_t contraction(size_t pos) const {
    if (at(pos) != U'\'' || pos + 1 >= t_.size()) return 0;
    const char32_t a = at(pos + 1);
    if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
    const char32_t b = pos + 2 < t_.size() ? at(pos + 2) : 0;
    if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
    return 0;
  }

  // " ?X+": an optional U+0020 then one or more X. If the space is there but no X
  // follows, the regex backtracks to "no space", which fails too since ' ' is not X
  // (for all three classes used here), so one check after the space suffices.
  size_t space_then_run(size_t pos, bool (*is_x)(char32_t)) const {
    size_t i = pos;
    if (at(i) == U' ' && i < t_.size()) ++i;
    size_t j = i;
    while (j < t_.size() && is_x(t_[j])) ++j;
    return j > i ? j - pos : 0;
  }

  // \s+(?!\S) | \s+ : take the whole whitespace run, except that when a non-space
  // follows it, give back the last whitespace character (so " word" keeps its space
  // for the next piece). A run of one followed by a non-space falls to plain \s+.
  size_t whitespace(size_t pos) const {
    size_t j = pos;
    while (j < t_.size() && unicode::is_js_space(t_[j])) ++j;
    const size_t run = j - pos;
    if (run == 0) return 0;  // unreachable: every char is space, L, N or other
    if (j == t_.size() || run == 1) return run;
    return run - 1;
  }

  std::u32string_view t_;
};

}  // namespace

std::vector<PieceSpan> split_gpt2(std::u32string_view text) {
  std::vector<PieceSpan> pieces;
  const Gpt2Matcher m(text);
  for (size_t pos = 0; pos < text.size();) {
    size_t n = m.match_at(pos);
    if (n == 0) n = 1;  // defensive: never loop forever
    pieces.emplace_back(static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + n));
    pos += n;
  }
  return pieces;
}

std::vector<PieceSpan> split_bert(std::u32string_view text) {
  std::vector<PieceSpan> pieces;
  size_t start = 0;
  auto flush = [&](size_t end) {
    if (end > start) pieces.emplace_back(static_cast<uint32_t>(start), static_cast<uint32_t>(end));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (unicode::is_white_space(text[i])) {
      flush(i);
      start = i + 1;
    } else if (unicode::is_bert_punct(text[i])) {
      flush(i);
      pieces.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1));
      start = i + 1;
    }
  }
  flush(text.size());
  return pieces;
}

}  // namespace tfp
