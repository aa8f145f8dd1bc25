// tokenizer.json's normalizer / pre_tokenizer / decoder / post_processor objects ->
// pipeline steps. See pipeline_json.h.
#include "tokenizer/pipeline_json.h"

#include <map>

#include "io/json_excerpt.h"
#include "tokenizer/precompiled.h"
#include "tokenizer/unicode.h"

namespace tfp {

using nlohmann::json;

char32_t JsonReader::one_char(const json& obj, const char* key, const std::string& where) const {
  const std::string s = str(obj, key, where);
  std::u32string cps;
  try {
    cps = unicode::to_u32(s);
  } catch (const Error&) {
    TFP_FAIL(source, ": ", where, ".", key, " is not valid UTF-8");
  }
  TFP_CHECK(cps.size() == 1, source, ": ", where, ".", key, " \"", io::text_excerpt(s), "\" is not exactly one character");
  return cps[0];
}

namespace {

std::string at(const std::string& where, const char* key, size_t i) {
  return where + "." + key + "[" + std::to_string(i) + "]";
}

// {"String": "..."} or {"Regex": "..."}
TextPattern read_pattern(const JsonReader& r, const json& obj, const std::string& where) {
  const json& p = r.field(obj, "pattern", where);
  const std::string w = where + ".pattern";
  TFP_CHECK(p.is_object() && p.size() == 1, r.source, ": ", w, " is not {\"String\": ...} or {\"Regex\": ...}");
  if (p.contains("String")) {
    const std::string s = r.str(p, "String", w);
    try {
      return TextPattern::literal(s);
    } catch (const Error&) {
      TFP_FAIL(r.source, ": ", w, ".String is not valid UTF-8");
    }
  }
  if (p.contains("Regex")) {
    const std::string s = r.str(p, "Regex", w);
    try {
      return TextPattern::regex(s);
    } catch (const Error& e) {
      TFP_FAIL(r.source, ": ", w, ".Regex: ", e.what());
    }
  }
  TFP_FAIL(r.source, ": ", w, " is not {\"String\": ...} or {\"Regex\": ...}");
}

SplitBehavior read_behavior(const JsonReader& r, const json& obj, const std::string& where, const char* fallback) {
  const std::string b = r.opt_str(obj, "behavior", fallback, where);
  if (b == "Removed") return SplitBehavior::Removed;
  if (b == "Isolated") return SplitBehavior::Isolated;
  if (b == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (b == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (b == "Contiguous") return SplitBehavior::Contiguous;
  TFP_FAIL(r.source, ": ", where, ".behavior \"", io::text_excerpt(b),
           "\" is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

// prepend_scheme ("always" | "first" | "never"); older files have add_prefix_space.
PrependScheme read_prepend_scheme(const JsonReader& r, const json& obj, const std::string& where) {
  auto it = obj.find("prepend_scheme");
  if (it == obj.end() || it->is_null())
    return r.flag(obj, "add_prefix_space", true, where) ? PrependScheme::Always : PrependScheme::Never;
  const std::string s = r.str(obj, "prepend_scheme", where);
  if (s == "always") return PrependScheme::Always;
  if (s == "first") return PrependScheme::First;
  if (s == "never") return PrependScheme::Never;
  TFP_FAIL(r.source, ": ", where, ".prepend_scheme \"", io::text_excerpt(s), "\" is not one of always, first, never");
}

}  // namespace

NormalizerPtr read_normalizer(const JsonReader& r, const json& j, const std::string& where) {
  const std::string type = r.type_of(j, where);
  if (type == "Sequence") {
    std::vector<NormalizerPtr> steps;
    const json& list = r.array(j, "normalizers", where);
    for (size_t i = 0; i < list.size(); ++i) steps.push_back(read_normalizer(r, list[i], at(where, "normalizers", i)));
    return make_sequence_normalizer(std::move(steps));
  }
  if (type == "Prepend") return make_prepend_normalizer(r.str(j, "prepend", where));
  if (type == "Replace") return make_replace_normalizer(read_pattern(r, j, where), r.str(j, "content", where));
  if (type == "NFC") return make_normal_form_normalizer(NormalForm::NFC);
  if (type == "NFD") return make_normal_form_normalizer(NormalForm::NFD);
  if (type == "NFKC") return make_normal_form_normalizer(NormalForm::NFKC);
  if (type == "NFKD") return make_normal_form_normalizer(NormalForm::NFKD);
  if (type == "Strip")
    return make_strip_normalizer(r.flag(j, "strip_left", true, where), r.flag(j, "strip_right", true, where));
  if (type == "Lowercase") return make_lowercase_normalizer();
  if (type == "StripAccents") return make_strip_accents_normalizer();
  if (type == "BertNormalizer") {
    BertNormalizerOptions o;
    o.clean_text = r.flag(j, "clean_text", true, where);
    o.handle_chinese_chars = r.flag(j, "handle_chinese_chars", true, where);
    o.lowercase = r.flag(j, "lowercase", true, where);
    if (auto s = j.find("strip_accents"); s != j.end() && !s->is_null())
      o.strip_accents = r.flag(j, "strip_accents", false, where);
    return make_bert_normalizer(o);
  }
  if (type == "Precompiled") {
    // An empty or null charsmap changes nothing (HF keeps the text as it is).
    const std::string b64 = r.opt_str(j, "precompiled_charsmap", "", where);
    if (b64.empty()) return make_sequence_normalizer({});
    try {
      return make_precompiled_normalizer(base64_decode(b64));
    } catch (const Error& e) {
      TFP_FAIL(r.source, ": ", where, ".precompiled_charsmap: ", e.what());
    }
  }
  TFP_FAIL(r.source, ": unsupported normalizer type \"", io::text_excerpt(type), "\" at ", where,
           " (supported: Sequence, Prepend, Replace, NFC, NFD, NFKC, NFKD, Strip, Lowercase, StripAccents, "
           "BertNormalizer, Precompiled)");
}

PreTokenizerPtr read_pre_tokenizer(const JsonReader& r, const json& j, const std::string& where) {
  const std::string type = r.type_of(j, where);
  if (type == "Sequence") {
    std::vector<PreTokenizerPtr> steps;
    const json& list = r.array(j, "pretokenizers", where);
    for (size_t i = 0; i < list.size(); ++i)
      steps.push_back(read_pre_tokenizer(r, list[i], at(where, "pretokenizers", i)));
    return make_sequence_pre_tokenizer(std::move(steps));
  }
  if (type == "Split")
    return make_split_pre_tokenizer(read_pattern(r, j, where), read_behavior(r, j, where, "Isolated"),
                                    r.flag(j, "invert", false, where));
  if (type == "ByteLevel")
    return make_byte_level_pre_tokenizer(r.flag(j, "add_prefix_space", false, where),
                                         r.flag(j, "use_regex", true, where));
  if (type == "Metaspace")
    return make_metaspace_pre_tokenizer(r.one_char(j, "replacement", where), read_prepend_scheme(r, j, where),
                                        r.flag(j, "split", true, where));
  if (type == "Digits") return make_digits_pre_tokenizer(r.flag(j, "individual_digits", false, where));
  if (type == "Whitespace") return make_whitespace_pre_tokenizer();
  if (type == "WhitespaceSplit") return make_whitespace_split_pre_tokenizer();
  if (type == "Punctuation") return make_punctuation_pre_tokenizer(read_behavior(r, j, where, "Isolated"));
  if (type == "BertPreTokenizer") return make_bert_pre_tokenizer();
  if (type == "CharDelimiterSplit") return make_char_delimiter_pre_tokenizer(r.one_char(j, "delimiter", where));
  TFP_FAIL(r.source, ": unsupported pre_tokenizer type \"", io::text_excerpt(type), "\" at ", where,
           " (supported: Sequence, Split, ByteLevel, Metaspace, Digits, Whitespace, WhitespaceSplit, Punctuation, "
           "BertPreTokenizer, CharDelimiterSplit)");
}

DecoderPtr read_decoder(const JsonReader& r, const json& j, const std::string& where) {
  const std::string type = r.type_of(j, where);
  if (type == "Sequence") {
    std::vector<DecoderPtr> steps;
    const json& list = r.array(j, "decoders", where);
    for (size_t i = 0; i < list.size(); ++i) steps.push_back(read_decoder(r, list[i], at(where, "decoders", i)));
    return make_sequence_decoder(std::move(steps));
  }
  if (type == "ByteLevel") return make_byte_level_decoder();
  if (type == "ByteFallback") return make_byte_fallback_decoder();
  if (type == "Replace") return make_replace_decoder(read_pattern(r, j, where), r.str(j, "content", where));
  if (type == "Fuse") return make_fuse_decoder();
  if (type == "Strip")
    return make_strip_decoder(r.one_char(j, "content", where), r.count(j, "start", 0, where),
                              r.count(j, "stop", 0, where));
  if (type == "Metaspace")
    return make_metaspace_decoder(r.one_char(j, "replacement", where), read_prepend_scheme(r, j, where));
  if (type == "WordPiece")
    return make_wordpiece_decoder(r.opt_str(j, "prefix", "##", where), r.flag(j, "cleanup", true, where));
  if (type == "BPEDecoder") return make_bpe_suffix_decoder(r.opt_str(j, "suffix", "</w>", where));
  TFP_FAIL(r.source, ": unsupported decoder type \"", io::text_excerpt(type), "\" at ", where,
           " (supported: Sequence, ByteLevel, ByteFallback, Replace, Fuse, Strip, Metaspace, WordPiece, BPEDecoder)");
}

void read_post_processor(const JsonReader& r, const json& j, const std::string& where,
                         std::vector<std::string>& prefix, std::vector<std::string>& suffix) {
  // Room for the tokens this processor adds: all processors of a Sequence together add at
  // most kMaxPostProcessorTokens, checked before each piece's tokens are copied.
  auto make_room = [&](size_t n, const std::string& w) {
    const size_t have = prefix.size() + suffix.size();
    TFP_CHECK(n <= kMaxPostProcessorTokens - have, r.source, ": ", w, " makes the post-processor add ", have,
              " + ", n, " special tokens around every text: at most ", kMaxPostProcessorTokens, " are supported");
  };
  const std::string type = r.type_of(j, where);
  if (type == "Sequence") {
    const json& list = r.array(j, "processors", where);
    for (size_t i = 0; i < list.size(); ++i) read_post_processor(r, list[i], at(where, "processors", i), prefix, suffix);
  } else if (type == "BertProcessing" || type == "RobertaProcessing") {
    for (auto [key, list] : {std::pair{"cls", &prefix}, std::pair{"sep", &suffix}}) {
      const json& pair = r.field(j, key, where);
      TFP_CHECK(pair.is_array() && pair.size() == 2 && pair[0].is_string(), r.source, ": ", where, ".", key,
                " is not [token, id]");
      make_room(1, where + "." + key);
      list->push_back(pair[0].get<std::string>());
    }
  } else if (type == "TemplateProcessing") {
    const json& single = r.array(j, "single", where);
    const json* specials = nullptr;
    if (auto it = j.find("special_tokens"); it != j.end() && it->is_object()) specials = &*it;
    // special_tokens maps a template name to the token strings it stands for; each entry is
    // read once, however many pieces name it (8,192 pieces naming one entry of 8,193 tokens
    // used to read it 8,192 times, and copy 67 million strings before the bound above).
    std::map<std::string, std::vector<std::string>, std::less<>> expansions;
    auto expansion = [&](const std::string& name) -> const std::vector<std::string>* {
      if (auto e = expansions.find(name); e != expansions.end()) return &e->second;
      if (!specials || !specials->contains(name)) return nullptr;
      const std::string ew = where + ".special_tokens." + io::text_excerpt(name);
      const json& toks = r.array((*specials)[name], "tokens", ew);
      make_room(toks.size(), ew + ".tokens");  // before copying them
      std::vector<std::string> list;
      list.reserve(toks.size());
      for (const json& t : toks) {
        TFP_CHECK(t.is_string(), r.source, ": ", ew, ".tokens has a non-string");
        list.push_back(t.get<std::string>());
      }
      return &expansions.emplace(name, std::move(list)).first->second;
    };
    bool seen_sequence = false;
    for (size_t i = 0; i < single.size(); ++i) {
      const json& piece = single[i];
      const std::string w = at(where, "single", i);
      if (piece.is_object() && piece.contains("Sequence")) {
        TFP_CHECK(!seen_sequence, r.source, ": ", w, " is a second Sequence (pair templates are not supported)");
        seen_sequence = true;
        continue;
      }
      TFP_CHECK(piece.is_object() && piece.contains("SpecialToken"), r.source, ": ", w,
                " is neither Sequence nor SpecialToken");
      const std::string tok = r.str(piece["SpecialToken"], "id", w + ".SpecialToken");
      std::vector<std::string>& list = seen_sequence ? suffix : prefix;
      if (const std::vector<std::string>* toks = expansion(tok)) {
        make_room(toks->size(), w);
        list.insert(list.end(), toks->begin(), toks->end());
      } else {
        make_room(1, w);
        list.push_back(tok);
      }
    }
    TFP_CHECK(seen_sequence, r.source, ": ", where, ".single has no Sequence");
  } else if (type != "ByteLevel") {  // ByteLevel only trims offsets, which we do not do
    TFP_FAIL(r.source, ": unsupported post_processor type \"", io::text_excerpt(type), "\" at ", where,
             " (supported: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence)");
  }
}

}  // namespace tfp
