// The "pattern" of tokenizer.json's Split, Replace (normalizer and decoder):
//   {"String": "▁"}   a literal, matched as is (non-overlapping, left to right)
//   {"Regex": "..."}  a regex (regex.h)
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/regex.h"

namespace tfp {

class TextPattern {
 public:
  static TextPattern literal(std::string text);  // throws on invalid UTF-8
  static TextPattern regex(std::string pattern);  // throws naming an unsupported construct

  // Non-overlapping matches [begin, end) in code points, left to right. A literal ""
  // never matches.
  std::vector<std::pair<uint32_t, uint32_t>> find_all(std::u32string_view text) const;
  // Replace every match in UTF-8 `text` by `content` (the Replace decoder).
  std::string replace_all(const std::string& text, const std::string& content) const;

  bool is_regex() const { return regex_ != nullptr; }
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::u32string literal_;
  std::shared_ptr<const Regex> regex_;
};

}  // namespace tfp
