// A structure-aware JSON mutator (issue 32), shared by the fuzz_json_* targets through
// libFuzzer's LLVMFuzzerCustomMutator. The byte mutations of the older targets start from
// small inputs and rarely keep JSON valid, so they never reached what real files break:
// a value nested 100,000 levels deep, n_layer 1,000,000, ids outside the vocabulary.
// This one parses the JSON part of an input with nlohmann::json (no exceptions; inputs
// nested deeper than kTreeDepth are not parsed), changes the tree one to four times and
// writes it back:
//   - a value's type changed (null, bool, numbers, strings, arrays, objects, wrapped);
//   - a value nested deeply (2 ... 100,000 levels of arrays / objects / both), written
//     as text by a loop (no tree, no recursion: the marker substitution below);
//   - a duplicate key (the same name twice in one object, also as text);
//   - huge, negative, fractional, overflowing numbers (1e309, 2^64, -1, 1.5, x*1000 ...);
//   - out-of-range ids: eos/bos/pad/decoder_start/unk/... set around the vocabulary's
//     size (vocab_size, +1, -1, 2^31, 1.5, [v], "v"), id2label keys outside it;
//   - a field dropped, a field added (names the families and tokenizer readers look for),
//     an array element replicated up to 10,000 times, a subtree copied elsewhere;
//   - long strings and keys (up to 300,000 bytes).
// Input that does not parse goes to LLVMFuzzerMutate (byte mutations of the JSON part
// only; the other files of a multi-file input are kept). The safetensors header variant
// also rewrites the 8-byte length and, one time in two, recomputes data_offsets from the
// mutated dtypes and shapes (tensor bytes zero-filled or cut), so the loader sees a file
// whose header is consistent with its data and goes on to bind the tensors.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_util.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace tfp::fuzz {

using MJson = nlohmann::ordered_json;  // keeps the file's key order

// Inputs nested deeper than this are mutated as bytes (nlohmann's dump recurses).
inline constexpr size_t kTreeDepth = 256;

// The deepest nesting of arrays and objects outside strings (a loop, no parse).
inline size_t scan_json_depth(std::string_view s) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Names and values the readers look for (fuzz/config.dict, fuzz/tokenizer_json.dict:
// string literals of src/model/config_json.cpp, family_*.cpp, tokenizer/*.cpp), and the
// id fields of config.json and tokenizer.json.
inline const std::vector<std::string>& json_words() {
  static const std::vector<std::string> words = {
    "BPE", "BPEDecoder", "BertNormalizer", "BertPreTokenizer", "BertProcessing", "ByteFallback", 
    "ByteLevel", "Char", "CharDelimiterSplit", "Contiguous", "Digits", "Fuse", "Isolated", "Lowercase", 
    "MergedWithNext", "MergedWithPrevious", "Metaspace", "NFC", "NFD", "NFKC", "NFKD", "Precompiled", 
    "Prepend", "Punctuation", "Regex", "Removed", "Replace", "RobertaProcessing", "Sequence", 
    "SpecialToken", "Split", "String", "Strip", "StripAccents", "TemplateProcessing", "Unigram", 
    "Whitespace", "WhitespaceSplit", "WordLevel", "WordPiece", "absolute", "activation", 
    "activation_function", "add_prefix_space", "added_tokens", "alibi", "always", 
    "apply_residual_connection_post_layernorm", "architecture", "attention_bias", "attention_layers", 
    "attention_types", "attn_logit_softcapping", "attn_scale", "attn_softcap", "base", "behavior", 
    "bert", "bloom", "byte_fallback", "clean_text", "cleanup", "cls", "content", 
    "continuing_subword_prefix", "d_ff", "d_kv", "d_model", "decoder", "decoder_final_norm", 
    "decoder_only", "decoder_start_token_id", "decoders", "default", "delimiter", "dim_feedforward", 
    "dropout", "embedding_norm", "embedding_scale", "encoder", "encoder_decoder", "encoder_final_norm", 
    "encoder_head", "encoder_only", "end_of_word_suffix", "eos_token_id", "factor", "false", "family", 
    "feed_forward_proj", "ffn_bias", "final_logit_softcapping", "final_norm", "final_softcap", "first", 
    "fraction", "full_attention", "fuse_unk", "fused_qkv", "gated_ffn", "gelu", "gelu_new", 
    "gelu_pytorch_tanh", "gemma", "gemma2", "gemma3_text", "global", "gpt2", "gpt_neo", "gpt_neox", 
    "handle_chinese_chars", "has_embeddings", "head_dim", "hidden_act", "hidden_activation", 
    "hidden_size", "high_freq_factor", "id2label", "ids", "ignore_merges", "individual_digits", 
    "interleaved", "intermediate_size", "invert", "is_decoder", "kind", "layer_norm", "layer_norm_eps", 
    "layer_norm_epsilon", "layer_types", "layer_windows", "learned", "learned_offset", "linear", 
    "llama", "llama3", "lm_head", "lm_head_scale", "local", "local_base", "low_freq_factor", 
    "lowercase", "lstrip", "masked_lm", "max_distance", "max_input_chars_per_word", 
    "max_position_embeddings", "max_positions", "max_window_layers", "merges", "mistral", "mlp_bias", 
    "model", "model_type", "n_ctx", "n_decoder_layers", "n_embd", "n_embed", "n_encoder_layers", 
    "n_head", "n_heads", "n_inner", "n_kv_heads", "n_labels", "n_layer", "n_positions", "never", 
    "nhead", "none", "norm", "norm_first", "norm_plus_one", "normalized", "normalizer", "normalizers", 
    "null", "num_attention_heads", "num_buckets", "num_decoder_layers", "num_encoder_layers", 
    "num_heads", "num_hidden_layers", "num_key_value_heads", "num_layers", 
    "original_max_position_embeddings", "original_max_positions", "out_bias", "pad_token_id", 
    "padding", "parallel_residual", "partial_rotary_factor", "pattern", "position_embedding_type", 
    "positional", "post_processor", "pre_tokenizer", "precompiled_charsmap", "prefix", "prepend", 
    "prepend_scheme", "pretokenizers", "pretraining_tp", "processors", "qk_norm", "qkv_bias", 
    "query_pre_attn_scalar", "qwen2", "qwen3", "relative", "relative_attention_max_distance", 
    "relative_attention_num_buckets", "relu", "replacement", "rms_norm", "rms_norm_eps", "rope", 
    "rope_local_base_freq", "rope_scaling", "rope_theta", "rope_type", "rotary_emb_base", "rotary_pct", 
    "rstrip", "sandwich_norms", "scale_attn_by_inverse_layer_idx", "scale_attn_weights", "scaling", 
    "sep", "seq_length", "shared_src_tgt_embeddings", "silu", "single", "single_word", "sinusoidal", 
    "sinusoidal_halves", "sliding_attention", "sliding_window", "sliding_window_pattern", 
    "slow_but_exact", "special", "special_tokens", "split", "start", "stop", "strip_accents", 
    "strip_left", "strip_right", "suffix", "tfp", "the", "tie_word_embeddings", "tied_lm_head", 
    "token_classifier", "tokens", "torch_transformer", "transformer", "trim_offsets", "true", 
    "truncation", "type", "type_id", "type_vocab_size", "unk_id", "unk_token", "use_parallel_residual", 
    "use_regex", "use_sliding_window", "version", "vocab", "vocab_size", "window_size",
    "bos_token_id", "sep_token_id", "cls_token_id", "mask_token_id", "unk_token_id", "label2id",
    "architectures", "torch_dtype", "num_labels", "__metadata__", "dtype", "shape", "data_offsets",
    "F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2"};
  return words;
}
inline const std::vector<std::string>& id_fields() {
  static const std::vector<std::string> ids = {
      "eos_token_id", "bos_token_id", "pad_token_id", "decoder_start_token_id", "sep_token_id",
      "cls_token_id", "mask_token_id", "unk_token_id", "unk_id", "id", "ids", "type_id", "vocab_size",
      "n_labels", "num_labels"};
  return ids;
}

class JsonMutator {
 public:
  explicit JsonMutator(unsigned seed) : rng_(seed) {}

  // `text` mutated as a JSON tree, at most `max_size` bytes; nullopt when it does not parse
  // (or nests deeper than kTreeDepth) or every try came out too big.
  std::optional<std::string> mutate(std::string_view text, size_t max_size) {
    if (scan_json_depth(text) > kTreeDepth) return std::nullopt;
    MJson parsed = MJson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return std::nullopt;
    for (int attempt = 0; attempt < 4; ++attempt) {
      root_ = parsed;
      subst_.clear();
      budget_ = max_size > text.size() ? max_size - text.size() : 0;
      const int n = 1 + static_cast<int>(below(4));
      for (int i = 0; i < n; ++i) mutate_once();
      std::string out = root_.dump(chance(5) ? 2 : -1, ' ', false, MJson::error_handler_t::replace);
      for (auto it = subst_.rbegin(); it != subst_.rend(); ++it) replace_all(out, it->first, it->second);
      if (out.size() <= max_size) return out;
    }
    return std::nullopt;
  }

  // The header of a safetensors file (8-byte little-endian length, JSON, tensor bytes);
  // nullopt when the header does not parse.
  std::optional<std::string> mutate_safetensors(std::string_view file, size_t max_size) {
    if (file.size() < 8) return std::nullopt;
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file[i]);
    if (n > file.size() - 8) return std::nullopt;
    std::string_view header = file.substr(8, n), data = file.substr(8 + n);
    const size_t room = max_size > data.size() + 8 ? max_size - data.size() - 8 : 0;
    std::optional<std::string> h = mutate(header, room);
    if (!h) return std::nullopt;
    std::string bytes(data);
    if (chance(2)) fix_offsets(*h, bytes, max_size);
    if (!chance(4)) h->append((8 - h->size() % 8) % 8, ' ');  // the writers' alignment
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((h->size() >> (8 * i)) & 0xff);
    out += *h;
    out += bytes;
    if (out.size() > max_size) return std::nullopt;
    return out;
  }

  size_t below(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool chance(size_t one_in) { return below(one_in) == 0; }

 private:
  struct Node {
    MJson* v;
    MJson* parent;
    std::string key;  // in an object parent
    size_t index;     // in an array parent
    size_t depth;
  };

  std::mt19937 rng_;
  MJson root_;
  std::vector<std::pair<std::string, std::string>> subst_;  // "\"marker\"" -> raw JSON text
  size_t budget_ = 0;                                        // bytes the mutations may add

  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

  // Every node, breadth first (an explicit queue), at most 200,000.
  std::vector<Node> nodes() {
    std::vector<Node> out{{&root_, nullptr, {}, 0, 0}};
    for (size_t i = 0; i < out.size() && out.size() < 200000; ++i) {
      MJson* v = out[i].v;
      const size_t d = out[i].depth + 1;
      if (v->is_object()) {
        for (auto it = v->begin(); it != v->end(); ++it) out.push_back({&it.value(), v, it.key(), 0, d});
      } else if (v->is_array()) {
        for (size_t k = 0; k < v->size(); ++k) out.push_back({&(*v)[k], v, {}, k, d});
      }
    }
    return out;
  }

  // Half the time a node near the top (depth <= 3: the fields that size a model), else any.
  Node pick_node(const std::vector<Node>& all, bool (*want)(const MJson&) = nullptr) {
    std::vector<size_t> fit;
    const bool shallow = chance(2);
    for (size_t i = 0; i < all.size(); ++i)
      if ((!want || want(*all[i].v)) && (!shallow || all[i].depth <= 3)) fit.push_back(i);
    if (fit.empty())
      for (size_t i = 0; i < all.size(); ++i)
        if (!want || want(*all[i].v)) fit.push_back(i);
    if (fit.empty()) return all[0];
    return all[pick(fit)];
  }

  // A marker string standing for raw text (written into the dump afterwards).
  MJson raw(std::string text) {
    const std::string m = "@@tfp" + std::to_string(subst_.size()) + "@@";
    subst_.emplace_back('"' + m + '"', std::move(text));
    return MJson(m);
  }

  static void replace_all(std::string& s, const std::string& from, const std::string& to) {
    std::string out;
    size_t at = 0;
    for (size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) {
      out.append(s, at, hit - at);
      out += to;
    }
    if (at == 0) return;
    out.append(s, at, std::string::npos);
    s = std::move(out);
  }

  std::string dump(const MJson& v) { return v.dump(-1, ' ', false, MJson::error_handler_t::replace); }

  // The vocabulary's size as the file says it (config vocab_size, tokenizer model.vocab).
  int64_t vocab_size() {
    if (root_.is_object()) {
      auto it = root_.find("vocab_size");
      if (it != root_.end() && it->is_number_integer()) {
        const int64_t v = it->get<int64_t>();
        return v >= 0 && v < (int64_t{1} << 40) ? v : 1000;  // the sums below must not overflow
      }
      auto m = root_.find("model");
      if (m != root_.end() && m->is_object()) {
        auto v = m->find("vocab");
        if (v != m->end() && (v->is_object() || v->is_array())) return static_cast<int64_t>(v->size());
      }
    }
    return 1000;
  }

  std::string interesting_number(const MJson* old) {
    static const std::vector<std::string> fixed = {
        "0", "-1", "1", "2", "3", "-0", "0.5", "1.5", "-1.5", "255", "256", "65535", "65536",
        "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
        "9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "1000000", "100000000", "1e9", "1e18",
        "1e30", "1e38", "3.5e38", "1e308", "1e309", "-1e309", "1e-45", "1e-320", "1e-400", "1E2",
        "123456789012345678901234567890", "0.1", "-0.0", "1e1000000"};
    if (old && old->is_number() && chance(2)) {
      const double x = old->get<double>();
      switch (below(8)) {
        case 0: return dump(MJson(x + 1));
        case 1: return dump(MJson(x - 1));
        case 2: return dump(MJson(-x));
        case 3: return dump(MJson(x * 2));
        case 4: return dump(MJson(x * 1000));
        case 5: return dump(MJson(x * 1e6));
        case 6: return dump(MJson(x + 0.5));
        default: return dump(MJson(std::trunc(x) * 1000003));
      }
    }
    return pick(fixed);
  }

  std::string long_text(size_t want) {
    want = std::min(want, budget_ / 2);
    static const std::vector<std::string> units = {"a", "\\u00e9", "\\\\", "\\\"", "\xe4\xb8\xad", "ab ", "\\ud83d\\ude42",
                                                   "\xf0\x9f\x99\x82", "(", "[", "\\u0000", " "};
    const std::string& u = pick(units);
    std::string s = "\"";
    while (s.size() < want + 1) s += u;
    return s + '"';
  }

  // A value of some other type (or an interesting one of the same).
  MJson other_value(const MJson* old) {
    switch (below(15)) {
      case 0: return nullptr;
      case 1: return true;
      case 2: return false;
      case 3: case 4: case 5: return raw(interesting_number(old));
      case 6: return "";
      case 7: return pick(json_words());
      case 8: return raw(long_text(static_cast<size_t>(1) << (6 + below(13))));
      case 9: return MJson::array();
      case 10: return MJson::object();
      case 11: return old ? MJson::array({*old}) : MJson::array({1});
      case 12: return old ? MJson{{pick(json_words()), *old}} : MJson{{"a", 1}};
      case 13: return MJson::array({raw(interesting_number(old)), raw(interesting_number(nullptr))});
      default: return raw(std::to_string(vocab_size() + static_cast<int64_t>(below(3))));
    }
  }

  // `inner` inside `depth` arrays / objects / both, as text, built by a loop.
  std::string nested(const std::string& inner, size_t depth) {
    const int shape = static_cast<int>(below(4));
    const std::string key = '"' + (chance(2) ? std::string("a") : pick(json_words())) + "\":";
    std::string open, close;
    auto piece = [&](size_t i, bool opening) -> std::string {
      const bool obj = shape == 1 || (shape == 2 && i % 2) || (shape == 3 && i % 7 == 3);
      if (opening) return obj ? "{" + key : "[";
      return obj ? "}" : "]";
    };
    const size_t per = key.size() + 3;  // the longest piece: {"key": and }
    if (per * depth > budget_) depth = budget_ / per;
    std::string s;
    s.reserve(depth * per + inner.size());
    for (size_t i = 0; i < depth; ++i) s += piece(i, true);
    s += inner;
    for (size_t i = depth; i-- > 0;) s += piece(i, false);
    return s;
  }

  static bool is_object(const MJson& v) { return v.is_object(); }
  static bool is_container(const MJson& v) { return v.is_object() || v.is_array(); }
  static bool is_nonempty_array(const MJson& v) { return v.is_array() && !v.empty(); }
  static bool is_nonempty_object(const MJson& v) { return v.is_object() && !v.empty(); }

  void spend(size_t bytes) { budget_ = bytes > budget_ ? 0 : budget_ - bytes; }

  void mutate_once() {
    std::vector<Node> all = nodes();
    switch (below(13)) {
      case 0: case 1: {  // change a value's type
        Node n = pick_node(all);
        *n.v = other_value(n.v);
        break;
      }
      case 2: {  // nest deeply
        static const std::vector<size_t> depths = {2, 3, 10, 64, 127, 128, 129, 200, 256, 257, 500, 512,
                                                   513, 1000, 1025, 4096, 10000, 65536, 100000};
        Node n = pick_node(all);
        std::string inner = chance(3) ? dump(*n.v) : std::string(chance(2) ? "1" : "\"x\"");
        if (inner.size() > 4096) inner = "0";
        std::string text = nested(inner, pick(depths));
        spend(text.size());
        *n.v = raw(std::move(text));
        break;
      }
      case 3: {  // a duplicate key
        Node n = pick_node(all, &is_nonempty_object);
        if (!n.v->is_object() || n.v->empty()) break;
        auto it = n.v->begin();
        std::advance(it, static_cast<std::ptrdiff_t>(below(n.v->size())));
        const std::string key = it.key();
        MJson value = chance(2) ? it.value() : other_value(&it.value());
        (*n.v)[raw(dump(MJson(key))).get<std::string>()] = std::move(value);
        break;
      }
      case 4: case 5: {  // numbers
        Node n = pick_node(all, [](const MJson& v) { return v.is_number(); });
        *n.v = raw(interesting_number(n.v));
        break;
      }
      case 6: {  // out-of-range ids
        const int64_t v = vocab_size();
        const std::vector<std::string> values = {
            std::to_string(v), std::to_string(v + 1), std::to_string(v - 1), std::to_string(v * 2),
            std::to_string(v + 1000000), "-1", "-2", "2147483647", "2147483648", "4294967296",
            "1.5", std::to_string(v) + ".5", '"' + std::to_string(v - 1) + '"', "[" + std::to_string(v) + "]",
            "[0, " + std::to_string(v + 5) + "]", "[[1]]", "{\"a\": 1}", "true", "null", "1e20"};
        std::vector<size_t> hits;
        for (size_t i = 0; i < all.size(); ++i)
          for (const std::string& f : id_fields())
            if (all[i].key == f) hits.push_back(i);
        if (!hits.empty() && !chance(3)) {
          *all[pick(hits)].v = raw(pick(values));
        } else if (root_.is_object()) {
          if (chance(4)) {
            MJson labels = MJson::object();
            labels[chance(2) ? std::to_string(v + static_cast<int64_t>(below(3))) : pick(std::vector<std::string>{"-1", "1.5", "x", "", "99999999999"})] = "L";
            root_[chance(2) ? "id2label" : "label2id"] = labels;
          } else {
            root_[pick(id_fields())] = raw(pick(values));
          }
        }
        break;
      }
      case 7: {  // drop a field or element
        Node n = pick_node(all, &is_container);
        if (n.v->is_object() && !n.v->empty()) {
          auto it = n.v->begin();
          std::advance(it, static_cast<std::ptrdiff_t>(below(n.v->size())));
          n.v->erase(it);
        } else if (n.v->is_array() && !n.v->empty()) {
          n.v->erase(n.v->begin() + static_cast<std::ptrdiff_t>(below(n.v->size())));
        }
        break;
      }
      case 8: case 9: {  // add a field the readers know
        MJson* target = &root_;
        if (!chance(2) || !root_.is_object()) {
          Node n = pick_node(all, &is_object);
          target = n.v;
        }
        if (!target->is_object()) break;
        (*target)[pick(json_words())] = other_value(nullptr);
        break;
      }
      case 10: {  // long strings and keys
        Node n = pick_node(all, [](const MJson& v) { return v.is_string(); });
        std::string text = long_text(static_cast<size_t>(1) << (8 + below(11)));
        spend(text.size());
        if (chance(4) && n.parent && n.parent->is_object()) {
          MJson value = *n.v;  // copied first: inserting may move the parent's elements
          (*n.parent)[raw(text).get<std::string>()] = std::move(value);
        } else {
          *n.v = raw(std::move(text));
        }
        break;
      }
      case 11: {  // an array element replicated (counts: layers, merges, vocab, types)
        Node n = pick_node(all, &is_nonempty_array);
        if (!n.v->is_array() || n.v->empty()) break;
        const MJson el = (*n.v)[below(n.v->size())];
        const size_t each = dump(el).size() + 1;
        size_t k = static_cast<size_t>(1) << below(14);
        k = std::min(k, budget_ / each);
        for (size_t i = 0; i < k; ++i) n.v->push_back(el);
        spend(k * each);
        break;
      }
      default: {  // a subtree copied over another
        Node from = pick_node(all), to = pick_node(all);
        const MJson copy = *from.v;
        if (dump(copy).size() > budget_) break;
        spend(dump(copy).size());
        *to.v = copy;
        break;
      }
    }
  }

  // data_offsets recomputed from each entry's dtype and shape; the bytes zero-filled
  // or cut to match (entries with an unknown dtype or a bad shape are left as they are).
  void fix_offsets(std::string& header, std::string& bytes, size_t max_size) {
    if (scan_json_depth(header) > kTreeDepth) return;  // deeply nested text: left as written
    MJson h = MJson::parse(header, nullptr, false);
    if (!h.is_object()) return;
    uint64_t off = 0;
    for (auto it = h.begin(); it != h.end(); ++it) {
      MJson& t = it.value();
      if (it.key() == "__metadata__" || !t.is_object()) continue;
      auto d = t.find("dtype");
      auto s = t.find("shape");
      if (d == t.end() || !d->is_string() || s == t.end() || !s->is_array()) continue;
      const std::string dt = d->get<std::string>();
      uint64_t size = dt == "F64" || dt == "I64" || dt == "U64" ? 8
                      : dt == "F32" || dt == "I32" || dt == "U32" ? 4
                      : dt == "F16" || dt == "BF16" || dt == "I16" || dt == "U16" ? 2
                      : dt == "I8" || dt == "U8" || dt == "BOOL" || dt.rfind("F8", 0) == 0 ? 1 : 0;
      if (size == 0) continue;
      uint64_t numel = 1;
      bool ok = true;
      for (const MJson& dim : *s) {
        if (!dim.is_number_unsigned() && !(dim.is_number_integer() && dim.get<int64_t>() >= 0)) { ok = false; break; }
        const uint64_t x = dim.get<uint64_t>();
        if (x != 0 && numel > (uint64_t{1} << 32) / x) { ok = false; break; }
        numel *= x;
      }
      if (!ok || numel * size > max_size) continue;
      t["data_offsets"] = MJson::array({off, off + numel * size});
      off += numel * size;
    }
    const std::string out = h.dump(-1, ' ', false, MJson::error_handler_t::replace);
    if (off + out.size() + 16 > max_size) return;
    header = out;
    bytes.resize(off, '\0');
  }
};

// libFuzzer's custom mutation of a multi-file input (fuzz_util.h's separator): file
// `part` is JSON (or, `safetensors`, a safetensors file whose header is mutated); the
// other files are kept. One time in eight, or when the JSON does not parse, the part's
// bytes go through LLVMFuzzerMutate instead.
inline size_t mutate_json_input(uint8_t* data, size_t size, size_t max_size, unsigned seed, size_t part,
                                bool safetensors = false) {
  std::vector<std::string_view> files = split_files(data, size, part + 2);
  if (files.size() <= part) {
    if (safetensors) return LLVMFuzzerMutate(data, size, max_size);
    part = files.size() - 1;
  }
  JsonMutator m(seed);
  const size_t others = size - files[part].size();
  const size_t room = max_size > others ? max_size - others : 0;
  std::optional<std::string> out;
  if (!m.chance(8)) out = safetensors ? m.mutate_safetensors(files[part], room) : m.mutate(files[part], room);
  if (!out) {
    std::string buf(files[part]);
    const size_t cap = std::max(room, buf.size());
    buf.resize(cap);
    buf.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(buf.data()), files[part].size(), cap));
    out = std::move(buf);
  }
  std::string whole;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i) whole += kFileSeparator;
    whole += i == part ? std::string_view(*out) : files[i];
  }
  if (whole.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, whole.data(), whole.size());
  return whole.size();
}

}  // namespace tfp::fuzz
