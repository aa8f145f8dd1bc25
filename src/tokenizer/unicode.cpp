// Unicode helpers: UTF-8 decoding (strict and lossy), class lookups over the generated
// tables, lowercasing and NFD. See unicode.h for which definition each function follows.
#include "tokenizer/unicode.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "tokenizer/unicode_tables.h"

namespace tfp::unicode {

namespace T = unicode_tables;

// ---- UTF-8 ----------------------------------------------------------------------
//
// A UTF-8 sequence is a lead byte followed by 0-3 continuation bytes (10xxxxxx):
//   U+0000..U+007F     0xxxxxxx
//   U+0080..U+07FF     110xxxxx 10xxxxxx
//   U+0800..U+FFFF     1110xxxx 10xxxxxx 10xxxxxx
//   U+10000..U+10FFFF  11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
// Overlong forms, surrogates (U+D800..U+DFFF) and values above U+10FFFF are invalid.
// Checking the allowed range of the SECOND byte per lead byte (the Unicode table 3-7
// approach) rejects all three early, so "maximal subpart" replacement falls out.

namespace {

// Result of reading one sequence at `pos`: the code point, or the number of bytes that
// form the maximal ill-formed subpart (at least 1) and why it is ill-formed.
struct Step {
  char32_t cp = 0;
  uint32_t length = 1;
  const char* error = nullptr;
};

Step read_one(std::string_view s, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t b0 = byte(pos);
  if (b0 < 0x80) return {b0, 1, nullptr};
  int need = 0;
  char32_t cp = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) { need = 1; cp = b0 & 0x1F; }
  else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2; cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // below: overlong
    if (b0 == 0xED) hi = 0x9F;  // above: surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3; cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // below: overlong
    if (b0 == 0xF4) hi = 0x8F;  // above: > U+10FFFF
  } else {
    return {0, 1, b0 < 0xC0 ? "unexpected continuation byte" : "invalid lead byte"};
  }
  for (int k = 1; k <= need; ++k) {
    if (pos + k >= s.size()) return {0, static_cast<uint32_t>(k), "truncated sequence"};
    const uint8_t b = byte(pos + k);
    const uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (b < l || b > h) {
      return {0, static_cast<uint32_t>(k),
              k == 1 && b >= 0x80 && b <= 0xBF ? "overlong, surrogate or out-of-range sequence"
                                               : "missing continuation byte"};
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, static_cast<uint32_t>(need + 1), nullptr};
}

[[noreturn]] void fail_utf8(std::string_view s, size_t pos, const char* why) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<uint8_t>(s[pos])));
  TFP_FAIL("utf8: invalid UTF-8 at byte offset ", pos, " (byte ", hex, "): ", why);
}

}  // namespace

std::vector<DecodedChar> decode_utf8(std::string_view text) {
  std::vector<DecodedChar> out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const Step st = read_one(text, pos);
    if (st.error) fail_utf8(text, pos, st.error);
    out.push_back({st.cp, static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + st.length)});
    pos += st.length;
  }
  return out;
}

std::u32string to_u32(std::string_view text) {
  std::u32string out;
  for (const DecodedChar& c : decode_utf8(text)) out.push_back(c.cp);
  return out;
}

std::string utf8_lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t pos = 0; pos < bytes.size();) {
    const Step st = read_one(bytes, pos);
    append_utf8(out, st.error ? char32_t{0xFFFD} : st.cp);
    pos += st.length;
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string cp_label(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

std::string to_utf8(std::u32string_view cps) {
  std::string out;
  for (char32_t cp : cps) append_utf8(out, cp);
  return out;
}

// ---- classes ----------------------------------------------------------------------

namespace {

bool in_ranges(std::span<const T::CodeRange> table, char32_t cp) {
  // First run whose upper end is >= cp; cp is inside iff that run starts at or before it.
  auto it = std::lower_bound(table.begin(), table.end(), cp,
                             [](const T::CodeRange& r, char32_t c) { return r.hi < c; });
  return it != table.end() && it->lo <= cp;
}

}  // namespace

bool is_letter(char32_t cp) { return in_ranges(T::letter_ranges, cp); }
bool is_number(char32_t cp) { return in_ranges(T::number_ranges, cp); }
bool is_alphabetic(char32_t cp) { return in_ranges(T::alphabetic_ranges, cp); }
bool is_numeric(char32_t cp) { return in_ranges(T::numeric_ranges, cp); }
bool is_bert_nonspacing_mark(char32_t cp) { return in_ranges(T::bert_mn_ranges, cp); }
bool is_combining_mark(char32_t cp) { return in_ranges(T::mark_ranges, cp); }

bool is_oniguruma_word(char32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
  // Oniguruma's Unicode \w is Alphabetic, M*, Nd and Pc, except that below U+0100 it reads
  // its ISO-8859-1 table, which also counts the superscripts and fractions (probed on HF).
  if (cp == 0xB2 || cp == 0xB3 || cp == 0xB9 || cp == 0xBC || cp == 0xBD || cp == 0xBE) return true;
  if (is_alphabetic(cp)) return true;
  const std::string_view g = general_category(cp);
  return g[0] == 'M' || g == "Nd" || g == "Pc";
}

bool is_regex_crate_word(char32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
  // UTS #18's \w: Alphabetic, M*, Nd, Pc and Join_Control (ZWNJ, ZWJ).
  if (cp == 0x200C || cp == 0x200D || is_alphabetic(cp)) return true;
  const std::string_view g = general_category(cp);
  return g[0] == 'M' || g == "Nd" || g == "Pc";
}

bool is_js_space(char32_t cp) {
  // ECMAScript: WhiteSpace (TAB, VT, FF, ZWNBSP U+FEFF, any Zs) + LineTerminator
  // (LF, CR, U+2028, U+2029). Note: NOT U+0085, which Python's str.isspace() includes.
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D:
    case 0xFEFF: case 0x2028: case 0x2029:
      return true;
    default:
      return in_ranges(T::space_sep_ranges, cp);
  }
}

bool is_white_space(char32_t cp) {
  // The White_Space property: TAB..CR, NEL, the line/paragraph separators and Zs.
  // Unlike JS \s it has U+0085 and lacks U+FEFF.
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D:
    case 0x85: case 0x2028: case 0x2029:
      return true;
    default:
      return in_ranges(T::space_sep_ranges, cp);
  }
}

bool is_bert_punct(char32_t cp) {
  // BERT treats all non-letter/number/space ASCII as punctuation ("$", "^", "`" are
  // symbols in Unicode, not P*), so "$5" splits into "$", "5".
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
      (cp >= 123 && cp <= 126))
    return true;
  return in_ranges(T::bert_punct_ranges, cp);
}

bool is_bert_control(char32_t cp) {
  // \t \n \r are controls in Unicode but BERT counts them as whitespace.
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  return in_ranges(T::bert_control_ranges, cp);
}

bool is_cjk(char32_t cp) {
  // BERT's _is_chinese_char: the CJK Unified Ideographs blocks and extensions, plus the
  // compatibility ideographs. Hiragana, Katakana and Hangul are NOT included: those
  // scripts are written with spaces or are handled like other letters.
  // HF's copy starts the last extension range at U+2B920 where Google's BERT has U+2B820, so
  // U+2B820..U+2B91F (the start of Extension E) are not split off there; we follow HF.
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

uint8_t combining_class(char32_t cp) {
  auto it = std::lower_bound(T::ccc_runs.begin(), T::ccc_runs.end(), cp,
                             [](const T::CombiningRun& r, char32_t c) { return r.hi < c; });
  return it != T::ccc_runs.end() && it->lo <= cp ? it->ccc : 0;
}

// ---- mappings ---------------------------------------------------------------------

void append_lower(char32_t cp, std::u32string& out) {
  if (cp == 0x130) {  // İ -> i + COMBINING DOT ABOVE
    out.push_back(U'i');
    out.push_back(0x307);
    return;
  }
  if (cp < 0x80) {  // fast path
    out.push_back(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    return;
  }
  auto it = std::lower_bound(T::lower_runs.begin(), T::lower_runs.end(), cp,
                             [](const T::LowerRun& r, char32_t c) { return r.hi < c; });
  if (it != T::lower_runs.end() && it->lo <= cp && (cp - it->lo) % it->stride == 0) {
    out.push_back(static_cast<char32_t>(static_cast<int64_t>(cp) + it->delta));
  } else {
    out.push_back(cp);
  }
}

void append_decomposition(char32_t cp, std::u32string& out) {
  // Hangul syllables are composed arithmetically from leading consonant L, vowel V and
  // optional trailing consonant T: S = 0xAC00 + (L * 21 + V) * 28 + T.
  constexpr char32_t kS = 0xAC00, kL = 0x1100, kV = 0x1161, kT = 0x11A7;
  constexpr char32_t kVCount = 21, kTCount = 28, kSCount = 19 * 21 * 28;
  if (cp >= kS && cp < kS + kSCount) {
    const char32_t s = cp - kS;
    out.push_back(kL + s / (kVCount * kTCount));
    out.push_back(kV + (s % (kVCount * kTCount)) / kTCount);
    if (s % kTCount != 0) out.push_back(kT + s % kTCount);
    return;
  }
  auto it = std::lower_bound(T::decompositions.begin(), T::decompositions.end(), cp,
                             [](const T::Decomposition& d, char32_t c) { return d.cp < c; });
  if (it == T::decompositions.end() || it->cp != cp) {
    out.push_back(cp);
    return;
  }
  for (uint32_t i = 0; i < it->length; ++i) out.push_back(T::decomp_pool_cps[it->offset + i]);
}

void canonical_order(std::u32string& cps, std::vector<uint32_t>* tags) {
  // Insertion sort inside each run of non-starters (ccc > 0): runs are short (a few
  // marks), and insertion sort is stable, which the Unicode algorithm requires.
  const bool with_tags = tags && tags->size() == cps.size();
  for (size_t i = 1; i < cps.size(); ++i) {
    const uint8_t c = combining_class(cps[i]);
    if (c == 0) continue;
    size_t j = i;
    while (j > 0) {
      const uint8_t prev = combining_class(cps[j - 1]);
      if (prev == 0 || prev <= c) break;
      std::swap(cps[j - 1], cps[j]);
      if (with_tags) std::swap((*tags)[j - 1], (*tags)[j]);
      --j;
    }
  }
}

std::u32string nfd(std::u32string_view cps) {
  std::u32string out;
  for (char32_t cp : cps) append_decomposition(cp, out);
  canonical_order(out);
  return out;
}

std::string_view general_category(char32_t cp) {
  auto it = std::lower_bound(T::category_runs.begin(), T::category_runs.end(), cp,
                             [](const T::CategoryRun& r, char32_t c) { return r.hi < c; });
  if (it == T::category_runs.end() || it->lo > cp) return "Cn";
  return T::category_name_list[it->category];
}

void append_compat_decomposition(char32_t cp, std::u32string& out) {
  auto it = std::lower_bound(T::compat_decompositions.begin(), T::compat_decompositions.end(), cp,
                             [](const T::Decomposition& d, char32_t c) { return d.cp < c; });
  if (it == T::compat_decompositions.end() || it->cp != cp) {
    append_decomposition(cp, out);  // no compatibility mapping: the canonical one
    return;
  }
  for (uint32_t i = 0; i < it->length; ++i) out.push_back(T::kdecomp_pool_cps[it->offset + i]);
}

char32_t compose_pair(char32_t a, char32_t b) {
  constexpr char32_t kS = 0xAC00, kL = 0x1100, kV = 0x1161, kT = 0x11A7;
  constexpr char32_t kVCount = 21, kTCount = 28, kSCount = 19 * 21 * 28;
  if (a >= kL && a < kL + 19 && b >= kV && b < kV + kVCount)  // L + V -> LV
    return kS + ((a - kL) * kVCount + (b - kV)) * kTCount;
  if (a >= kS && a < kS + kSCount && (a - kS) % kTCount == 0 && b > kT && b < kT + kTCount)  // LV + T
    return a + (b - kT);
  auto it = std::lower_bound(T::composition_pairs.begin(), T::composition_pairs.end(), std::make_pair(a, b),
                             [](const T::CompositionPair& p, std::pair<char32_t, char32_t> k) {
                               return p.first < k.first || (p.first == k.first && p.second < k.second);
                             });
  if (it == T::composition_pairs.end() || it->first != a || it->second != b) return 0;
  return it->composed;
}

const char* unicode_version() { return T::kUnicodeVersion; }
const char* unicode_versions() { return T::kUnicodeVersions; }

}  // namespace tfp::unicode
