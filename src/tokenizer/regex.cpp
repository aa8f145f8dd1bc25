// The regex matcher's public side: compile (regex_compile.cpp), then run the
// backtracking machine (regex_program.h) at each start position. Backtracking gives
// Oniguruma's leftmost-first semantics directly. See regex.h for the constructs.
#include "tokenizer/regex.h"

#include "tokenizer/regex_program.h"

namespace tfp {

using namespace regex_detail;

// ---- the machine ------------------------------------------------------------------

bool Regex::Program::class_has(const CharClass& k, char32_t c) const {
  if (c < 0x80) return k.ascii[c];
  bool in = raw_has(k, c) || (k.ci && fold(c) != c && raw_has(k, fold(c)));
  return in;
}

bool Regex::Program::raw_has(const CharClass& k, char32_t c) const {
  bool in = false;
  for (const ClassItem& it : k.items) {
    switch (it.kind) {
      case ClassItem::Range: in = c >= it.lo && c <= it.hi; break;
      case ClassItem::Space: in = unicode::is_white_space(c) != it.negated; break;
      case ClassItem::Digit: in = (unicode::general_category(c) == "Nd") != it.negated; break;
      case ClassItem::Word: in = is_word(c) != it.negated; break;
      case ClassItem::Category: in = category_is(c, it.category) != it.negated; break;
      case ClassItem::Nested: in = class_has(classes[static_cast<size_t>(it.nested)], c); break;
    }
    if (in) break;
  }
  return in != k.negated;
}

bool Regex::Program::run(int32_t start_pc, std::u32string_view t, size_t start_pos, size_t& end,
                         std::vector<std::pair<int32_t, uint32_t>>& stack, size_t& steps) const {
  const size_t base = stack.size();
  stack.emplace_back(start_pc, static_cast<uint32_t>(start_pos));
  while (stack.size() > base) {
    auto [pc, p] = stack.back();
    stack.pop_back();
    size_t pos = p;
    TFP_CHECK(++steps < kStepLimit, "regex /", pattern, "/: more than ", kStepLimit,
              " backtracking steps at text position ", start_pos, " (a pattern that backtracks exponentially?)");
    for (bool alive = true; alive;) {
      const Inst& in = insts[static_cast<size_t>(pc)];
      switch (in.op) {
        case kChar:
          alive = pos < t.size() && (t[pos] == in.ch || (in.flag && fold(t[pos]) == in.ch));
          ++pc, ++pos;
          break;
        case kClass:
          alive = pos < t.size() && class_has(classes[static_cast<size_t>(in.x)], t[pos]);
          ++pc, ++pos;
          break;
        case kAny:
          alive = pos < t.size() && t[pos] != U'\n';
          ++pc, ++pos;
          break;
        case kSplit:
          stack.emplace_back(in.y, static_cast<uint32_t>(pos));
          pc = in.x;
          break;
        case kJmp: pc = in.x; break;
        case kMatch:
          end = pos;
          stack.resize(base);
          return true;
        case kLook: {
          size_t ignored = 0;
          alive = run(in.x, t, pos, ignored, stack, steps) != in.flag;
          ++pc;
          break;
        }
        case kBol: alive = pos == 0 || t[pos - 1] == U'\n'; ++pc; break;
        case kEol: alive = pos == t.size() || t[pos] == U'\n'; ++pc; break;
        case kBegin: alive = pos == 0; ++pc; break;
        case kEnd: alive = pos == t.size(); ++pc; break;
      }
    }
  }
  return false;
}

// ---- the public side ---------------------------------------------------------------

Regex::Regex(std::string_view pattern) : prog_(std::make_unique<Program>()) {
  prog_->pattern = std::string(pattern);
  std::u32string cps;
  try {
    cps = unicode::to_u32(pattern);
  } catch (const Error& e) {
    TFP_FAIL("regex: the pattern is not valid UTF-8 (", e.what(), ")");
  }
  compile_regex(*prog_, std::move(cps));
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

const std::string& Regex::pattern() const { return prog_->pattern; }

bool Regex::search(std::u32string_view text, size_t from, size_t& begin, size_t& end) const {
  std::vector<std::pair<int32_t, uint32_t>> stack;
  for (size_t s = from; s <= text.size(); ++s) {
    size_t steps = 0;
    if (prog_->run(0, text, s, end, stack, steps)) {
      begin = s;
      return true;
    }
  }
  return false;
}

std::vector<std::pair<uint32_t, uint32_t>> Regex::find_all(std::u32string_view text) const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  std::vector<std::pair<int32_t, uint32_t>> stack;
  stack.reserve(64);
  size_t s = 0;
  while (s <= text.size()) {
    size_t end = 0, steps = 0;
    if (prog_->run(0, text, s, end, stack, steps)) {
      out.emplace_back(static_cast<uint32_t>(s), static_cast<uint32_t>(end));
      s = end > s ? end : s + 1;
    } else {
      ++s;
    }
  }
  return out;
}

}  // namespace tfp
