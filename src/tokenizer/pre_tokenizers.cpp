// The pre-tokenizer steps of tokenizer.json. See pre_tokenizers.h.
#include "tokenizer/pre_tokenizers.h"

#include "tokenizer/bpe.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/unicode.h"

namespace tfp {

using Spans = std::vector<std::pair<uint32_t, uint32_t>>;

void split_piece(const NormalizedText& piece, const Spans& matches, SplitBehavior behavior, bool invert,
                 std::vector<NormalizedText>& out) {
  // 1. The whole piece as alternating (span, is_match) parts, as HF's find_matches.
  struct Part {
    uint32_t b, e;
    bool match;
  };
  std::vector<Part> parts;
  uint32_t prev = 0;
  for (const auto& [b, e] : matches) {
    if (e == b) continue;
    if (prev != b) parts.push_back({prev, b, false});
    parts.push_back({b, e, true});
    prev = e;
  }
  const auto n = static_cast<uint32_t>(piece.cps.size());
  if (prev != n) parts.push_back({prev, n, false});
  if (invert)
    for (Part& p : parts) p.match = !p.match;

  // 2. Apply the behaviour (the folds of HF's NormalizedString::split).
  std::vector<Part> kept;
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::Isolated: kept = parts; break;
    case SplitBehavior::Removed:
      for (const Part& p : parts)
        if (!p.match) kept.push_back(p);
      break;
    case SplitBehavior::MergedWithPrevious:
      for (const Part& p : parts) {
        if (p.match && !previous_match && !kept.empty()) kept.back().e = p.e;
        else kept.push_back(p);
        previous_match = p.match;
      }
      break;
    case SplitBehavior::MergedWithNext:
      for (size_t i = parts.size(); i-- > 0;) {
        const Part& p = parts[i];
        if (p.match && !previous_match && !kept.empty()) kept.back().b = p.b;
        else kept.push_back(p);
        previous_match = p.match;
      }
      std::reverse(kept.begin(), kept.end());
      break;
    case SplitBehavior::Contiguous:
      for (const Part& p : parts) {
        if (p.match == previous_match && !kept.empty()) kept.back().e = p.e;
        else kept.push_back(p);
        previous_match = p.match;
      }
      break;
  }
  if (kept.size() == 1 && kept[0].b == 0 && kept[0].e == n) {
    if (n > 0) out.push_back(piece);
    return;
  }
  for (const Part& p : kept)
    if (p.e > p.b) out.push_back(slice(piece, p.b, p.e));
}

namespace {

// Each character for which `pred` holds is one match (HF's Pattern for Fn(char) -> bool).
template <typename Pred>
Spans char_matches(const std::u32string& cps, Pred pred) {
  Spans m;
  for (uint32_t i = 0; i < cps.size(); ++i)
    if (pred(cps[i])) m.emplace_back(i, i + 1);
  return m;
}

// Applies `cut(piece, out)` to every piece.
template <typename Cut>
void for_each_piece(std::vector<NormalizedText>& pieces, Cut cut) {
  std::vector<NormalizedText> out;
  out.reserve(pieces.size());
  for (const NormalizedText& p : pieces) cut(p, out);
  pieces.swap(out);
}

class SequencePreTokenizer : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<PreTokenizerPtr> s) : steps_(std::move(s)) {}
  void pre_tokenize(std::vector<NormalizedText>& pieces) const override {
    for (const PreTokenizerPtr& s : steps_) s->pre_tokenize(pieces);
  }

 private:
  std::vector<PreTokenizerPtr> steps_;
};

class SplitPreTokenizer : public PreTokenizer {
 public:
  SplitPreTokenizer(TextPattern p, SplitBehavior b, bool invert) : pattern_(std::move(p)), behavior_(b), invert_(invert) {}
  void pre_tokenize(std::vector<NormalizedText>& pieces) const override {
    for_each_piece(pieces, [&](const NormalizedText& p, std::vector<NormalizedText>& out) {
      split_piece(p, pattern_.find_all(p.cps), behavior_, invert_, out);
    });
  }

 private:
  TextPattern pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space) {
    if (use_regex) regex_ = std::make_shared<const Regex>(kGpt2Pattern);
  }
  void pre_tokenize(std::vector<NormalizedText>& pieces) const override {
    for_each_piece(pieces, [&](const NormalizedText& in, std::vector<NormalizedText>& out) {
      if (add_prefix_space_ && !in.cps.empty() && in.cps[0] != U' ') {
        NormalizedText p = in;
        p.cps.insert(p.cps.begin(), U' ');
        p.origin.insert(p.origin.begin(), p.origin[0]);
        p.origin_last.insert(p.origin_last.begin(), p.origin[0]);
        cut(p, out);
      } else {
        cut(in, out);
      }
    });
    // Every UTF-8 byte -> its stand-in character, all with the source character's origin.
    const auto& table = byte_to_unicode();
    std::string bytes;
    for (NormalizedText& p : pieces) {
      if (std::all_of(p.cps.begin(), p.cps.end(), [](char32_t c) { return c < 0x80; })) {
        for (char32_t& c : p.cps) c = table[c];
        continue;
      }
      p = rewrite_chars(p, [&](char32_t c, auto emit) {
        bytes.clear();
        unicode::append_utf8(bytes, c);
        for (unsigned char b : bytes) emit(table[b]);
      });
    }
  }

 private:
  void cut(const NormalizedText& p, std::vector<NormalizedText>& out) const {
    if (regex_) split_piece(p, regex_->find_all(p.cps), SplitBehavior::Isolated, false, out);
    else if (!p.cps.empty()) out.push_back(p);
  }
  bool add_prefix_space_;
  std::shared_ptr<const Regex> regex_;
};

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  MetaspacePreTokenizer(char32_t r, PrependScheme s, bool split) : replacement_(r), scheme_(s), split_(split) {}
  void pre_tokenize(std::vector<NormalizedText>& pieces) const override {
    for_each_piece(pieces, [&](const NormalizedText& in, std::vector<NormalizedText>& out) {
      NormalizedText p = in;
      for (char32_t& c : p.cps)
        if (c == U' ') c = replacement_;
      // "first": only a piece that starts the input text (HF: offsets_original().0 == 0).
      const bool prepend = !p.cps.empty() && p.cps[0] != replacement_ &&
                           (scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && p.origin[0] == 0));
      if (prepend) {
        p.cps.insert(p.cps.begin(), replacement_);
        p.origin.insert(p.origin.begin(), p.origin[0]);
        p.origin_last.insert(p.origin_last.begin(), p.origin[0]);
      }
      if (!split_) {
        if (!p.cps.empty()) out.push_back(std::move(p));
        return;
      }
      split_piece(p, char_matches(p.cps, [&](char32_t c) { return c == replacement_; }),
                  SplitBehavior::MergedWithNext, false, out);
    });
  }

 private:
  char32_t replacement_;
  PrependScheme scheme_;
  bool split_;
};

// A pre-tokenizer that cuts at the characters `pred` accepts, with one behaviour.
template <typename Pred>
class CharSplitPreTokenizer : public PreTokenizer {
 public:
  CharSplitPreTokenizer(Pred pred, SplitBehavior b) : pred_(pred), behavior_(b) {}
  void pre_tokenize(std::vector<NormalizedText>& pieces) const override {
    for_each_piece(pieces, [&](const NormalizedText& p, std::vector<NormalizedText>& out) {
      split_piece(p, char_matches(p.cps, pred_), behavior_, false, out);
    });
  }

 private:
  Pred pred_;
  SplitBehavior behavior_;
};

template <typename Pred>
PreTokenizerPtr char_split(Pred pred, SplitBehavior b) {
  return std::make_shared<CharSplitPreTokenizer<Pred>>(pred, b);
}

// HF: split(Invert(\w+|[^\w\s]+), Removed), the pattern compiled by the regex crate, not
// Oniguruma: keep the runs of word characters and the runs of other non-spaces, drop the
// spaces. Matched by hand because the regex crate's \w is not Oniguruma's (it has ZWNJ/ZWJ
// and lacks the Latin-1 superscripts and fractions; see unicode.h).
class WhitespacePreTokenizer : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<NormalizedText>& pieces) const override {
    for_each_piece(pieces, [](const NormalizedText& p, std::vector<NormalizedText>& out) {
      Spans runs;
      const auto n = static_cast<uint32_t>(p.cps.size());
      for (uint32_t i = 0; i < n;) {
        const char32_t c = p.cps[i];
        if (unicode::is_white_space(c) && !unicode::is_regex_crate_word(c)) {
          ++i;
          continue;
        }
        const bool word = unicode::is_regex_crate_word(c);
        uint32_t j = i + 1;
        while (j < n && unicode::is_regex_crate_word(p.cps[j]) == word &&
               (word || !unicode::is_white_space(p.cps[j])))
          ++j;
        runs.emplace_back(i, j);
        i = j;
      }
      split_piece(p, runs, SplitBehavior::Removed, true, out);
    });
  }
};

}  // namespace

PreTokenizerPtr make_sequence_pre_tokenizer(std::vector<PreTokenizerPtr> steps) {
  return std::make_shared<SequencePreTokenizer>(std::move(steps));
}
PreTokenizerPtr make_split_pre_tokenizer(TextPattern pattern, SplitBehavior behavior, bool invert) {
  return std::make_shared<SplitPreTokenizer>(std::move(pattern), behavior, invert);
}
PreTokenizerPtr make_byte_level_pre_tokenizer(bool add_prefix_space, bool use_regex) {
  return std::make_shared<ByteLevelPreTokenizer>(add_prefix_space, use_regex);
}
PreTokenizerPtr make_metaspace_pre_tokenizer(char32_t replacement, PrependScheme scheme, bool split) {
  return std::make_shared<MetaspacePreTokenizer>(replacement, scheme, split);
}
PreTokenizerPtr make_digits_pre_tokenizer(bool individual_digits) {
  // HF splits with Rust's char::is_numeric, whose Unicode version is Rust's, not Oniguruma's.
  return char_split(&unicode::is_numeric, individual_digits ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
}
PreTokenizerPtr make_whitespace_pre_tokenizer() {
  return std::make_shared<WhitespacePreTokenizer>();
}
PreTokenizerPtr make_whitespace_split_pre_tokenizer() {
  return char_split(&unicode::is_white_space, SplitBehavior::Removed);
}
PreTokenizerPtr make_punctuation_pre_tokenizer(SplitBehavior behavior) {
  return char_split(&unicode::is_bert_punct, behavior);
}
PreTokenizerPtr make_bert_pre_tokenizer() {
  return make_sequence_pre_tokenizer(
      {make_whitespace_split_pre_tokenizer(), make_punctuation_pre_tokenizer(SplitBehavior::Isolated)});
}
PreTokenizerPtr make_char_delimiter_pre_tokenizer(char32_t delimiter) {
  return char_split([delimiter](char32_t c) { return c == delimiter; }, SplitBehavior::Removed);
}

}  // namespace tfp
