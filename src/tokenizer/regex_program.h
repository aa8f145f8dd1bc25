// The compiled form of a Regex (internal to regex.cpp and regex_compile.cpp): the
// character classes and the instructions of the backtracking machine (run in regex.cpp).
//
//   kChar c       the next character is c (case-folded when flag is set)
//   kClass i      the next character is in classes[i]
//   kAny          any character but \n
//   kSplit x, y   try x; on failure come back and try y (the order is the preference)
//   kJmp x        continue at x
//   kLook x       run the sub-program at x here; continue when it matches (!= flag)
//   kBol kEol kBegin kEnd   anchors
//   kMatch        success
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"

namespace tfp {

namespace regex_detail {

inline char32_t fold(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  if (c == 0x17F) return U's';
  if (c == 0x212A) return U'k';
  std::u32string low;
  unicode::append_lower(c, low);
  return low.size() == 1 ? low[0] : c;
}

// One member of a character class.
struct ClassItem {
  enum Kind { Range, Space, Digit, Word, Category, Nested } kind = Range;
  char32_t lo = 0, hi = 0;
  bool negated = false;   // \S \D \W \P{..}
  std::string category;   // "L", "Lu", ...
  int nested = -1;        // index of a nested class
};

struct CharClass {
  bool negated = false, ci = false;
  std::vector<ClassItem> items;
  std::array<bool, 128> ascii{};  // precomputed answers for ASCII
};

inline bool category_is(char32_t c, const std::string& cat) {
  const std::string_view g = unicode::general_category(c);
  return cat.size() == 1 ? g[0] == cat[0] : g == cat;
}

inline bool is_word(char32_t c) { return unicode::is_oniguruma_word(c); }


enum Op : uint8_t { kChar, kClass, kAny, kSplit, kJmp, kMatch, kLook, kBol, kEol, kBegin, kEnd };

struct Inst {
  Op op;
  bool flag = false;  // kChar: case-insensitive; kLook: negative
  char32_t ch = 0;    // kChar (folded when case-insensitive)
  int32_t x = 0, y = 0;
};


}  // namespace regex_detail

struct Regex::Program {
  std::string pattern;
  std::vector<regex_detail::Inst> insts;
  std::vector<regex_detail::CharClass> classes;

  // Oniguruma gives up after 10M backtracking steps per match attempt; so do we, with an
  // error instead of a hung page on a pathological pattern such as (a|a)*b.
  static constexpr size_t kStepLimit = 10'000'000;

  bool class_has(const regex_detail::CharClass& k, char32_t c) const;  // with the ASCII table
  bool raw_has(const regex_detail::CharClass& k, char32_t c) const;    // from the items
  // Runs the machine from instruction `start_pc` at text position `start_pos`; on a match
  // sets `end` and returns true. `stack` is scratch space; `steps` counts backtracking.
  bool run(int32_t start_pc, std::u32string_view t, size_t start_pos, size_t& end,
           std::vector<std::pair<int32_t, uint32_t>>& stack, size_t& steps) const;
};

// Parses and compiles `pattern` into `prog` (regex_compile.cpp); throws tfp::Error naming
// an unsupported or malformed construct.
void compile_regex(Regex::Program& prog, std::u32string pattern);

}  // namespace tfp
