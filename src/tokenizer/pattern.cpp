// Literal and regex patterns of tokenizer.json. See pattern.h.
#include "tokenizer/pattern.h"

#include "tokenizer/unicode.h"

namespace tfp {

TextPattern TextPattern::literal(std::string text) {
  TextPattern p;
  p.literal_ = unicode::to_u32(text);
  p.source_ = std::move(text);
  return p;
}

TextPattern TextPattern::regex(std::string pattern) {
  TextPattern p;
  p.regex_ = std::make_shared<const Regex>(pattern);
  p.source_ = std::move(pattern);
  return p;
}

std::vector<std::pair<uint32_t, uint32_t>> TextPattern::find_all(std::u32string_view text) const {
  if (regex_) return regex_->find_all(text);
  std::vector<std::pair<uint32_t, uint32_t>> out;
  if (literal_.empty()) return out;
  for (size_t pos = 0; (pos = text.find(literal_, pos)) != std::u32string_view::npos; pos += literal_.size())
    out.emplace_back(static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + literal_.size()));
  return out;
}

std::string TextPattern::replace_all(const std::string& text, const std::string& content) const {
  if (!regex_) {  // bytes of a literal: no need to decode
    if (source_.empty()) return text;
    std::string out;
    size_t last = 0;
    for (size_t pos = 0; (pos = text.find(source_, pos)) != std::string::npos; last = pos += source_.size())
      out.append(text, last, pos - last).append(content);
    return out.append(text, last, std::string::npos);
  }
  const std::u32string cps = unicode::to_u32(unicode::utf8_lossy(text));
  std::u32string out;
  const std::u32string with = unicode::to_u32(content);
  size_t last = 0;
  for (const auto& [b, e] : regex_->find_all(cps)) {
    if (e == b) continue;
    out.append(cps, last, b - last).append(with);
    last = e;
  }
  out.append(cps, last, std::u32string::npos);
  return unicode::to_utf8(out);
}

}  // namespace tfp
