// The regex matcher of tokenizer.json patterns (src/tokenizer/regex.h).
//
// Oracle: Oniguruma's leftmost-first semantics, worked by hand on each input; the
// derivation is in the comment beside each expectation. Spans are code point indices.
#include <doctest/doctest.h>

#include "core/error.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"

using namespace tfp;
using Spans = std::vector<std::pair<uint32_t, uint32_t>>;

namespace {

Spans find(const char* pattern, const char* text) { return Regex(pattern).find_all(unicode::to_u32(text)); }

}  // namespace

TEST_CASE("tokenizer regex: alternation is ordered, quantifiers greedy or lazy") {
  // "a|ab" on "ab": the first alternative wins although the second is longer.
  CHECK(find("a|ab", "ab") == Spans{{0, 1}});
  // Greedy a+ takes the whole run; lazy a+? one character at a time.
  CHECK(find("a+", "aaa") == Spans{{0, 3}});
  CHECK(find("a+?", "aaa") == Spans{{0, 1}, {1, 2}, {2, 3}});
  // \p{N}{1,3}: runs of up to three digits (Llama 3's number rule): 12345 -> 123 | 45.
  CHECK(find("\\p{N}{1,3}", "12345") == Spans{{0, 3}, {3, 5}});
  // x{2,} and x? ; an unmatched { is a literal.
  CHECK(find("x{2,}", "x xx xxx") == Spans{{2, 4}, {5, 8}});
  CHECK(find("ab?c", "ac abc") == Spans{{0, 2}, {3, 6}});
  CHECK(find("a{", "a{") == Spans{{0, 2}});
}

TEST_CASE("tokenizer regex: classes, categories and case-insensitive groups") {
  // \p{L}+ over accented and non-Latin letters; the space and '!' are not letters.
  CHECK(find("\\p{L}+", "héllo wörld!") == Spans{{0, 5}, {6, 11}});
  // \p{Lu}: only the capitals.
  CHECK(find("\\p{Lu}", "aBcÉ") == Spans{{1, 2}, {3, 4}});
  // [^\s\p{L}\p{N}]+: punctuation runs; " ?" takes one leading space.
  CHECK(find(" ?[^\\s\\p{L}\\p{N}]+", "a ... b!?") == Spans{{1, 5}, {7, 9}});
  // (?i:'s|'t): "'S" and "'t" match; "'x" does not.
  CHECK(find("(?i:'s|'t)", "'S 't 'x") == Spans{{0, 2}, {3, 5}});
  // Outside the group case matters again.
  CHECK(find("(?i:a)b", "AB Ab") == Spans{{3, 5}});
  // Nested class (BLOOM's pattern): [^(\s|[.,!?])] excludes '(' '|' ')' whitespace and .,!?
  // "hi, you(x)": "hi", then " you" (the optional space), then "x".
  CHECK(find(" ?[^(\\s|[.,!?])]+", "hi, you(x)") == Spans{{0, 2}, {3, 7}, {8, 9}});
  // Ranges and escapes inside classes; \d is Nd only.
  CHECK(find("[a-c\\-]+", "abz-c") == Spans{{0, 2}, {3, 5}});
  CHECK(find("\\d+", "x٣4½") == Spans{{1, 3}});
  // \x{..} and \u escapes.
  CHECK(find("\\x{263A}|\\u00e9", "☺é") == Spans{{0, 1}, {1, 2}});
}

TEST_CASE("tokenizer regex: lookahead and the whitespace rule of GPT-2 style patterns") {
  // \s+(?!\S)|\s+ on "a   b": at 1 the greedy run "   " is followed by 'b', so it backs
  // off to "  " (then the lookahead sees ' '); the last space goes with the next match.
  CHECK(find("\\s+(?!\\S)|\\s+", "a   b") == Spans{{1, 3}, {3, 4}});
  // At the end of the text the whole run matches.
  CHECK(find("\\s+(?!\\S)", "a  ") == Spans{{1, 3}});
  // Positive lookahead.
  CHECK(find("a(?=b)", "ab ac") == Spans{{0, 1}});
  // Anchors.
  CHECK(find("^a", "aa\na") == Spans{{0, 1}, {3, 4}});
  CHECK(find("a$", "aa\na") == Spans{{1, 2}, {3, 4}});
}

TEST_CASE("tokenizer regex: unsupported or malformed constructs are named") {
  using doctest::Contains;
  CHECK_THROWS_WITH_AS(Regex("(?<=a)b"), Contains("lookbehind (?< at position"), Error);
  CHECK_THROWS_WITH_AS(Regex("(a)\\1"), Contains("a backreference at position 4 is not supported"), Error);
  CHECK_THROWS_WITH_AS(Regex("\\bword"), Contains("the word boundary \\b"), Error);
  CHECK_THROWS_WITH_AS(Regex("a++"), Contains("a possessive quantifier"), Error);
  CHECK_THROWS_WITH_AS(Regex("(a*)*"), Contains("a repeated part that can match the empty string"), Error);
  CHECK_THROWS_WITH_AS(Regex("\\p{Han}"), Contains("the property \\p{Han}"), Error);
  CHECK_THROWS_WITH_AS(Regex("(?<name>a)"), Contains("a named group"), Error);
  CHECK_THROWS_WITH_AS(Regex("[a&&b]"), Contains("class intersection &&"), Error);
  CHECK_THROWS_WITH_AS(Regex("[abc"), Contains("regex /[abc/: missing ]"), Error);
  CHECK_THROWS_WITH_AS(Regex("(ab"), Contains("missing )"), Error);
  CHECK_THROWS_WITH_AS(Regex("ab)"), Contains("unbalanced )"), Error);
  CHECK_THROWS_WITH_AS(Regex("*a"), Contains("a quantifier with nothing before it"), Error);
  CHECK_THROWS_WITH_AS(Regex("a{3,1}"), Contains("a {n,m} with m < n"), Error);
  // Exponential backtracking: (a|a)* before a missing b tries 2^n ways; it stops with an error.
  CHECK_THROWS_WITH_AS(Regex("(a|a)*b").find_all(std::u32string(40, U'a')), Contains("backtracking steps"), Error);
}
