// tokenizer.json <-> Tokenizer. Parsed without exceptions; every field type-checked.
// See tokenizer_json.h for what is supported.
#include "tokenizer/tokenizer_json.h"

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "io/json_text.h"
#include "tokenizer/bpe.h"
#include "tokenizer/char_model.h"
#include "tokenizer/wordpiece.h"

namespace tfp {

using nlohmann::json;

namespace {

// Field readers: each checks the JSON type first (nlohmann's get<> would throw) and
// names the file and the field when something is wrong.
struct Reader {
  const std::string& source;

  const json& field(const json& obj, const char* key, const char* where) const {
    TFP_CHECK(obj.is_object(), source, ": ", where, " is not an object");
    auto it = obj.find(key);
    TFP_CHECK(it != obj.end(), source, ": ", where, " lacks \"", key, "\"");
    return *it;
  }
  std::string str(const json& obj, const char* key, const char* where) const {
    const json& v = field(obj, key, where);
    TFP_CHECK(v.is_string(), source, ": ", where, ".", key, " is not a string");
    return v.get<std::string>();
  }
  // Optional: missing or null gives `fallback`.
  bool flag(const json& obj, const char* key, bool fallback, const char* where) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    TFP_CHECK(it->is_boolean(), source, ": ", where, ".", key, " is not true/false");
    return it->get<bool>();
  }
  std::string opt_str(const json& obj, const char* key, const std::string& fallback, const char* where) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    TFP_CHECK(it->is_string(), source, ": ", where, ".", key, " is not a string");
    return it->get<std::string>();
  }
  int32_t id(const json& v, const char* where) const {
    TFP_CHECK(v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < (1LL << 31), source,
              ": ", where, " is not a valid token id");
    return static_cast<int32_t>(v.get<int64_t>());
  }
  std::string type_of(const json& obj, const char* where) const { return str(obj, "type", where); }

  Vocab vocab(const json& model) const {
    const json& v = field(model, "vocab", "model");
    TFP_CHECK(v.is_object(), source, ": model.vocab is not an object of token -> id");
    Vocab out;
    for (auto it = v.begin(); it != v.end(); ++it) out.add(it.key(), id(it.value(), "model.vocab value"));
    return out;
  }
};

std::unique_ptr<Model> read_model(const Reader& r, const json& m, PreTokenizerKind pre) {
  const std::string type = r.type_of(m, "model");
  if (type == "BPE") {
    TFP_CHECK(pre == PreTokenizerKind::ByteLevel, r.source,
              ": model BPE is supported only as byte-level BPE (pre_tokenizer ByteLevel)");
    for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
      TFP_CHECK(r.opt_str(m, k, "", "model").empty(), r.source, ": model.", k, " is not supported");
    TFP_CHECK(!r.flag(m, "byte_fallback", false, "model"), r.source, ": model.byte_fallback is not supported");
    auto d = m.find("dropout");
    TFP_CHECK(d == m.end() || d->is_null() || (d->is_number() && d->get<double>() == 0.0), r.source,
              ": model.dropout is not supported");
    const json& merges = r.field(m, "merges", "model");
    TFP_CHECK(merges.is_array(), r.source, ": model.merges is not an array");
    std::vector<BpeModel::Merge> list;
    list.reserve(merges.size());
    for (size_t i = 0; i < merges.size(); ++i) {
      const json& e = merges[i];
      if (e.is_string()) {  // "a b" (older files)
        const std::string s = e.get<std::string>();
        const size_t sp = s.find(' ');
        TFP_CHECK(sp != std::string::npos && sp > 0 && sp + 1 < s.size() && s.find(' ', sp + 1) == std::string::npos,
                  r.source, ": model.merges[", i, "] \"", s, "\" is not two tokens separated by one space");
        list.emplace_back(s.substr(0, sp), s.substr(sp + 1));
      } else {  // ["a", "b"] (newer files)
        TFP_CHECK(e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string(), r.source,
                  ": model.merges[", i, "] is neither \"a b\" nor [\"a\", \"b\"]");
        list.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
      }
    }
    return std::make_unique<BpeModel>(r.vocab(m), std::move(list));
  }
  if (type == "WordPiece") {
    size_t max_chars = 100;
    if (auto it = m.find("max_input_chars_per_word"); it != m.end() && !it->is_null()) {
      TFP_CHECK(it->is_number_unsigned(), r.source, ": model.max_input_chars_per_word is not a count");
      max_chars = it->get<size_t>();
    }
    return std::make_unique<WordPieceModel>(r.vocab(m), r.str(m, "unk_token", "model"),
                                            r.opt_str(m, "continuing_subword_prefix", "##", "model"), max_chars);
  }
  if (type == "Char") return std::make_unique<CharModel>(r.vocab(m), r.opt_str(m, "unk_token", "", "model"));
  TFP_FAIL(r.source, ": unsupported model type \"", type, "\" (supported: BPE, WordPiece, Char)");
}

void read_pipeline(const Reader& r, const json& j, PipelineConfig& cfg) {
  if (auto it = j.find("normalizer"); it != j.end() && !it->is_null()) {
    const std::string type = r.type_of(*it, "normalizer");
    TFP_CHECK(type == "BertNormalizer", r.source, ": unsupported normalizer type \"", type,
              "\" (supported: BertNormalizer)");
    BertNormalizerOptions o;
    o.clean_text = r.flag(*it, "clean_text", true, "normalizer");
    o.handle_chinese_chars = r.flag(*it, "handle_chinese_chars", true, "normalizer");
    o.lowercase = r.flag(*it, "lowercase", true, "normalizer");
    if (auto s = it->find("strip_accents"); s != it->end() && !s->is_null())
      o.strip_accents = r.flag(*it, "strip_accents", false, "normalizer");
    cfg.bert_normalizer = o;
  }
  if (auto it = j.find("pre_tokenizer"); it != j.end() && !it->is_null()) {
    const std::string type = r.type_of(*it, "pre_tokenizer");
    if (type == "ByteLevel") {
      cfg.pre_tokenizer = PreTokenizerKind::ByteLevel;
      cfg.add_prefix_space = r.flag(*it, "add_prefix_space", false, "pre_tokenizer");
      TFP_CHECK(r.flag(*it, "use_regex", true, "pre_tokenizer"), r.source,
                ": pre_tokenizer ByteLevel with use_regex false is not supported");
    } else if (type == "BertPreTokenizer") {
      cfg.pre_tokenizer = PreTokenizerKind::Bert;
    } else {
      TFP_FAIL(r.source, ": unsupported pre_tokenizer type \"", type, "\" (supported: ByteLevel, BertPreTokenizer)");
    }
  }
  if (auto it = j.find("post_processor"); it != j.end() && !it->is_null()) {
    const std::string type = r.type_of(*it, "post_processor");
    if (type == "BertProcessing") {
      for (auto [key, list] : {std::pair{"cls", &cfg.prefix_tokens}, std::pair{"sep", &cfg.suffix_tokens}}) {
        const json& pair = r.field(*it, key, "post_processor");
        TFP_CHECK(pair.is_array() && pair.size() == 2 && pair[0].is_string(), r.source, ": post_processor.", key,
                  " is not [token, id]");
        list->push_back(pair[0].get<std::string>());
      }
    } else if (type == "TemplateProcessing") {
      const json& single = r.field(*it, "single", "post_processor");
      TFP_CHECK(single.is_array(), r.source, ": post_processor.single is not an array");
      bool seen_sequence = false;
      for (const json& piece : single) {
        if (piece.is_object() && piece.contains("Sequence")) {
          seen_sequence = true;
        } else {
          TFP_CHECK(piece.is_object() && piece.contains("SpecialToken"), r.source,
                    ": post_processor.single has an item that is neither Sequence nor SpecialToken");
          const std::string tok = r.str(piece["SpecialToken"], "id", "post_processor SpecialToken");
          (seen_sequence ? cfg.suffix_tokens : cfg.prefix_tokens).push_back(tok);
        }
      }
      TFP_CHECK(seen_sequence, r.source, ": post_processor.single has no Sequence");
    } else if (type != "ByteLevel") {
      TFP_FAIL(r.source, ": unsupported post_processor type \"", type,
               "\" (supported: ByteLevel, BertProcessing, TemplateProcessing)");
    }
  }
  if (auto it = j.find("decoder"); it != j.end() && !it->is_null()) {
    const std::string type = r.type_of(*it, "decoder");
    if (type == "ByteLevel") {
      cfg.decoder = DecoderKind::ByteLevel;
    } else if (type == "WordPiece") {
      cfg.decoder = DecoderKind::WordPiece;
      cfg.wordpiece_prefix = r.opt_str(*it, "prefix", "##", "decoder");
      cfg.wordpiece_cleanup = r.flag(*it, "cleanup", true, "decoder");
    } else if (type == "Fuse") {
      cfg.decoder = DecoderKind::Fuse;
    } else {
      TFP_FAIL(r.source, ": unsupported decoder type \"", type, "\" (supported: ByteLevel, WordPiece, Fuse)");
    }
  }
}

std::vector<AddedToken> read_added(const Reader& r, const json& j) {
  std::vector<AddedToken> added;
  auto it = j.find("added_tokens");
  if (it == j.end() || it->is_null()) return added;
  TFP_CHECK(it->is_array(), r.source, ": added_tokens is not an array");
  for (const json& t : *it) {
    AddedToken a{r.id(r.field(t, "id", "added_tokens[]"), "added_tokens[].id"), r.str(t, "content", "added_tokens[]"),
                 r.flag(t, "special", false, "added_tokens[]")};
    for (const char* k : {"lstrip", "rstrip", "single_word"})
      TFP_CHECK(!r.flag(t, k, false, "added_tokens[]"), r.source, ": added token \"", a.content, "\" sets ", k,
                ", which is not supported");
    added.push_back(std::move(a));
  }
  return added;
}

}  // namespace

Tokenizer load_tokenizer_json(std::string_view text, const std::string& source) {
  const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  TFP_CHECK(!j.is_discarded(), source, ": malformed JSON (", text.size(), " bytes) ", io::json_syntax_error(text));
  TFP_CHECK(j.is_object(), source, ": the top level is not a JSON object");
  const Reader r{source};
  PipelineConfig cfg;
  read_pipeline(r, j, cfg);
  std::unique_ptr<Model> model = read_model(r, r.field(j, "model", "the top level"), cfg.pre_tokenizer);
  return Tokenizer(std::move(model), std::move(cfg), read_added(r, j));
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
    added.push_back({{"id", a.id}, {"content", a.content}, {"single_word", false}, {"lstrip", false},
                     {"rstrip", false}, {"normalized", false}, {"special", a.special}});
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
  j["model"] = tok.model().to_json();
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tfp
