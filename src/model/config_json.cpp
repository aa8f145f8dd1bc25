// config.json parsing for GPT-2, BERT, PyTorch nn.Transformer* and our own models.
// Field names and defaults follow each family's published config class (see the header).
#include "model/config_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "io/json_depth.h"
#include "io/json_excerpt.h"
#include "io/json_text.h"
#include "model/config_fields.h"
#include "model/config_ids.h"
#include "model/families.h"

namespace tfp::model {

namespace {

using nlohmann::json;

ParsedConfig parse_gpt2(const Fields& f) {
  ParsedConfig p;
  p.family = CheckpointFamily::gpt2;
  ModelConfig& c = p.config;
  c.architecture = Architecture::decoder_only;
  c.family = "gpt2";
  c.d_model = f.integer("n_embd");
  c.n_heads = f.integer("n_head");
  c.n_decoder_layers = f.integer("n_layer");
  c.max_positions = f.find("n_positions") ? f.integer("n_positions") : f.integer("n_ctx");
  c.vocab_size = f.integer("vocab_size");
  c.d_ff = f.integer("n_inner", 4 * c.d_model);  // null → 4·n_embd, as HF GPT2MLP
  c.layer_norm_eps = f.number("layer_norm_epsilon", 1e-5f);
  c.activation = f.activation("activation_function", "gelu_new");
  if (!f.boolean("scale_attn_weights", true)) f.fail("scale_attn_weights=false is not supported");
  if (f.boolean("scale_attn_by_inverse_layer_idx", false))
    f.fail("scale_attn_by_inverse_layer_idx=true is not supported");
  c.norm_first = true;
  c.positional = Positional::learned;
  c.decoder_final_norm = true;  // ln_f
  c.fused_qkv = true;           // c_attn
  c.lm_head = true;
  c.tied_lm_head = true;        // lm_head.weight is wte
  return p;
}

ParsedConfig parse_bert(const Fields& f) {
  ParsedConfig p;
  p.family = CheckpointFamily::bert;
  ModelConfig& c = p.config;
  c.architecture = Architecture::encoder_only;
  c.family = "bert";
  c.d_model = f.integer("hidden_size");
  c.n_heads = f.integer("num_attention_heads");
  c.n_encoder_layers = f.integer("num_hidden_layers");
  c.d_ff = f.integer("intermediate_size");
  c.max_positions = f.integer("max_position_embeddings");
  c.type_vocab_size = f.integer("type_vocab_size", 2);
  c.vocab_size = f.integer("vocab_size");
  c.layer_norm_eps = f.number("layer_norm_eps", 1e-12f);
  c.activation = f.activation("hidden_act", "gelu");
  const std::string pos = f.string("position_embedding_type", "absolute");
  if (pos != "absolute") f.fail("position_embedding_type \"", io::text_excerpt(pos), "\" is not supported (only \"absolute\")");
  if (f.boolean("is_decoder", false)) f.fail("is_decoder=true is not supported");
  c.norm_first = false;
  c.positional = Positional::learned;
  c.embedding_norm = true;
  c.fused_qkv = false;  // query / key / value
  c.lm_head = false;
  c.encoder_head = EncoderHead::none;  // hidden states; pooler and cls.* are not used
  return p;
}

ParsedConfig parse_torch(const Fields& f) {
  ParsedConfig p;
  ModelConfig& c = p.config;
  c.family = "torch_transformer";
  const std::string kind = f.string("kind", "transformer");
  c.d_model = f.integer("d_model");
  c.n_heads = f.integer("nhead");
  c.d_ff = f.integer("dim_feedforward", 2048);
  c.activation = f.activation("activation", "relu");
  c.norm_first = f.boolean("norm_first", false);
  c.layer_norm_eps = f.number("layer_norm_eps", 1e-5f);
  const bool final_norm = f.boolean("final_norm", kind == "transformer");
  if (kind == "transformer") {
    p.family = CheckpointFamily::torch_transformer;
    c.architecture = Architecture::encoder_decoder;
    c.n_encoder_layers = f.integer("num_encoder_layers");
    c.n_decoder_layers = f.integer("num_decoder_layers");
    c.encoder_final_norm = c.decoder_final_norm = final_norm;
  } else if (kind == "encoder") {
    p.family = CheckpointFamily::torch_encoder;
    c.architecture = Architecture::encoder_only;
    c.n_encoder_layers = f.integer("num_encoder_layers");
    c.encoder_final_norm = final_norm;
  } else if (kind == "decoder") {
    // A decoder stack with cross-attention and no encoder of its own: the memory is an
    // input. It is an encoder_decoder config with zero encoder layers.
    p.family = CheckpointFamily::torch_decoder;
    c.architecture = Architecture::encoder_decoder;
    c.n_decoder_layers = f.integer("num_decoder_layers");
    c.decoder_final_norm = final_norm;
  } else {
    f.fail("field \"kind\" must be \"transformer\", \"encoder\" or \"decoder\", got \"", io::text_excerpt(kind), "\"");
  }
  c.has_embeddings = false;  // inputs are (T, C) embeddings
  c.positional = Positional::none;
  c.vocab_size = 0;
  c.fused_qkv = true;  // in_proj_weight
  c.lm_head = false;
  c.tied_lm_head = false;
  return p;
}

// ---- our own models: every field by its C++ name ----------------------------------

constexpr std::pair<Architecture, const char*> kArchitectures[] = {
    {Architecture::encoder_only, "encoder_only"},
    {Architecture::decoder_only, "decoder_only"},
    {Architecture::encoder_decoder, "encoder_decoder"}};
constexpr std::pair<Positional, const char*> kPositionals[] = {
    {Positional::none, "none"},     {Positional::learned, "learned"}, {Positional::sinusoidal, "sinusoidal"},
    {Positional::rope, "rope"},     {Positional::alibi, "alibi"},     {Positional::relative, "relative"}};
constexpr std::pair<NormKind, const char*> kNorms[] = {{NormKind::layer_norm, "layer_norm"},
                                                      {NormKind::rms_norm, "rms_norm"}};
constexpr std::pair<nn::RopeScaling, const char*> kRopeScalings[] = {
    {nn::RopeScaling::None, "none"}, {nn::RopeScaling::Linear, "linear"}, {nn::RopeScaling::Llama3, "llama3"}};
constexpr std::pair<EncoderHead, const char*> kHeads[] = {
    {EncoderHead::none, "none"},
    {EncoderHead::token_classifier, "token_classifier"},
    {EncoderHead::masked_lm, "masked_lm"}};

template <typename E, size_t N>
E enum_field(const Fields& f, const char* key, const std::pair<E, const char*> (&table)[N], E fallback) {
  if (!f.find(key)) return fallback;
  const std::string s = f.string(key, nullptr);
  for (const auto& [value, name] : table)
    if (s == name) return value;
  std::string choices;
  for (const auto& [value, name] : table) choices += std::string(choices.empty() ? "" : ", ") + name;
  f.fail("field \"", key, "\": unknown value \"", io::text_excerpt(s), "\" (one of: ", choices, ")");
}

template <typename E, size_t N>
const char* enum_name(E value, const std::pair<E, const char*> (&table)[N]) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

ParsedConfig parse_tfp(const Fields& f) {
  ParsedConfig p;
  p.family = CheckpointFamily::tfp;
  ModelConfig& c = p.config;
  const ModelConfig d;  // defaults
  c.architecture = enum_field(f, "architecture", kArchitectures, d.architecture);
  c.family = f.string("family", "tfp");
  c.d_model = f.integer("d_model");
  c.n_heads = f.integer("n_heads");
  c.n_encoder_layers = f.integer("n_encoder_layers", 0);
  c.n_decoder_layers = f.integer("n_decoder_layers", 0);
  c.d_ff = f.integer("d_ff");
  c.vocab_size = f.integer("vocab_size", 0);
  c.max_positions = f.integer("max_positions", 0);
  c.type_vocab_size = f.integer("type_vocab_size", 0);
  c.activation = f.activation("activation", nn::activation_name(d.activation));
  c.norm_first = f.boolean("norm_first", d.norm_first);
  c.layer_norm_eps = f.number("layer_norm_eps", d.layer_norm_eps);
  c.has_embeddings = f.boolean("has_embeddings", d.has_embeddings);
  c.positional = enum_field(f, "positional", kPositionals, d.positional);
  c.embedding_scale = f.number("embedding_scale", d.embedding_scale);
  c.embedding_norm = f.boolean("embedding_norm", d.embedding_norm);
  c.shared_src_tgt_embeddings = f.boolean("shared_src_tgt_embeddings", d.shared_src_tgt_embeddings);
  c.encoder_final_norm = f.boolean("encoder_final_norm", d.encoder_final_norm);
  c.decoder_final_norm = f.boolean("decoder_final_norm", d.decoder_final_norm);
  c.fused_qkv = f.boolean("fused_qkv", d.fused_qkv);
  c.lm_head = f.boolean("lm_head", d.lm_head);
  c.tied_lm_head = f.boolean("tied_lm_head", d.tied_lm_head);
  c.encoder_head = enum_field(f, "encoder_head", kHeads, d.encoder_head);
  c.n_labels = f.integer("n_labels", 0);
  c.id2label = f.labels();
  // The description's other fields (all optional: absent = the GPT-2/BERT-era defaults).
  c.gated_ffn = f.boolean("gated_ffn", d.gated_ffn);
  c.norm = enum_field(f, "norm", kNorms, d.norm);
  c.norm_plus_one = f.boolean("norm_plus_one", d.norm_plus_one);
  c.sandwich_norms = f.boolean("sandwich_norms", d.sandwich_norms);
  c.parallel_residual = f.boolean("parallel_residual", d.parallel_residual);
  c.n_kv_heads = f.integer("n_kv_heads", d.n_kv_heads);
  c.head_dim_override = f.integer("head_dim", d.head_dim_override);
  c.attn_scale = f.number("attn_scale", d.attn_scale);
  c.attn_softcap = f.number("attn_softcap", d.attn_softcap);
  c.qk_norm = f.boolean("qk_norm", d.qk_norm);
  c.qkv_bias = f.boolean("qkv_bias", d.qkv_bias);
  c.out_bias = f.boolean("out_bias", d.out_bias);
  c.ffn_bias = f.boolean("ffn_bias", d.ffn_bias);
  if (const json* lw = f.find("layer_windows")) {
    if (!lw->is_array()) f.fail("field \"layer_windows\" must be a list of integers, got ", io::json_excerpt(*lw));
    for (const json& v : *lw) c.layer_windows.push_back(f.integer_value("layer_windows", v));
  }
  c.sinusoidal_halves = f.boolean("sinusoidal_halves", d.sinusoidal_halves);
  c.learned_offset = f.integer("learned_offset", d.learned_offset);
  if (const json* r = f.object("rope")) {
    const Fields rf{*r, f.source, f.family};
    c.rope.base = rf.real("base", d.rope.base);
    c.rope.local_base = rf.real("local_base", d.rope.local_base);
    c.rope.fraction = rf.real("fraction", d.rope.fraction);
    c.rope.interleaved = rf.boolean("interleaved", d.rope.interleaved);
    c.rope.scaling = enum_field(rf, "scaling", kRopeScalings, d.rope.scaling);
    c.rope.factor = rf.real("factor", d.rope.factor);
    c.rope.low_freq_factor = rf.real("low_freq_factor", d.rope.low_freq_factor);
    c.rope.high_freq_factor = rf.real("high_freq_factor", d.rope.high_freq_factor);
    c.rope.original_max_positions = rf.integer("original_max_positions", d.rope.original_max_positions);
  }
  if (const json* r = f.object("relative")) {
    const Fields rf{*r, f.source, f.family};
    c.relative.num_buckets = static_cast<int>(rf.integer("num_buckets", d.relative.num_buckets));
    c.relative.max_distance = static_cast<int>(rf.integer("max_distance", d.relative.max_distance));
  }
  c.lm_head_scale = f.number("lm_head_scale", d.lm_head_scale);
  c.final_softcap = f.number("final_softcap", d.final_softcap);
  return p;
}

// A float as the double with the same shortest decimal form (1e-5f → 1e-05, not
// 9.999999747378752e-06), so written configs read as the numbers people typed.
double tidy(float x) {
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {  // 9 digits always round-trip a float
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(x));
    const double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == x) return d;
  }
  return x;
}

}  // namespace

const char* family_name(CheckpointFamily f) {
  switch (f) {
    case CheckpointFamily::gpt2: return "gpt2";
    case CheckpointFamily::bert: return "bert";
    case CheckpointFamily::torch_transformer: return "torch_transformer";
    case CheckpointFamily::torch_encoder: return "torch_transformer (encoder)";
    case CheckpointFamily::torch_decoder: return "torch_transformer (decoder)";
    case CheckpointFamily::tfp: return "tfp";
    case CheckpointFamily::llama: return "llama";
    case CheckpointFamily::gemma: return "gemma";
    case CheckpointFamily::gpt_neox: return "gpt_neox";
    case CheckpointFamily::gpt_neo: return "gpt_neo";
    case CheckpointFamily::bloom: return "bloom";
    case CheckpointFamily::t5: return "t5";
  }
  return "?";
}

constexpr const char* kModelTypes =
    "gpt2, bert, llama, mistral, qwen2, qwen3, gemma2, gemma3_text, gpt_neox, gpt_neo, bloom, t5, "
    "torch_transformer, tfp";

ParsedConfig parse_config_json(std::string_view text, const std::string& source) {
  io::check_json_depth(text, source);
  const json j = json::parse(text.begin(), text.end(), nullptr, false);
  TFP_CHECK(!j.is_discarded(), source, ": not valid JSON ", io::json_syntax_error(text));
  TFP_CHECK(j.is_object(), source, ": expected a JSON object");
  const auto mt = j.find("model_type");
  TFP_CHECK(mt != j.end() && mt->is_string(), source, ": missing \"model_type\" (one of ", kModelTypes, ")");
  const std::string type = mt->get<std::string>();
  ParsedConfig p;
  if (type == "gpt2") p = parse_gpt2(Fields{j, source, "gpt2"});
  else if (type == "bert") p = parse_bert(Fields{j, source, "bert"});
  else if (type == "torch_transformer") p = parse_torch(Fields{j, source, "torch_transformer"});
  else if (type == "tfp") p = parse_tfp(Fields{j, source, "tfp"});
  else if (type == "llama" || type == "mistral" || type == "qwen2" || type == "qwen3")
    p = parse_llama_family(Fields{j, source, type.c_str()}, type);
  else if (type == "gemma2" || type == "gemma3_text") p = parse_gemma_family(Fields{j, source, type.c_str()}, type);
  else if (type == "gpt_neox") p = parse_gpt_neox(Fields{j, source, "gpt_neox"});
  else if (type == "gpt_neo") p = parse_gpt_neo(Fields{j, source, "gpt_neo"});
  else if (type == "bloom") p = parse_bloom(Fields{j, source, "bloom"});
  else if (type == "t5") p = parse_t5(Fields{j, source, "t5"});
  else TFP_FAIL(source, ": unknown model_type \"", io::text_excerpt(type), "\" (supported: ", kModelTypes, ")");
  read_token_ids(Fields{j, source, type.c_str()}, p);  // eos, bos, pad, decoder start: ids in the vocabulary
  try {
    check_config(p.config);
  } catch (const Error& e) {
    TFP_FAIL(source, ": ", e.what());
  }
  return p;
}

std::string config_to_json(const ModelConfig& c) {
  json j = {
      {"model_type", "tfp"},
      {"family", c.family.empty() ? "tfp" : c.family},
      {"architecture", enum_name(c.architecture, kArchitectures)},
      {"d_model", c.d_model},
      {"n_heads", c.n_heads},
      {"n_encoder_layers", c.n_encoder_layers},
      {"n_decoder_layers", c.n_decoder_layers},
      {"d_ff", c.d_ff},
      {"vocab_size", c.vocab_size},
      {"max_positions", c.max_positions},
      {"type_vocab_size", c.type_vocab_size},
      {"activation", nn::activation_name(c.activation)},
      {"norm_first", c.norm_first},
      {"layer_norm_eps", tidy(c.layer_norm_eps)},
      {"has_embeddings", c.has_embeddings},
      {"positional", enum_name(c.positional, kPositionals)},
      {"embedding_scale", tidy(c.embedding_scale)},
      {"embedding_norm", c.embedding_norm},
      {"shared_src_tgt_embeddings", c.shared_src_tgt_embeddings},
      {"encoder_final_norm", c.encoder_final_norm},
      {"decoder_final_norm", c.decoder_final_norm},
      {"fused_qkv", c.fused_qkv},
      {"lm_head", c.lm_head},
      {"tied_lm_head", c.tied_lm_head},
      {"encoder_head", enum_name(c.encoder_head, kHeads)},
      {"n_labels", c.n_labels},
  };
  // The description beyond the classic fields: written only where it differs from the
  // defaults, so GPT-2/BERT-era files stay as they were.
  const ModelConfig d;
  auto put = [&](const char* key, auto value, auto fallback) {
    if (value != fallback) j[key] = value;
  };
  put("gated_ffn", c.gated_ffn, d.gated_ffn);
  if (c.norm != d.norm) j["norm"] = enum_name(c.norm, kNorms);
  put("norm_plus_one", c.norm_plus_one, d.norm_plus_one);
  put("sandwich_norms", c.sandwich_norms, d.sandwich_norms);
  put("parallel_residual", c.parallel_residual, d.parallel_residual);
  put("n_kv_heads", c.n_kv_heads, d.n_kv_heads);
  put("head_dim", c.head_dim_override, d.head_dim_override);
  if (c.attn_scale != d.attn_scale) j["attn_scale"] = tidy(c.attn_scale);
  if (c.attn_softcap != d.attn_softcap) j["attn_softcap"] = tidy(c.attn_softcap);
  put("qk_norm", c.qk_norm, d.qk_norm);
  put("qkv_bias", c.qkv_bias, d.qkv_bias);
  put("out_bias", c.out_bias, d.out_bias);
  put("ffn_bias", c.ffn_bias, d.ffn_bias);
  if (!c.layer_windows.empty()) j["layer_windows"] = c.layer_windows;
  put("sinusoidal_halves", c.sinusoidal_halves, d.sinusoidal_halves);
  put("learned_offset", c.learned_offset, d.learned_offset);
  if (c.positional == Positional::rope)
    j["rope"] = {{"base", c.rope.base},
                 {"local_base", c.rope.local_base},
                 {"fraction", c.rope.fraction},
                 {"interleaved", c.rope.interleaved},
                 {"scaling", enum_name(c.rope.scaling, kRopeScalings)},
                 {"factor", c.rope.factor},
                 {"low_freq_factor", c.rope.low_freq_factor},
                 {"high_freq_factor", c.rope.high_freq_factor},
                 {"original_max_positions", c.rope.original_max_positions}};
  if (c.positional == Positional::relative)
    j["relative"] = {{"num_buckets", c.relative.num_buckets}, {"max_distance", c.relative.max_distance}};
  if (c.lm_head_scale != d.lm_head_scale) j["lm_head_scale"] = tidy(c.lm_head_scale);
  if (c.final_softcap != d.final_softcap) j["final_softcap"] = tidy(c.final_softcap);
  if (!c.id2label.empty()) {
    json names = json::object();
    for (size_t i = 0; i < c.id2label.size(); ++i) names[std::to_string(i)] = c.id2label[i];
    j["id2label"] = names;
  }
  return j.dump(2);
}

}  // namespace tfp::model
