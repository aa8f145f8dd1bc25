// NFD / NFKD / NFC / NFKC with origin tracking. See unicode_norm.h.
#include "tokenizer/unicode_norm.h"

#include <algorithm>

#include "tokenizer/unicode.h"

namespace tfp {

const char* normal_form_name(NormalForm f) {
  switch (f) {
    case NormalForm::NFD: return "NFD";
    case NormalForm::NFKD: return "NFKD";
    case NormalForm::NFC: return "NFC";
    case NormalForm::NFKC: return "NFKC";
  }
  return "?";
}

namespace {

// Decomposes every character, then puts each run of combining marks in canonical order,
// permuting the origins alongside.
NormalizedText decompose(const NormalizedText& in, bool compat) {
  NormalizedText d;
  std::u32string one;
  std::vector<uint32_t> which;  // index into `in` of each decomposed character
  for (size_t i = 0; i < in.cps.size(); ++i) {
    one.clear();
    if (compat) unicode::append_compat_decomposition(in.cps[i], one);
    else unicode::append_decomposition(in.cps[i], one);
    d.cps += one;
    which.insert(which.end(), one.size(), static_cast<uint32_t>(i));
  }
  unicode::canonical_order(d.cps, &which);
  d.origin.reserve(which.size());
  d.origin_last.reserve(which.size());
  for (uint32_t i : which) {
    d.origin.push_back(in.origin[i]);
    d.origin_last.push_back(in.origin_last[i]);
  }
  return d;
}

// Canonical composition (UAX #15, D117): a character combines with the last starter
// when nothing between them blocks it (a blocker is a character of class 0 or of a
// class >= its own).
void compose(NormalizedText& t) {
  if (t.cps.empty()) return;
  size_t starter = 0, out = 1;
  int last_class = unicode::combining_class(t.cps[0]);
  if (last_class != 0) last_class = 256;  // text starting with a mark: nothing to compose with yet
  for (size_t i = 1; i < t.cps.size(); ++i) {
    const char32_t c = t.cps[i];
    const int cls = unicode::combining_class(c);
    const char32_t composed = last_class == 256 ? 0 : unicode::compose_pair(t.cps[starter], c);
    if (composed != 0 && (last_class < cls || last_class == 0)) {
      t.cps[starter] = composed;
      t.origin[starter] = std::min(t.origin[starter], t.origin[i]);
      t.origin_last[starter] = std::max(t.origin_last[starter], t.origin_last[i]);
      continue;
    }
    if (cls == 0) starter = out;
    last_class = cls;
    t.cps[out] = c;
    t.origin[out] = t.origin[i];
    t.origin_last[out] = t.origin_last[i];
    ++out;
  }
  t.cps.resize(out);
  t.origin.resize(out);
  t.origin_last.resize(out);
}

}  // namespace

void apply_normal_form(NormalizedText& text, NormalForm form) {
  // ASCII is its own normal form in all four.
  if (std::all_of(text.cps.begin(), text.cps.end(), [](char32_t c) { return c < 0x80; })) return;
  const bool compat = form == NormalForm::NFKD || form == NormalForm::NFKC;
  text = decompose(text, compat);
  if (form == NormalForm::NFC || form == NormalForm::NFKC) compose(text);
}

}  // namespace tfp
