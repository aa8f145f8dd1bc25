// tokenizer.json <-> Tokenizer. Parsed without exceptions; every field type-checked.
// See tokenizer_json.h for what is supported.
#include "tokenizer/tokenizer_json.h"

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "io/json_depth.h"
#include "io/json_excerpt.h"
#include "io/json_text.h"
#include "tokenizer/bpe.h"
#include "tokenizer/char_model.h"
#include "tokenizer/json_reader.h"
#include "tokenizer/pipeline_json.h"
#include "tokenizer/unigram.h"
#include "tokenizer/word_level.h"
#include "tokenizer/wordpiece.h"

namespace tfp {

using nlohmann::json;

namespace {

// Builds a model; an Error from its constructor (which does not know the file) gets the
// file's name in front, once: one that already starts with it is passed on as it is.
template <typename Make>
std::unique_ptr<Model> named(const JsonReader& r, Make&& make) {
  try {
    return make();
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.starts_with(r.source + ": ")) throw;
    TFP_FAIL(r.source, ": ", what);
  }
}

Vocab read_vocab(const JsonReader& r, const json& model) {
  const json& v = r.field(model, "vocab", "model");
  TFP_CHECK(v.is_object(), r.source, ": model.vocab is not an object of token -> id");
  Vocab out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const json& id = it.value();
    // Vocab::add sizes its id -> token table by the id: r.id refuses one beyond the file.
    out.add(it.key(), r.valid_id(id) ? static_cast<int32_t>(id.get<uint64_t>())
                                     : r.id(id, "model.vocab[\"" + io::text_excerpt(it.key()) + "\"]"));
  }
  return out;
}

std::unique_ptr<Model> read_bpe(const JsonReader& r, const json& m) {
  auto d = m.find("dropout");
  TFP_CHECK(d == m.end() || d->is_null() || (d->is_number() && d->get<double>() == 0.0), r.source,
            ": model.dropout is not supported (BPE dropout is for training)");
  BpeOptions o;
  o.unk_token = r.opt_str(m, "unk_token", "", "model");
  o.fuse_unk = r.flag(m, "fuse_unk", false, "model");
  o.byte_fallback = r.flag(m, "byte_fallback", false, "model");
  o.ignore_merges = r.flag(m, "ignore_merges", false, "model");
  o.continuing_subword_prefix = r.opt_str(m, "continuing_subword_prefix", "", "model");
  o.end_of_word_suffix = r.opt_str(m, "end_of_word_suffix", "", "model");
  const json& merges = r.array(m, "merges", "model");
  std::vector<BpeModel::Merge> list;
  list.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const json& e = merges[i];
    if (e.is_string()) {  // "a b" (older files)
      const std::string& s = e.get_ref<const std::string&>();
      const size_t sp = s.find(' ');
      TFP_CHECK(sp != std::string::npos && sp > 0 && sp + 1 < s.size() && s.find(' ', sp + 1) == std::string::npos,
                r.source, ": model.merges[", i, "] \"", io::text_excerpt(s), "\" is not two tokens separated by one space");
      list.emplace_back(s.substr(0, sp), s.substr(sp + 1));
    } else {  // ["a", "b"] (newer files)
      TFP_CHECK(e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string(), r.source,
                ": model.merges[", i, "] is neither \"a b\" nor [\"a\", \"b\"]");
      list.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
    }
  }
  Vocab vocab = read_vocab(r, m);  // its messages name the file already
  return named(r, [&] { return std::make_unique<BpeModel>(std::move(vocab), std::move(list), std::move(o)); });
}

std::unique_ptr<Model> read_unigram(const JsonReader& r, const json& m) {
  const json& v = r.array(m, "vocab", "model");
  std::vector<std::pair<std::string, double>> pieces;
  pieces.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    TFP_CHECK(e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_number(), r.source, ": model.vocab[", i,
              "] is not [piece, score]");
    pieces.emplace_back(e[0].get<std::string>(), e[1].get<double>());
  }
  int32_t unk = -1;
  if (auto it = m.find("unk_id"); it != m.end() && !it->is_null()) unk = r.id(*it, "model.unk_id");
  const bool byte_fallback = r.flag(m, "byte_fallback", false, "model");
  return named(r, [&] { return std::make_unique<UnigramModel>(std::move(pieces), unk, byte_fallback); });
}

std::unique_ptr<Model> read_model(const JsonReader& r, const json& m) {
  const std::string type = r.type_of(m, "model");
  if (type == "BPE") return read_bpe(r, m);
  if (type == "Unigram") return read_unigram(r, m);
  // The fields are read (each message naming the file) before the model is built.
  if (type == "WordPiece") {
    const size_t max_chars = r.count(m, "max_input_chars_per_word", 100, "model");
    Vocab vocab = read_vocab(r, m);
    const std::string unk = r.str(m, "unk_token", "model");
    const std::string prefix = r.opt_str(m, "continuing_subword_prefix", "##", "model");
    return named(r, [&] { return std::make_unique<WordPieceModel>(std::move(vocab), unk, prefix, max_chars); });
  }
  if (type == "WordLevel") {
    Vocab vocab = read_vocab(r, m);
    const std::string unk = r.str(m, "unk_token", "model");
    return named(r, [&] { return std::make_unique<WordLevelModel>(std::move(vocab), unk); });
  }
  if (type == "Char") {
    Vocab vocab = read_vocab(r, m);
    const std::string unk = r.opt_str(m, "unk_token", "", "model");
    return named(r, [&] { return std::make_unique<CharModel>(std::move(vocab), unk); });
  }
  TFP_FAIL(r.source, ": unsupported model type \"", io::text_excerpt(type), "\" (supported: BPE, Unigram, WordPiece, WordLevel, Char)");
}

void read_pipeline(const JsonReader& r, const json& j, PipelineConfig& cfg) {
  cfg.source = json::object();
  for (const char* key : {"normalizer", "pre_tokenizer", "post_processor", "decoder"}) {
    auto it = j.find(key);
    cfg.source[key] = it == j.end() ? json(nullptr) : *it;
    if (it == j.end() || it->is_null()) continue;
    const std::string k = key;
    if (k == "normalizer") cfg.normalizer = read_normalizer(r, *it, key);
    else if (k == "pre_tokenizer") cfg.pre_tokenizer_steps = read_pre_tokenizer(r, *it, key);
    else if (k == "decoder") cfg.decoder_steps = read_decoder(r, *it, key);
    else read_post_processor(r, *it, key, cfg.prefix_tokens, cfg.suffix_tokens);
  }
}

std::vector<AddedToken> read_added(const JsonReader& r, const json& j) {
  std::vector<AddedToken> added;
  auto it = j.find("added_tokens");
  if (it == j.end() || it->is_null()) return added;
  TFP_CHECK(it->is_array(), r.source, ": added_tokens is not an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& t = (*it)[i];
    const std::string w = "added_tokens[" + std::to_string(i) + "]";
    AddedToken a{r.id(r.field(t, "id", w), w + ".id"), r.str(t, "content", w), r.flag(t, "special", false, w)};
    a.lstrip = r.flag(t, "lstrip", false, w);
    a.rstrip = r.flag(t, "rstrip", false, w);
    a.single_word = r.flag(t, "single_word", false, w);
    a.normalized = r.flag(t, "normalized", !a.special, w);
    added.push_back(std::move(a));
  }
  return added;
}

}  // namespace

Tokenizer load_tokenizer_json(std::string_view text, const std::string& source) {
  io::check_json_depth(text, source);
  const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  TFP_CHECK(!j.is_discarded(), source, ": malformed JSON (", text.size(), " bytes) ", io::json_syntax_error(text));
  TFP_CHECK(j.is_object(), source, ": the top level is not a JSON object");
  JsonReader r{source};
  // What the file holds bounds every token id it gives (JsonReader::id), before any is read.
  if (auto m = j.find("model"); m != j.end() && m->is_object())
    if (auto v = m->find("vocab"); v != m->end() && v->is_structured()) r.vocab_entries = v->size();
  if (auto a = j.find("added_tokens"); a != j.end() && a->is_array()) r.added_entries = a->size();
  PipelineConfig cfg;
  read_pipeline(r, j, cfg);
  std::unique_ptr<Model> model = read_model(r, r.field(j, "model", "the top level"));
  try {
    return Tokenizer(std::move(model), std::move(cfg), read_added(r, j));
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.starts_with(source)) throw;
    TFP_FAIL(source, ": ", what);
  }
}

Tokenizer load_tokenizer_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TFP_CHECK(in.good(), "tokenizer: cannot open ", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_tokenizer_json(ss.str(), path);
}

// ---- writer ---------------------------------------------------------------------------

std::string to_tokenizer_json(const Tokenizer& tok) {
  const PipelineConfig& cfg = tok.config();
  json j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  json added = json::array();
  for (const AddedToken& a : tok.added_tokens())
    added.push_back({{"id", a.id}, {"content", a.content}, {"single_word", a.single_word}, {"lstrip", a.lstrip},
                     {"rstrip", a.rstrip}, {"normalized", a.normalized}, {"special", a.special}});
  j["added_tokens"] = added;

  j["normalizer"] = nullptr;
  if (const auto& n = cfg.bert_normalizer) {
    j["normalizer"] = {{"type", "BertNormalizer"}, {"clean_text", n->clean_text},
                       {"handle_chinese_chars", n->handle_chinese_chars}, {"lowercase", n->lowercase}};
    j["normalizer"]["strip_accents"] = n->strip_accents ? json(*n->strip_accents) : json(nullptr);
  }
  switch (cfg.pre_tokenizer) {
    case PreTokenizerKind::None: j["pre_tokenizer"] = nullptr; break;
    case PreTokenizerKind::ByteLevel:
      j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", cfg.add_prefix_space},
                            {"trim_offsets", true}, {"use_regex", true}};
      break;
    case PreTokenizerKind::Bert: j["pre_tokenizer"] = {{"type", "BertPreTokenizer"}}; break;
  }
  j["post_processor"] = nullptr;
  if (!cfg.prefix_tokens.empty() || !cfg.suffix_tokens.empty()) {
    json single = json::array(), specials = json::object();
    auto special = [&](const std::string& t) {
      single.push_back({{"SpecialToken", {{"id", t}, {"type_id", 0}}}});
      specials[t] = {{"id", t}, {"ids", {*tok.token_to_id(t)}}, {"tokens", {t}}};
    };
    for (const std::string& t : cfg.prefix_tokens) special(t);
    single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
    for (const std::string& t : cfg.suffix_tokens) special(t);
    j["post_processor"] = {{"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", specials}};
  }
  switch (cfg.decoder) {
    case DecoderKind::None: j["decoder"] = nullptr; break;
    case DecoderKind::ByteLevel:
      j["decoder"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
      break;
    case DecoderKind::WordPiece:
      j["decoder"] = {{"type", "WordPiece"}, {"prefix", cfg.wordpiece_prefix}, {"cleanup", cfg.wordpiece_cleanup}};
      break;
    case DecoderKind::Fuse: j["decoder"] = {{"type", "Fuse"}}; break;
  }
  // A loaded file's pipeline objects go back as they were.
  if (cfg.source.is_object())
    for (const auto& [key, value] : cfg.source.items()) j[key] = value;
  j["model"] = tok.model().to_json();
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tfp
