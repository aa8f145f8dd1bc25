// Llama and its close relatives (Hugging Face LlamaForCausalLM, MistralForCausalLM,
// Qwen2ForCausalLM, Qwen3ForCausalLM): pre-norm RMSNorm layers, RoPE (rotate-half),
// grouped-query attention, a SiLU-gated MLP. Mistral adds a sliding window, Qwen2 q/k/v
// biases, Qwen3 per-head q/k RMSNorms and its own head size.
#include <cmath>

#include "model/families.h"

namespace tfp::model {

void parse_rope(const Fields& f, RopeSpec& rope, const char* theta_key, double theta_default) {
  rope.base = f.real(theta_key, theta_default);
  const json* s = f.object("rope_scaling");
  if (!s) return;
  const Fields sf{*s, f.source, f.family};
  // Older files say "type", newer "rope_type".
  const std::string type = sf.find("rope_type") ? sf.string("rope_type", nullptr) : sf.string("type", "default");
  if (type == "default") return;
  if (type == "linear") {
    rope.scaling = nn::RopeScaling::Linear;
    rope.factor = sf.real("factor", 1.0);
  } else if (type == "llama3") {
    rope.scaling = nn::RopeScaling::Llama3;
    rope.factor = sf.real("factor", 8.0);
    rope.low_freq_factor = sf.real("low_freq_factor", 1.0);
    rope.high_freq_factor = sf.real("high_freq_factor", 4.0);
    rope.original_max_positions = sf.integer("original_max_position_embeddings", 8192);
  } else {
    f.fail("field \"rope_scaling\": rope type \"", type,
           "\" is not supported (supported: default, linear, llama3)");
  }
}

ParsedConfig parse_llama_family(const Fields& f, const std::string& type) {
  ParsedConfig p;
  p.family = CheckpointFamily::llama;
  ModelConfig& c = p.config;
  c.architecture = Architecture::decoder_only;
  c.family = type;
  c.d_model = f.integer("hidden_size");
  c.n_heads = f.integer("num_attention_heads");
  c.n_kv_heads = f.integer("num_key_value_heads", c.n_heads);
  c.n_decoder_layers = f.integer("num_hidden_layers");
  c.d_ff = f.integer("intermediate_size");
  c.vocab_size = f.integer("vocab_size");
  c.max_positions = f.integer("max_position_embeddings", 2048);
  // Qwen3's own default head size is 128; the others derive it from the width.
  const int64_t derived = c.n_heads > 0 ? c.d_model / c.n_heads : 0;
  c.head_dim_override = f.integer("head_dim", type == "qwen3" ? 128 : derived);
  // (n_heads 0 is refused by check_config; it must not divide by zero before that.)
  if (c.n_heads > 0 && c.head_dim_override == derived && c.d_model % c.n_heads == 0) c.head_dim_override = 0;
  c.layer_norm_eps = f.number("rms_norm_eps", 1e-6f);
  c.activation = f.activation("hidden_act", "silu");
  if (c.activation != nn::Activation::silu) f.fail("field \"hidden_act\" must be silu for ", type);
  if (f.integer("pretraining_tp", 1) != 1) f.fail("pretraining_tp != 1 is not supported");
  c.norm = NormKind::rms_norm;
  c.norm_first = true;
  c.gated_ffn = true;
  c.positional = Positional::rope;
  parse_rope(f, c.rope, "rope_theta", type == "qwen2" || type == "qwen3" ? 1e6 : 10000.0);
  if (f.find("partial_rotary_factor")) c.rope.fraction = f.real("partial_rotary_factor", 1.0);
  c.decoder_final_norm = true;
  c.fused_qkv = false;
  c.lm_head = true;
  c.tied_lm_head = f.boolean("tie_word_embeddings", false);
  if (type == "qwen2") {  // q, k, v carry biases; the output projection does not
    c.qkv_bias = true;
    c.out_bias = false;
  } else {
    c.qkv_bias = c.out_bias = f.boolean("attention_bias", false);
  }
  c.ffn_bias = f.boolean("mlp_bias", false);
  c.qk_norm = type == "qwen3";
  // Sliding windows: Mistral on every layer; Qwen only when use_sliding_window, from
  // layer max_window_layers on.
  int64_t window = 0;
  size_t first_windowed = 0;
  if (type == "mistral") {
    window = f.integer("sliding_window", 0);
  } else if ((type == "qwen2" || type == "qwen3") && f.boolean("use_sliding_window", false)) {
    window = f.integer("sliding_window", 0);
    first_windowed = static_cast<size_t>(f.integer("max_window_layers", 0));
  }
  // Newer files spell the pattern out: "layer_types" ["full_attention", "sliding_attention", ...].
  const json* types = f.find("layer_types");
  if (types && (!types->is_array() || static_cast<int64_t>(types->size()) != c.n_decoder_layers))
    f.fail("field \"layer_types\" must list one type per layer (", c.n_decoder_layers, ")");
  if (types && window > 0) {
    for (const json& t : *types) {
      if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
        f.fail("field \"layer_types\": ", t.dump(), " is not sliding_attention or full_attention");
      c.layer_windows.push_back(t == "sliding_attention" ? window : 0);
    }
  } else if (window > 0) {
    for (int64_t i = 0; i < c.n_decoder_layers; ++i)
      c.layer_windows.push_back(static_cast<size_t>(i) >= first_windowed ? window : 0);
  }
  return p;
}

std::vector<NameRule> llama_layer_rules() {
  return {
      {"embed.token", "embed_tokens.weight"},
      {"dec.{i}.norm_attn.gamma", "layers.{i}.input_layernorm.weight"},
      {"dec.{i}.attn.q.weight", "layers.{i}.self_attn.q_proj.weight"},
      {"dec.{i}.attn.q.bias", "layers.{i}.self_attn.q_proj.bias"},
      {"dec.{i}.attn.k.weight", "layers.{i}.self_attn.k_proj.weight"},
      {"dec.{i}.attn.k.bias", "layers.{i}.self_attn.k_proj.bias"},
      {"dec.{i}.attn.v.weight", "layers.{i}.self_attn.v_proj.weight"},
      {"dec.{i}.attn.v.bias", "layers.{i}.self_attn.v_proj.bias"},
      {"dec.{i}.attn.out.weight", "layers.{i}.self_attn.o_proj.weight"},
      {"dec.{i}.attn.out.bias", "layers.{i}.self_attn.o_proj.bias"},
      {"dec.{i}.attn.q_norm.gamma", "layers.{i}.self_attn.q_norm.weight"},
      {"dec.{i}.attn.k_norm.gamma", "layers.{i}.self_attn.k_norm.weight"},
      {"dec.{i}.ffn.gate.weight", "layers.{i}.mlp.gate_proj.weight"},
      {"dec.{i}.ffn.gate.bias", "layers.{i}.mlp.gate_proj.bias"},
      {"dec.{i}.ffn.fc1.weight", "layers.{i}.mlp.up_proj.weight"},
      {"dec.{i}.ffn.fc1.bias", "layers.{i}.mlp.up_proj.bias"},
      {"dec.{i}.ffn.fc2.weight", "layers.{i}.mlp.down_proj.weight"},
      {"dec.{i}.ffn.fc2.bias", "layers.{i}.mlp.down_proj.bias"},
      {"dec.norm.gamma", "norm.weight"},
      {"lm_head.weight", "lm_head.weight"},
      {"lm_head.bias", "lm_head.bias"},
  };
}

const NameTable& names_llama() {
  static const NameTable table = [] {
    NameTable t{"llama", {"model."}, llama_layer_rules(),
                // Ignored: the rotary frequencies older files carry per layer
                // (layers.N.self_attn.rotary_emb.inv_freq; from_pretrained drops any
                // r"rotary_emb\.inv_freq" when the model has such a buffer, as Llama,
                // Mistral, Qwen2 and Qwen3 do) and fairseq's version counter (HF
                // LlamaPreTrainedModel _keys_to_ignore_on_load_unexpected [r"decoder\.version"],
                // transformers 4.28-4.3x).
                {"*rotary_emb.inv_freq", "*decoder.version"},
                // A tied model may still store its head: the same matrix as embed_tokens.
                {"lm_head.weight"}};
    t.rules.push_back({"dec.{i}.norm_ffn.gamma", "layers.{i}.post_attention_layernorm.weight"});
    t.declared_biases_required = true;  // Qwen2's q/k/v, attention_bias, mlp_bias
    return t;
  }();
  return table;
}

}  // namespace tfp::model
