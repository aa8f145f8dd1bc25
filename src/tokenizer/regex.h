// A small backtracking regex matcher for the patterns tokenizer.json files use
// (Split pre-tokenizers, Replace normalizers/decoders, ByteLevel's GPT-2 pattern), with
// the semantics of Oniguruma, the engine Hugging Face tokenizers uses:
//   - leftmost-first: alternatives are tried left to right, quantifiers are greedy
//     (or lazy with a trailing ?), the first overall match found wins;
//   - code points, not bytes: `.` and classes consume one Unicode character.
//
// Supported constructs (anything else is a tfp::Error naming the construct and its
// position in the pattern):
//   literals, escaped punctuation, \t \n \r \f \v \e \a \0 \xHH \x{H..} \uHHHH
//   classes [...] [^...] with ranges, escapes and nested classes ([a[bc]] is a union)
//   \s \S  White_Space              \d \D  Nd
//   \w \W  Alphabetic M Nd Pc (+ ²³¹¼½¾)  \p{L} \p{Lu} \p{N} \P{..} \pL  general categories (Unicode 16.0)
//   .      any character except \n
//   groups ( ) (?: ) (?i: ) (?-i: ), inline (?i) to the end of the group
//   lookahead (?= ) (?! )
//   quantifiers * + ? {n} {n,} {n,m}, each optionally lazy (?)
//   anchors ^ $ (at the text's ends or next to \n), \A \z
// Not supported (named in the error): lookbehind, backreferences, named groups,
// possessive quantifiers, atomic groups, \b \B, \G, \K, \X, \R, class intersection &&,
// other inline flags, a repeated part that can match the empty string.
//
// Case-insensitive matching (?i) compares simple lowercase forms (unicode::append_lower)
// plus the two folds Unicode adds for ASCII letters: U+017F (long s) ~ s and U+212A
// (Kelvin sign) ~ k.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfp {

class Regex {
 public:
  // Throws tfp::Error "regex /PATTERN/: <construct> at position N is not supported".
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // The leftmost match that starts at or after `from`: true and [begin, end) in code
  // point indices, or false.
  bool search(std::u32string_view text, size_t from, size_t& begin, size_t& end) const;

  // All non-overlapping matches left to right, as a find_iter does (after an empty match
  // the search resumes one character later; empty matches are returned too).
  std::vector<std::pair<uint32_t, uint32_t>> find_all(std::u32string_view text) const;

  const std::string& pattern() const;

  struct Program;  // compiled form (regex.cpp)

 private:
  std::unique_ptr<Program> prog_;
};

}  // namespace tfp
