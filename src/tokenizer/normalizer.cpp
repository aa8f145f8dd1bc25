// BERT's normaliser, step by step, carrying each character's origin. See normalizer.h.
#include "tokenizer/normalizer.h"

#include <algorithm>

#include "tokenizer/unicode.h"

namespace tfp {

NormalizedText identity_normalized(const std::u32string& input) {
  NormalizedText t;
  t.cps = input;
  t.origin.resize(input.size());
  for (size_t i = 0; i < input.size(); ++i) t.origin[i] = static_cast<uint32_t>(i);
  t.origin_last = t.origin;
  return t;
}

namespace {

// Rebuilds the text, letting `step(cp, emit)` emit zero or more characters per input
// character; each emitted character inherits the origin span of the one it came from.
// A character that emits nothing widens the span of the last emitted character.
template <typename Step>
NormalizedText rewrite(const NormalizedText& in, Step step) {
  NormalizedText out;
  out.cps.reserve(in.cps.size());
  out.origin.reserve(in.cps.size());
  out.origin_last.reserve(in.cps.size());
  for (size_t i = 0; i < in.cps.size(); ++i) {
    const size_t before = out.cps.size();
    auto emit = [&](char32_t c) {
      out.cps.push_back(c);
      out.origin.push_back(in.origin[i]);
      out.origin_last.push_back(in.origin_last[i]);
    };
    step(in.cps[i], emit);
    if (out.cps.size() == before && before > 0)
      out.origin_last.back() = std::max(out.origin_last.back(), in.origin_last[i]);
  }
  return out;
}

}  // namespace

NormalizedText bert_normalize(const std::u32string& input, const BertNormalizerOptions& opt) {
  NormalizedText t = identity_normalized(input);

  if (opt.clean_text) {
    t = rewrite(t, [](char32_t c, auto emit) {
      if (c == 0 || c == 0xFFFD || unicode::is_bert_control(c)) return;  // dropped
      // \t \n \r are whitespace here (is_bert_control excludes them).
      emit(unicode::is_white_space(c) ? char32_t(' ') : c);
    });
  }

  if (opt.handle_chinese_chars) {
    t = rewrite(t, [](char32_t c, auto emit) {
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
    t = rewrite(d, [](char32_t c, auto emit) {
      if (!unicode::is_nonspacing_mark(c)) emit(c);
    });
  }

  if (opt.lowercase) {
    std::u32string low;
    t = rewrite(t, [&low](char32_t c, auto emit) {
      low.clear();
      unicode::append_lower(c, low);
      for (char32_t l : low) emit(l);
    });
  }
  return t;
}

}  // namespace tfp
