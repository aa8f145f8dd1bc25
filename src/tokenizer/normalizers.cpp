// The normalizer steps of tokenizer.json. See normalizers.h.
#include "tokenizer/normalizers.h"

#include "tokenizer/unicode.h"

namespace tfp {

namespace {

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<NormalizerPtr> steps) : steps_(std::move(steps)) {}
  void normalize(NormalizedText& t) const override {
    for (const NormalizerPtr& s : steps_) s->normalize(t);
  }

 private:
  std::vector<NormalizerPtr> steps_;
};

// HF: `if !normalized.is_empty() { normalized.prepend(..) }`; the new characters
// belong to the first character's origin.
class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(const std::string& p) : prefix_(unicode::to_u32(p)) {}
  void normalize(NormalizedText& t) const override {
    if (t.cps.empty() || prefix_.empty()) return;
    t.cps.insert(0, prefix_);
    t.origin.insert(t.origin.begin(), prefix_.size(), t.origin[0]);
    t.origin_last.insert(t.origin_last.begin(), prefix_.size(), t.origin[0]);
  }

 private:
  std::u32string prefix_;
};

// Each match becomes `content`, whose characters cover the matched characters' span.
// An empty content folds the match into the previous character's span.
class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(TextPattern p, const std::string& content) : pattern_(std::move(p)), content_(unicode::to_u32(content)) {}
  void normalize(NormalizedText& t) const override {
    const auto matches = pattern_.find_all(t.cps);
    if (matches.empty()) return;
    NormalizedText out;
    out.cps.reserve(t.cps.size());
    out.origin.reserve(t.cps.size());
    out.origin_last.reserve(t.cps.size());
    auto copy = [&](size_t b, size_t e) {
      out.cps.append(t.cps, b, e - b);
      out.origin.insert(out.origin.end(), t.origin.begin() + static_cast<ptrdiff_t>(b), t.origin.begin() + static_cast<ptrdiff_t>(e));
      out.origin_last.insert(out.origin_last.end(), t.origin_last.begin() + static_cast<ptrdiff_t>(b),
                             t.origin_last.begin() + static_cast<ptrdiff_t>(e));
    };
    size_t last = 0;
    for (const auto& [b, e] : matches) {
      if (e == b) continue;
      copy(last, b);
      if (content_.empty()) {
        if (!out.origin_last.empty()) out.origin_last.back() = std::max(out.origin_last.back(), t.origin_last[e - 1]);
      } else {
        for (char32_t c : content_) {
          out.cps.push_back(c);
          out.origin.push_back(t.origin[b]);
          out.origin_last.push_back(t.origin_last[e - 1]);
        }
      }
      last = e;
    }
    copy(last, t.cps.size());
    t = std::move(out);
  }

 private:
  TextPattern pattern_;
  std::u32string content_;
};

class NormalFormNormalizer : public Normalizer {
 public:
  explicit NormalFormNormalizer(NormalForm f) : form_(f) {}
  void normalize(NormalizedText& t) const override { apply_normal_form(t, form_); }

 private:
  NormalForm form_;
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void normalize(NormalizedText& t) const override {
    size_t b = 0, e = t.cps.size();
    if (left_)
      while (b < e && unicode::is_white_space(t.cps[b])) ++b;
    if (right_)
      while (e > b && unicode::is_white_space(t.cps[e - 1])) --e;
    if (b != 0 || e != t.cps.size()) t = slice(t, b, e);
  }

 private:
  bool left_, right_;
};

class LowercaseNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& t) const override {
    std::u32string low;
    t = rewrite_chars(t, [&low](char32_t c, auto emit) {
      low.clear();
      unicode::append_lower(c, low);
      for (char32_t l : low) emit(l);
    });
  }
};

// HF's StripAccents drops every combining mark (Mn, Mc, Me), unlike BertNormalizer's
// accent stripping, which drops only Mn; each with its own crate's (older) Unicode tables.
class StripAccentsNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& t) const override {
    t = rewrite_chars(t, [](char32_t c, auto emit) {
      if (c < 0x300 || !unicode::is_combining_mark(c)) emit(c);
    });
  }
};

class BertNormalizerStep : public Normalizer {
 public:
  explicit BertNormalizerStep(const BertNormalizerOptions& o) : options_(o) {}
  void normalize(NormalizedText& t) const override { t = bert_normalize(std::move(t), options_); }

 private:
  BertNormalizerOptions options_;
};

}  // namespace

NormalizerPtr make_sequence_normalizer(std::vector<NormalizerPtr> steps) {
  return std::make_shared<SequenceNormalizer>(std::move(steps));
}
NormalizerPtr make_prepend_normalizer(const std::string& prefix) { return std::make_shared<PrependNormalizer>(prefix); }
NormalizerPtr make_replace_normalizer(TextPattern pattern, const std::string& content) {
  return std::make_shared<ReplaceNormalizer>(std::move(pattern), content);
}
NormalizerPtr make_normal_form_normalizer(NormalForm form) { return std::make_shared<NormalFormNormalizer>(form); }
NormalizerPtr make_strip_normalizer(bool left, bool right) { return std::make_shared<StripNormalizer>(left, right); }
NormalizerPtr make_lowercase_normalizer() { return std::make_shared<LowercaseNormalizer>(); }
NormalizerPtr make_strip_accents_normalizer() { return std::make_shared<StripAccentsNormalizer>(); }
NormalizerPtr make_bert_normalizer(const BertNormalizerOptions& options) {
  return std::make_shared<BertNormalizerStep>(options);
}

}  // namespace tfp
