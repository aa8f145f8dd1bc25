// The decoder steps of tokenizer.json. See decoders.h.
#include "tokenizer/decoders.h"

#include "tokenizer/bpe.h"
#include "tokenizer/unicode.h"

namespace tfp {

namespace {

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<DecoderPtr> s) : steps_(std::move(s)) {}
  void decode_chain(std::vector<std::string>& t) const override {
    for (const DecoderPtr& s : steps_) s->decode_chain(t);
  }

 private:
  std::vector<DecoderPtr> steps_;
};

// A token with a character outside the byte map (an added token like "<|im_end|>" is
// fine: printable ASCII maps to itself) is kept as its own UTF-8 bytes, as HF does.
class ByteLevelDecoder : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string bytes, mapped;
    for (const std::string& t : tokens) {
      mapped.clear();
      bool ok = true;
      for (const unicode::DecodedChar& c : unicode::decode_utf8(t)) {
        const int b = byte_from_unicode(c.cp);
        if (b < 0) {
          ok = false;
          break;
        }
        mapped.push_back(static_cast<char>(b));
      }
      bytes += ok ? mapped : t;
    }
    tokens.assign(1, unicode::utf8_lossy(bytes));
  }
};

class ByteFallbackDecoder : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    std::string run;  // bytes of consecutive <0xNN> tokens
    size_t run_count = 0;
    auto flush = [&] {
      if (run_count == 0) return;
      if (unicode::utf8_lossy(run) == run) out.push_back(run);
      else
        for (size_t i = 0; i < run_count; ++i) out.push_back("\xEF\xBF\xBD");  // U+FFFD per byte
      run.clear();
      run_count = 0;
    };
    for (std::string& t : tokens) {
      int byte = -1;
      if (t.size() == 6 && t.starts_with("<0x") && t[5] == '>') byte = hex_byte(t[3], t[4]);
      if (byte >= 0) {
        run.push_back(static_cast<char>(byte));
        ++run_count;
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    tokens.swap(out);
  }

 private:
  static int hex_byte(char a, char b) {
    auto d = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    return d(a) < 0 || d(b) < 0 ? -1 : d(a) * 16 + d(b);
  }
};

class ReplaceDecoder : public Decoder {
 public:
  ReplaceDecoder(TextPattern p, std::string content) : pattern_(std::move(p)), content_(std::move(content)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) t = pattern_.replace_all(t, content_);
  }

 private:
  TextPattern pattern_;
  std::string content_;
};

class FuseDecoder : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    tokens.assign(1, std::move(all));
  }
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(char32_t c, size_t start, size_t stop) : content_(c), start_(start), stop_(stop) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) {
      const std::u32string cps = unicode::to_u32(unicode::utf8_lossy(t));
      size_t b = 0, e = cps.size();
      while (b < start_ && b < cps.size() && cps[b] == content_) ++b;
      for (size_t i = 0; i < stop_ && e > b && cps[e - 1] == content_; ++i) --e;
      t = unicode::to_utf8(std::u32string_view(cps).substr(b, e - b));
    }
  }

 private:
  char32_t content_;
  size_t start_, stop_;
};

class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(char32_t r, PrependScheme s) : replacement_(r), scheme_(s) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::u32string out;
      for (char32_t c : unicode::to_u32(unicode::utf8_lossy(tokens[i]))) {
        if (c != replacement_) out.push_back(c);
        else if (i != 0 || scheme_ == PrependScheme::Never) out.push_back(U' ');
      }
      tokens[i] = unicode::to_utf8(out);
    }
  }

 private:
  char32_t replacement_;
  PrependScheme scheme_;
};

// HF's WordPiece decoder clean-up: undo the spaces a word-by-word join puts before
// punctuation and contractions.
std::string cleanup(std::string s) {
  static const std::pair<const char*, const char*> rules[] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : rules) {
    const std::string f(from), t(to);
    for (size_t pos = 0; (pos = s.find(f, pos)) != std::string::npos; pos += t.size()) s.replace(pos, f.size(), t);
  }
  return s;
}

class WordPieceDecoder : public Decoder {
 public:
  WordPieceDecoder(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i != 0) {
        if (t.starts_with(prefix_)) t.erase(0, prefix_.size());
        else t = " " + t;
      }
      if (cleanup_) t = cleanup(t);
    }
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

class BpeSuffixDecoder : public Decoder {
 public:
  explicit BpeSuffixDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    const TextPattern p = TextPattern::literal(suffix_);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = p.replace_all(tokens[i], i + 1 == tokens.size() ? "" : " ");
  }

 private:
  std::string suffix_;
};

}  // namespace

DecoderPtr make_sequence_decoder(std::vector<DecoderPtr> steps) {
  return std::make_shared<SequenceDecoder>(std::move(steps));
}
DecoderPtr make_byte_level_decoder() { return std::make_shared<ByteLevelDecoder>(); }
DecoderPtr make_byte_fallback_decoder() { return std::make_shared<ByteFallbackDecoder>(); }
DecoderPtr make_replace_decoder(TextPattern pattern, const std::string& content) {
  return std::make_shared<ReplaceDecoder>(std::move(pattern), content);
}
DecoderPtr make_fuse_decoder() { return std::make_shared<FuseDecoder>(); }
DecoderPtr make_strip_decoder(char32_t content, size_t start, size_t stop) {
  return std::make_shared<StripDecoder>(content, start, stop);
}
DecoderPtr make_metaspace_decoder(char32_t replacement, PrependScheme scheme) {
  return std::make_shared<MetaspaceDecoder>(replacement, scheme);
}
DecoderPtr make_wordpiece_decoder(const std::string& prefix, bool cleanup) {
  return std::make_shared<WordPieceDecoder>(prefix, cleanup);
}
DecoderPtr make_bpe_suffix_decoder(const std::string& suffix) { return std::make_shared<BpeSuffixDecoder>(suffix); }

}  // namespace tfp
