// The Tokenizer pipeline: added tokens -> normalizer -> pre-tokenizer -> model ->
// post-processor, and decode back. See tokenizer.h for the stages and offsets.
#include "tokenizer/tokenizer.h"

#include <algorithm>

#include "core/error.h"
#include "io/json_excerpt.h"

namespace tfp {

namespace {

// The simple PipelineConfig fields as pipeline steps (where the general ones are unset).
void build_steps(PipelineConfig& c) {
  if (!c.normalizer && c.bert_normalizer) c.normalizer = make_bert_normalizer(*c.bert_normalizer);
  if (!c.pre_tokenizer_steps) {
    switch (c.pre_tokenizer) {
      case PreTokenizerKind::None: break;
      case PreTokenizerKind::ByteLevel:
        c.pre_tokenizer_steps = make_byte_level_pre_tokenizer(c.add_prefix_space, /*use_regex=*/true);
        break;
      case PreTokenizerKind::Bert: c.pre_tokenizer_steps = make_bert_pre_tokenizer(); break;
    }
  }
  if (!c.decoder_steps) {
    switch (c.decoder) {
      case DecoderKind::None: break;
      case DecoderKind::ByteLevel: c.decoder_steps = make_byte_level_decoder(); break;
      case DecoderKind::WordPiece:
        c.decoder_steps = make_wordpiece_decoder(c.wordpiece_prefix, c.wordpiece_cleanup);
        break;
      case DecoderKind::Fuse: c.decoder_steps = make_fuse_decoder(); break;
    }
  }
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Model> model, PipelineConfig config, std::vector<AddedToken> added)
    : model_(std::move(model)), config_(std::move(config)), added_(std::move(added)) {
  TFP_CHECK(model_ != nullptr, "tokenizer: no model");
  build_steps(config_);
  for (size_t i = 0; i < added_.size(); ++i) {
    const AddedToken& t = added_[i];
    TFP_CHECK(!t.content.empty(), "tokenizer: added token ", t.id, " has empty content");
    std::u32string content = unicode::to_u32(t.content);  // must be valid UTF-8
    added_index_by_id_[t.id] = i;
    added_index_by_content_[t.content] = i;
    const AddedTokenRules rules{t.single_word, t.lstrip, t.rstrip};
    if (t.normalized && config_.normalizer) {
      // Matched in normalised text, so its content is normalised the same way.
      NormalizedText n = identity_normalized(content);
      config_.normalizer->normalize(n);
      normalized_matcher_.add(n.cps, static_cast<int32_t>(i), rules);
    } else if (t.normalized) {
      normalized_matcher_.add(content, static_cast<int32_t>(i), rules);
    } else {
      raw_matcher_.add(content, static_cast<int32_t>(i), rules);
    }
  }
  for (const auto* list : {&config_.prefix_tokens, &config_.suffix_tokens})
    for (const std::string& tok : *list)
      TFP_CHECK(token_to_id(tok).has_value(), "tokenizer: post-processor token \"", io::text_excerpt(tok),
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
  special_.bos = find({"<|endoftext|>", "<s>", "<bos>", "[BOS]", "<|begin_of_text|>"});
  special_.eos = find({"<|endoftext|>", "</s>", "<eos>", "[EOS]", "<|end_of_text|>"});
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (auto it = added_index_by_content_.find(std::string(token)); it != added_index_by_content_.end())
    return added_[it->second].id;
  return model_->vocab().find(token);
}

const AddedToken* Tokenizer::added_by_id(int32_t id) const {
  auto it = added_index_by_id_.find(id);
  return it == added_index_by_id_.end() ? nullptr : &added_[it->second];
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
  std::u32string cps(chars.size(), 0);
  for (size_t i = 0; i < chars.size(); ++i) cps[i] = chars[i].cp;
  Encoding enc;

  // 1. Cut the text at added tokens; the stretches between them go through the model.
  size_t seg_start = 0;
  for (const AddedTokenMatcher::Match& m : raw_matcher_.find(cps)) {
    encode_segment(chars, cps, seg_start, m.begin, enc);
    emit_added(added_[static_cast<size_t>(m.token)], chars[m.begin].begin, chars[m.end - 1].end, enc);
    seg_start = m.end;
  }
  encode_segment(chars, cps, seg_start, chars.size(), enc);

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
  enc.offsets_utf16.reserve(enc.offsets.size());
  for (const Offset& o : enc.offsets) enc.offsets_utf16.push_back({utf16_at[o.begin], utf16_at[o.end]});
  return enc;
}

void Tokenizer::emit_added(const AddedToken& t, uint32_t begin, uint32_t end, Encoding& out) const {
  out.ids.push_back(t.id);
  out.tokens.push_back(t.content);
  out.offsets.push_back({begin, end});
  out.special_mask.push_back(1);
}

void Tokenizer::encode_segment(const std::vector<unicode::DecodedChar>& chars, const std::u32string& cps,
                               size_t first, size_t last, Encoding& out) const {
  if (first >= last) return;
  // Origins index the whole input (`chars`), so every later step can map back.
  NormalizedText norm = identity_normalized(cps.substr(first, last - first), static_cast<uint32_t>(first));
  if (config_.normalizer) config_.normalizer->normalize(norm);
  if (normalized_matcher_.empty()) {
    encode_pieces(chars, std::move(norm), out);
    return;
  }
  size_t p = 0;
  for (const AddedTokenMatcher::Match& m : normalized_matcher_.find(norm.cps)) {
    encode_pieces(chars, slice(norm, p, m.begin), out);
    emit_added(added_[static_cast<size_t>(m.token)], chars[norm.origin[m.begin]].begin,
               chars[norm.origin_last[m.end - 1]].end, out);
    p = m.end;
  }
  encode_pieces(chars, slice(norm, p, norm.cps.size()), out);
}

void Tokenizer::encode_pieces(const std::vector<unicode::DecodedChar>& chars, NormalizedText text,
                              Encoding& out) const {
  if (text.cps.empty()) return;
  std::vector<NormalizedText> pieces;
  pieces.push_back(std::move(text));
  if (config_.pre_tokenizer_steps) config_.pre_tokenizer_steps->pre_tokenize(pieces);

  std::string piece;
  std::vector<uint32_t> cp_of_byte;  // piece byte -> index into the piece's characters
  std::vector<ModelToken> toks;
  for (const NormalizedText& p : pieces) {
    piece.clear();
    cp_of_byte.clear();
    for (uint32_t k = 0; k < p.cps.size(); ++k) {
      const size_t before = piece.size();
      unicode::append_utf8(piece, p.cps[k]);
      cp_of_byte.insert(cp_of_byte.end(), piece.size() - before, k);
    }
    toks.clear();
    model_->tokenize(piece, toks);
    for (const ModelToken& t : toks) {
      // The token covers the piece's chars [cp_of_byte[begin], cp_of_byte[end-1]]; map
      // each back to its input chars and take the union of their byte spans. (A token
      // that holds only some bytes of a char thus gets the whole char.)
      uint32_t b = UINT32_MAX, e = 0;
      if (t.end > t.begin) {
        const uint32_t first = cp_of_byte[t.begin], last = cp_of_byte[t.end - 1];
        // Origins only go out of order inside a run of reordered combining marks, so a long
        // span (a fused unknown stretch, each of whose byte tokens covers all of it) needs
        // only its ends; walking it for every token would be quadratic.
        const uint32_t step = last - first < 16 ? 1 : std::max(1u, last - first);
        for (uint32_t k = first; k <= last; k += step) {
          b = std::min(b, chars[p.origin[k]].begin);
          e = std::max(e, chars[p.origin_last[k]].end);
        }
      } else {
        b = e = t.begin < cp_of_byte.size() ? chars[p.origin[cp_of_byte[t.begin]]].begin : chars[p.origin_last.back()].end;
      }
      out.ids.push_back(t.id);
      out.tokens.push_back(model_->vocab().token(t.id));
      out.offsets.push_back({b, e});
      out.special_mask.push_back(0);
    }
  }
}

// ---- decode -------------------------------------------------------------------------

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> toks;
  toks.reserve(ids.size());
  for (int32_t id : ids) {
    if (const AddedToken* added = added_by_id(id)) {
      if (!(added->special && skip_special_tokens)) toks.push_back(added->content);
      continue;
    }
    const std::string& t = model_->vocab().token(id);
    if (!t.empty()) toks.push_back(t);  // an id outside the vocab is dropped, as in HF
  }
  if (config_.decoder_steps) config_.decoder_steps->decode_chain(toks);
  else if (toks.size() > 1) {  // no decoder: HF joins with " "
    std::string out = toks[0];
    for (size_t i = 1; i < toks.size(); ++i) out += " " + toks[i];
    return out;
  }
  std::string out;
  for (const std::string& t : toks) out += t;
  return out;
}

}  // namespace tfp
