// Unicode helpers for the tokenizers: UTF-8 in and out, UTF-16 lengths (JS offsets),
// the character classes the GPT-2 regex and BERT's basic tokenizer ask about, simple
// lowercasing and NFD (for BERT's accent stripping).
//
// NFC/NFKC/NFKD are built on these in unicode_norm.h. Not here: full case folding,
// grapheme clusters, locale rules.
// The class data is generated from Python's unicodedata by tools/gen_unicode_tables.py;
// `unicode_version()` says which Unicode version that was. A character assigned after
// that version counts as unassigned (category Cn) here.
//
// Names follow the definition each function reproduces:
//   is_js_space      \s in a JavaScript regex (what gpt-3-encoder's pattern uses)
//   is_white_space   Unicode White_Space (Rust's char::is_whitespace, used by HF BERT)
//   is_bert_punct    BERT: ASCII 33-47, 58-64, 91-96, 123-126, or any P* category
//   is_bert_control  HF BERT: categories Cc Cf Co Cn, except \t \n \r
//   is_cjk           BERT's _is_chinese_char ranges (CJK ideographs, not all of CJK)
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tfp::unicode {

// ---- UTF-8 --------------------------------------------------------------------

// One decoded code point and the bytes [begin, end) it occupied in the UTF-8 input.
struct DecodedChar {
  char32_t cp;
  uint32_t begin, end;
};

// Strict decoding (no overlongs, no surrogates, nothing above U+10FFFF). Throws
// tfp::Error "utf8: invalid UTF-8 at byte offset N (byte 0xXX): <reason>".
std::vector<DecodedChar> decode_utf8(std::string_view text);
std::u32string to_u32(std::string_view text);  // same checks, code points only

// Lossy decoding as the WHATWG TextDecoder and Rust's String::from_utf8_lossy do it:
// each maximal ill-formed subsequence becomes one U+FFFD.
std::string utf8_lossy(std::string_view bytes);

void append_utf8(std::string& out, char32_t cp);
std::string to_utf8(std::u32string_view cps);

// 1 for the BMP, 2 for a surrogate pair: JS string indices count UTF-16 units.
inline uint32_t utf16_units(char32_t cp) { return cp >= 0x10000 ? 2u : 1u; }

// "U+00E9" — for error messages.
std::string cp_label(char32_t cp);

// ---- classes --------------------------------------------------------------------

bool is_letter(char32_t cp);           // \p{L}
bool is_number(char32_t cp);           // \p{N}
bool is_js_space(char32_t cp);         // JS \s
bool is_white_space(char32_t cp);      // Unicode White_Space
bool is_bert_punct(char32_t cp);
bool is_bert_control(char32_t cp);
bool is_nonspacing_mark(char32_t cp);  // Mn
bool is_cjk(char32_t cp);
uint8_t combining_class(char32_t cp);  // canonical combining class, 0 for starters
// The two-letter general category ("Lu", "Nd", ...; "Cn" for unassigned).
std::string_view general_category(char32_t cp);

// ---- mappings -------------------------------------------------------------------

// Appends the lowercase form of cp: the simple mapping, except U+0130 which becomes
// "i" + U+0307 (the one unconditional multi-character lowercase in SpecialCasing).
void append_lower(char32_t cp, std::u32string& out);

// Appends the full canonical decomposition of cp (Hangul syllables arithmetically).
// The marks are NOT yet in canonical order; see canonical_order().
void append_decomposition(char32_t cp, std::u32string& out);
// The same with compatibility mappings too (NFKD: "ﬁ" -> "fi", "①" -> "1").
void append_compat_decomposition(char32_t cp, std::u32string& out);
// The canonical composition of a + b (Hangul arithmetically), or 0 when there is none or
// it is a composition exclusion.
char32_t compose_pair(char32_t a, char32_t b);

// Canonical ordering: a stable sort of every run of non-starters by combining class.
// `tags` (if not empty) is permuted alongside, so callers can keep per-char offsets.
void canonical_order(std::u32string& cps, std::vector<uint32_t>* tags = nullptr);

std::u32string nfd(std::u32string_view cps);

const char* unicode_version();

}  // namespace tfp::unicode
