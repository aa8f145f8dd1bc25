// Approximate extended grapheme clusters. See grapheme.h.
#include "tokenizer/grapheme.h"

#include "tokenizer/unicode.h"

namespace tfp {

namespace {

enum class Kind { Other, CR, LF, Control, Extend, ZWJ, RI, SpacingMark, L, V, T, LV, LVT };

Kind kind(char32_t c) {
  if (c == U'\r') return Kind::CR;
  if (c == U'\n') return Kind::LF;
  if (c == 0x200D) return Kind::ZWJ;
  if (c >= 0x1100 && c <= 0x115F) return Kind::L;
  if (c >= 0xA960 && c <= 0xA97C) return Kind::L;
  if (c >= 0x1160 && c <= 0x11A7) return Kind::V;
  if (c >= 0xD7B0 && c <= 0xD7C6) return Kind::V;
  if (c >= 0x11A8 && c <= 0x11FF) return Kind::T;
  if (c >= 0xD7CB && c <= 0xD7FB) return Kind::T;
  if (c >= 0xAC00 && c <= 0xD7A3) return (c - 0xAC00) % 28 == 0 ? Kind::LV : Kind::LVT;
  if (c >= 0x1F1E6 && c <= 0x1F1FF) return Kind::RI;
  if (c == 0x200C || (c >= 0xFF9E && c <= 0xFF9F) || (c >= 0x1F3FB && c <= 0x1F3FF) || (c >= 0xE0020 && c <= 0xE007F))
    return Kind::Extend;
  if (c < 0x20 || c == 0x7F) return Kind::Control;
  if (c < 0x300) return Kind::Other;
  const std::string_view g = unicode::general_category(c);
  if (g == "Mn" || g == "Me") return Kind::Extend;
  if (g == "Mc") return Kind::SpacingMark;
  if (g == "Cc" || g == "Zl" || g == "Zp" || g == "Cf") return Kind::Control;
  return Kind::Other;
}

bool pictographic(char32_t c) {
  if (c >= 0x1F000 && c <= 0x1FAFF) return true;
  return (c == 0xA9 || c == 0xAE || c >= 0x2000) && unicode::general_category(c) == "So";
}

}  // namespace

size_t grapheme_end(std::u32string_view t, size_t i) {
  const Kind first = kind(t[i]);
  size_t j = i + 1;
  if (first == Kind::CR) return j < t.size() && t[j] == U'\n' ? j + 1 : j;  // GB3, GB4
  if (first == Kind::LF || first == Kind::Control) return j;               // GB4
  Kind prev = first;
  bool picto_run = pictographic(t[i]);  // an Extended_Pictographic Extend* so far (GB11)
  while (j < t.size()) {
    const Kind k = kind(t[j]);
    bool join = false;
    if (k == Kind::Extend || k == Kind::ZWJ || k == Kind::SpacingMark) join = true;  // GB9, GB9a
    else if (prev == Kind::L && (k == Kind::L || k == Kind::V || k == Kind::LV || k == Kind::LVT)) join = true;  // GB6
    else if ((prev == Kind::LV || prev == Kind::V) && (k == Kind::V || k == Kind::T)) join = true;             // GB7
    else if ((prev == Kind::LVT || prev == Kind::T) && k == Kind::T) join = true;                               // GB8
    else if (prev == Kind::ZWJ && picto_run && pictographic(t[j])) join = true;                                 // GB11
    else if (prev == Kind::RI && k == Kind::RI && j == i + 1) join = true;                                      // GB12
    if (!join) break;
    if (k != Kind::Extend && k != Kind::ZWJ) picto_run = pictographic(t[j]) && prev == Kind::ZWJ;
    prev = k;
    ++j;
  }
  return j;
}

}  // namespace tfp
