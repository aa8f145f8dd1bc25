// BERT's normaliser, step by step, carrying each character's origin. See normalizer.h.
#include "tokenizer/normalizer.h"

#include <algorithm>

#include "tokenizer/unicode.h"

namespace tfp {

NormalizedText identity_normalized(const std::u32string& input, uint32_t first) {
  NormalizedText t;
  t.cps = input;
  t.origin.resize(input.size());
  for (size_t i = 0; i < input.size(); ++i) t.origin[i] = first + static_cast<uint32_t>(i);
  t.origin_last = t.origin;
  return t;
}

NormalizedText slice(const NormalizedText& t, size_t begin, size_t end) {
  NormalizedText s;
  s.cps.assign(t.cps.begin() + static_cast<ptrdiff_t>(begin), t.cps.begin() + static_cast<ptrdiff_t>(end));
  s.origin.assign(t.origin.begin() + static_cast<ptrdiff_t>(begin), t.origin.begin() + static_cast<ptrdiff_t>(end));
  s.origin_last.assign(t.origin_last.begin() + static_cast<ptrdiff_t>(begin),
                       t.origin_last.begin() + static_cast<ptrdiff_t>(end));
  return s;
}


NormalizedText bert_normalize(const std::u32string& input, const BertNormalizerOptions& opt) {
  return bert_normalize(identity_normalized(input), opt);
}

NormalizedText bert_normalize(NormalizedText t, const BertNormalizerOptions& opt) {

  if (opt.clean_text) {
    t = rewrite_chars(t, [](char32_t c, auto emit) {
      if (c == 0 || c == 0xFFFD || unicode::is_bert_control(c)) return;  // dropped
      // \t \n \r are whitespace here (is_bert_control excludes them).
      emit(unicode::is_white_space(c) ? char32_t(' ') : c);
    });
  }

  if (opt.handle_chinese_chars) {
    t = rewrite_chars(t, [](char32_t c, auto emit) {
      if (unicode::is_cjk(c)) {
        emit(' ');
        emit(c);
        emit(' ');
      } else {
        emit(c);
      }
    });
  }

  if (opt.strip_accents.value_or(opt.lowercase)) {
    // NFD splits "é" (U+00E9) into "e" + U+0301 COMBINING ACUTE ACCENT (an Mn);
    // dropping every Mn then leaves the base letters.
    NormalizedText d;
    std::u32string one;
    std::vector<uint32_t> which;  // index into t for each decomposed char
    for (size_t i = 0; i < t.cps.size(); ++i) {
      one.clear();
      unicode::append_decomposition(t.cps[i], one);
      d.cps += one;
      which.insert(which.end(), one.size(), static_cast<uint32_t>(i));
    }
    unicode::canonical_order(d.cps, &which);
    for (uint32_t i : which) {
      d.origin.push_back(t.origin[i]);
      d.origin_last.push_back(t.origin_last[i]);
    }
    t = rewrite_chars(d, [](char32_t c, auto emit) {
      if (!unicode::is_bert_nonspacing_mark(c)) emit(c);
    });
  }

  if (opt.lowercase) {
    std::u32string low;
    t = rewrite_chars(t, [&low](char32_t c, auto emit) {
      low.clear();
      unicode::append_lower(c, low);
      for (char32_t l : low) emit(l);
    });
  }
  return t;
}

}  // namespace tfp
