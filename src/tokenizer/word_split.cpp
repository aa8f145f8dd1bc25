// The words fallback for models without a vocabulary (see word_split.h).
#include "tokenizer/word_split.h"

#include <string>
#include <unordered_map>

#include "tokenizer/unicode.h"

namespace tfp {

Encoding encode_words(std::string_view text) {
  const std::vector<unicode::DecodedChar> chars = unicode::decode_utf8(text);  // may throw
  Encoding enc;
  std::unordered_map<std::string, int32_t> first_seen;  // token text → its id
  // UTF-16 position of every char, so both offset kinds come out of one walk.
  std::vector<uint32_t> utf16(chars.size() + 1, 0);
  for (size_t i = 0; i < chars.size(); ++i) utf16[i + 1] = utf16[i] + unicode::utf16_units(chars[i].cp);

  auto emit = [&](size_t first, size_t last) {  // chars [first, last)
    if (first >= last) return;
    const uint32_t b = chars[first].begin, e = chars[last - 1].end;
    std::string tok(text.substr(b, e - b));
    const auto [it, fresh] = first_seen.emplace(tok, static_cast<int32_t>(first_seen.size()));
    enc.ids.push_back(it->second);
    enc.tokens.push_back(std::move(tok));
    enc.offsets.push_back({b, e});
    enc.offsets_utf16.push_back({utf16[first], utf16[last]});
    enc.special_mask.push_back(0);
  };
  size_t start = 0;
  for (size_t i = 0; i < chars.size(); ++i) {
    const char32_t c = chars[i].cp;
    if (unicode::is_white_space(c)) {
      emit(start, i);
      start = i + 1;
    } else if (unicode::is_bert_punct(c) || unicode::is_cjk(c)) {
      emit(start, i);
      emit(i, i + 1);  // alone
      start = i + 1;
    }
  }
  emit(start, chars.size());
  return enc;
}

}  // namespace tfp
