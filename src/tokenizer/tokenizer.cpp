// The Tokenizer pipeline: added tokens -> normaliser -> pre-tokeniser -> model ->
// post-processor, and decode back. See tokenizer.h for the stages and offsets.
#include "tokenizer/tokenizer.h"

#include <algorithm>

#include "core/error.h"
#include "tokenizer/bpe.h"
#include "tokenizer/pretokenize.h"

namespace tfp {

Tokenizer::Tokenizer(std::unique_ptr<Model> model, PipelineConfig config,
                     std::vector<AddedToken> added)
    : model_(std::move(model)), config_(std::move(config)), added_(std::move(added)) {
  TFP_CHECK(model_ != nullptr, "tokenizer: no model");
  for (const AddedToken& t : added_) {
    TFP_CHECK(!t.content.empty(), "tokenizer: added token ", t.id, " has empty content");
    unicode::decode_utf8(t.content);  // must be valid UTF-8 to match at char boundaries
    by_length_.push_back(&t);
  }
  // Longest first: "<|endoftext|>" must win over a hypothetical "<|".
  std::stable_sort(by_length_.begin(), by_length_.end(),
                   [](const AddedToken* a, const AddedToken* b) { return a->content.size() > b->content.size(); });
  for (const auto* list : {&config_.prefix_tokens, &config_.suffix_tokens})
    for (const std::string& tok : *list)
      TFP_CHECK(token_to_id(tok).has_value(), "tokenizer: post-processor token \"", tok,
                "\" is not in the vocab");

  auto find = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (auto id = token_to_id(n)) return *id;
    return -1;
  };
  special_.unk = find({"[UNK]", "<unk>", "<|unk|>"});
  special_.pad = find({"[PAD]", "<pad>", "<|pad|>"});
  special_.cls = find({"[CLS]", "<cls>"});
  special_.sep = find({"[SEP]", "<sep>"});
  special_.mask = find({"[MASK]", "<mask>"});
  special_.bos = find({"<|endoftext|>", "<s>", "<bos>", "[BOS]"});
  special_.eos = find({"<|endoftext|>", "</s>", "<eos>", "[EOS]"});
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& t : added_)
    if (t.content == token) return t.id;
  return model_->vocab().find(token);
}

const AddedToken* Tokenizer::added_by_id(int32_t id) const {
  for (const AddedToken& t : added_)
    if (t.id == id) return &t;
  return nullptr;
}

std::string Tokenizer::id_to_token(int32_t id) const {
  if (const AddedToken* t = added_by_id(id)) return t->content;
  return model_->vocab().token(id);
}

size_t Tokenizer::vocab_size() const {
  size_t n = model_->vocab().size();
  for (const AddedToken& t : added_) n = std::max(n, static_cast<size_t>(t.id) + 1);
  return n;
}

// ---- encode -------------------------------------------------------------------------

Encoding Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  const std::vector<unicode::DecodedChar> chars = unicode::decode_utf8(text);  // may throw
  Encoding enc;

  // 1. Cut the text at added tokens; the stretches between them go through the model.
  size_t seg_start = 0;
  for (size_t i = 0; i < chars.size();) {
    const AddedToken* hit = nullptr;
    for (const AddedToken* t : by_length_) {
      if (text.substr(chars[i].begin).starts_with(t->content)) {
        hit = t;
        break;
      }
    }
    if (!hit) {
      ++i;
      continue;
    }
    encode_segment(chars, seg_start, i, enc);
    const uint32_t b = chars[i].begin, e = b + static_cast<uint32_t>(hit->content.size());
    enc.ids.push_back(hit->id);
    enc.tokens.push_back(hit->content);
    enc.offsets.push_back({b, e});
    enc.special_mask.push_back(1);
    while (i < chars.size() && chars[i].begin < e) ++i;
    seg_start = i;
  }
  encode_segment(chars, seg_start, chars.size(), enc);

  // 2. Post-processor: [CLS] ... [SEP] (empty spans: they are not in the text).
  if (add_special_tokens && (!config_.prefix_tokens.empty() || !config_.suffix_tokens.empty())) {
    Encoding full;
    auto add_special = [&](const std::string& tok) {
      full.ids.push_back(*token_to_id(tok));
      full.tokens.push_back(tok);
      full.offsets.push_back({0, 0});
      full.special_mask.push_back(1);
    };
    for (const std::string& tok : config_.prefix_tokens) add_special(tok);
    full.ids.insert(full.ids.end(), enc.ids.begin(), enc.ids.end());
    full.tokens.insert(full.tokens.end(), enc.tokens.begin(), enc.tokens.end());
    full.offsets.insert(full.offsets.end(), enc.offsets.begin(), enc.offsets.end());
    full.special_mask.insert(full.special_mask.end(), enc.special_mask.begin(), enc.special_mask.end());
    for (const std::string& tok : config_.suffix_tokens) add_special(tok);
    enc = std::move(full);
  }

  // 3. Byte offsets -> UTF-16 offsets: count UTF-16 units up to every char boundary.
  std::vector<uint32_t> utf16_at(text.size() + 1, 0);
  uint32_t units = 0;
  for (const unicode::DecodedChar& c : chars) {
    utf16_at[c.begin] = units;
    units += unicode::utf16_units(c.cp);
  }
  utf16_at[text.size()] = units;
  for (const Offset& o : enc.offsets) enc.offsets_utf16.push_back({utf16_at[o.begin], utf16_at[o.end]});
  return enc;
}

void Tokenizer::encode_segment(const std::vector<unicode::DecodedChar>& chars, size_t first,
                               size_t last, Encoding& out) const {
  if (first >= last) return;
  std::u32string input;
  for (size_t i = first; i < last; ++i) input.push_back(chars[i].cp);

  // Normalise; origin[] then indexes `input`.
  NormalizedText norm = config_.bert_normalizer ? bert_normalize(input, *config_.bert_normalizer)
                                                : identity_normalized(input);
  if (config_.pre_tokenizer == PreTokenizerKind::ByteLevel && config_.add_prefix_space &&
      !norm.cps.empty() && norm.cps[0] != U' ') {
    norm.cps.insert(norm.cps.begin(), U' ');
    norm.origin.insert(norm.origin.begin(), norm.origin[0]);
    norm.origin_last.insert(norm.origin_last.begin(), norm.origin[0]);
  }

  std::vector<PieceSpan> pieces;
  switch (config_.pre_tokenizer) {
    case PreTokenizerKind::ByteLevel: pieces = split_gpt2(norm.cps); break;
    case PreTokenizerKind::Bert: pieces = split_bert(norm.cps); break;
    case PreTokenizerKind::None:
      if (!norm.cps.empty()) pieces.emplace_back(0u, static_cast<uint32_t>(norm.cps.size()));
      break;
  }

  std::string piece;
  std::vector<uint32_t> cp_of_byte;  // piece byte -> index into norm.cps
  std::vector<ModelToken> toks;
  for (const auto& [pb, pe] : pieces) {
    piece.clear();
    cp_of_byte.clear();
    for (uint32_t k = pb; k < pe; ++k) {
      const size_t before = piece.size();
      unicode::append_utf8(piece, norm.cps[k]);
      cp_of_byte.insert(cp_of_byte.end(), piece.size() - before, k);
    }
    toks.clear();
    model_->tokenize(piece, toks);
    for (const ModelToken& t : toks) {
      // The token covers normalised chars [cp_of_byte[begin], cp_of_byte[end-1]]; map
      // each back to its input char and take the union of their byte spans. (A token
      // that holds only some bytes of a char thus gets the whole char.)
      uint32_t b = UINT32_MAX, e = 0;
      for (uint32_t k = cp_of_byte[t.begin]; k <= cp_of_byte[t.end - 1]; ++k) {
        b = std::min(b, chars[first + norm.origin[k]].begin);
        e = std::max(e, chars[first + norm.origin_last[k]].end);
      }
      out.ids.push_back(t.id);
      out.tokens.push_back(model_->vocab().token(t.id));
      out.offsets.push_back({b, e});
      out.special_mask.push_back(0);
    }
  }
}

// ---- decode -------------------------------------------------------------------------

namespace {

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

}  // namespace

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> toks;
  for (int32_t id : ids) {
    const AddedToken* added = added_by_id(id);
    if (added && added->special && skip_special_tokens) continue;
    toks.push_back(id_to_token(id));
  }
  std::string out;
  switch (config_.decoder) {
    case DecoderKind::ByteLevel: {
      // Each stand-in character is one byte; the bytes are then UTF-8 (or not: a
      // truncated sequence becomes U+FFFD). A token with a character outside the map
      // (an added token such as "<|endoftext|>" is fine: ASCII maps to itself) is
      // kept as its own UTF-8 bytes, as HF does.
      std::string bytes;
      for (const std::string& t : toks) {
        std::string mapped;
        bool ok = true;
        for (const unicode::DecodedChar& c : unicode::decode_utf8(t)) {
          const int b = byte_from_unicode(c.cp);
          if (b < 0) { ok = false; break; }
          mapped.push_back(static_cast<char>(b));
        }
        bytes += ok ? mapped : t;
      }
      return unicode::utf8_lossy(bytes);
    }
    case DecoderKind::WordPiece:
      for (size_t i = 0; i < toks.size(); ++i) {
        std::string t = toks[i];
        if (i != 0) {
          if (t.starts_with(config_.wordpiece_prefix)) t.erase(0, config_.wordpiece_prefix.size());
          else t = " " + t;
        }
        out += config_.wordpiece_cleanup ? cleanup(t) : t;
      }
      return out;
    case DecoderKind::Fuse:
      for (const std::string& t : toks) out += t;
      return out;
    case DecoderKind::None:
      for (size_t i = 0; i < toks.size(); ++i) out += (i ? " " : "") + toks[i];
      return out;
  }
  return out;
}

}  // namespace tfp
