// SentencePiece's precompiled charsmap: double-array trie lookup and the grapheme-first
// normalisation. See precompiled.h.
#include "tokenizer/precompiled.h"

#include "core/error.h"
#include "tokenizer/grapheme.h"
#include "tokenizer/unicode.h"

namespace tfp {

std::string base64_decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '=') break;
    const int v = value(c);
    TFP_CHECK(v >= 0, "base64: invalid character at position ", i);
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view blob) {
  auto u32_at = [&](size_t pos) {
    return static_cast<uint32_t>(static_cast<unsigned char>(blob[pos])) |
           static_cast<uint32_t>(static_cast<unsigned char>(blob[pos + 1])) << 8 |
           static_cast<uint32_t>(static_cast<unsigned char>(blob[pos + 2])) << 16 |
           static_cast<uint32_t>(static_cast<unsigned char>(blob[pos + 3])) << 24;
  };
  TFP_CHECK(blob.size() >= 4, "precompiled charsmap: ", blob.size(), " bytes is too short for its header");
  const uint32_t trie_size = u32_at(0);
  TFP_CHECK(trie_size % 4 == 0 && trie_size <= blob.size() - 4, "precompiled charsmap: trie size ", trie_size,
            " does not fit the ", blob.size(), "-byte blob");
  units_.resize(trie_size / 4);
  for (size_t i = 0; i < units_.size(); ++i) units_[i] = u32_at(4 + 4 * i);
  pool_ = std::string(blob.substr(4 + trie_size));
  TFP_CHECK(unicode::utf8_lossy(pool_) == pool_, "precompiled charsmap: the replacement strings are not valid UTF-8");
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view chunk) const {
  auto offset = [](uint32_t u) -> size_t { return (u >> 10) << ((u & (1u << 9)) >> 6); };
  if (units_.empty()) return std::nullopt;
  size_t pos = offset(units_[0]);
  for (unsigned char c : chunk) {
    if (c == 0) break;
    pos ^= c;
    if (pos >= units_.size()) return std::nullopt;
    const uint32_t unit = units_[pos];
    if ((unit & ((1u << 31) | 0xFF)) != c) return std::nullopt;  // label mismatch: no such key
    pos ^= offset(unit);
    if ((unit >> 8) & 1) {  // has a leaf: the first (shortest) key found
      if (pos >= units_.size()) return std::nullopt;
      const size_t at = units_[pos] & 0x7FFFFFFFu;
      if (at >= pool_.size()) return std::nullopt;
      const size_t end = pool_.find('\0', at);
      return std::string_view(pool_).substr(at, (end == std::string::npos ? pool_.size() : end) - at);
    }
  }
  return std::nullopt;
}

namespace {

class PrecompiledNormalizer : public Normalizer {
 public:
  explicit PrecompiledNormalizer(std::string_view blob) : map_(blob) {}

  void normalize(NormalizedText& t) const override {
    NormalizedText out;
    out.cps.reserve(t.cps.size());
    std::string bytes;
    bool modified = false;
    // The characters [b, e) become `with`, spread over their origin span.
    auto put = [&](size_t b, size_t e, std::string_view with) {
      const std::u32string cps = unicode::to_u32(with);
      if (cps.empty() && !out.origin_last.empty())
        out.origin_last.back() = std::max(out.origin_last.back(), t.origin_last[e - 1]);
      for (char32_t c : cps) {
        out.cps.push_back(c);
        out.origin.push_back(t.origin[b]);
        out.origin_last.push_back(t.origin_last[e - 1]);
      }
    };
    for (size_t i = 0; i < t.cps.size();) {
      const size_t end = grapheme_end(t.cps, i);
      bytes = unicode::to_utf8(std::u32string_view(t.cps).substr(i, end - i));
      if (bytes.size() < 6) {
        if (auto norm = map_.transform(bytes)) {
          put(i, end, *norm);
          modified = true;
          i = end;
          continue;
        }
      }
      for (size_t k = i; k < end; ++k) {
        bytes.clear();
        unicode::append_utf8(bytes, t.cps[k]);
        if (auto norm = map_.transform(bytes)) {
          put(k, k + 1, *norm);
          modified = true;
        } else {
          out.cps.push_back(t.cps[k]);
          out.origin.push_back(t.origin[k]);
          out.origin_last.push_back(t.origin_last[k]);
        }
      }
      i = end;
    }
    if (modified) t = std::move(out);
  }

 private:
  PrecompiledCharsmap map_;
};

}  // namespace

NormalizerPtr make_precompiled_normalizer(std::string_view blob) {
  return std::make_shared<PrecompiledNormalizer>(blob);
}

}  // namespace tfp
