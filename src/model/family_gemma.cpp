// Gemma 2 and Gemma 3 (text): Llama's layer with four RMSNorms per layer (pre and post
// each sublayer, scale stored as w and applied as 1 + w), embeddings × √hidden, a
// GELU-gated MLP, local (sliding-window) and global layers, q·k scaled by
// query_pre_attn_scalar^-½. Gemma 2 soft-caps the attention scores and the final logits;
// Gemma 3 norms q and k per head and gives its local layers their own RoPE base.
#include <cmath>

#include "model/families.h"

namespace tfp::model {

ParsedConfig parse_gemma_family(const Fields& f, const std::string& type) {
  ParsedConfig p;
  p.family = CheckpointFamily::gemma;
  ModelConfig& c = p.config;
  const bool gemma3 = type == "gemma3_text";
  c.architecture = Architecture::decoder_only;
  c.family = type;
  c.d_model = f.integer("hidden_size");
  c.n_heads = f.integer("num_attention_heads");
  c.n_kv_heads = f.integer("num_key_value_heads", c.n_heads);
  c.n_decoder_layers = f.integer("num_hidden_layers");
  c.d_ff = f.integer("intermediate_size");
  c.vocab_size = f.integer("vocab_size");
  c.max_positions = f.integer("max_position_embeddings", 8192);
  c.head_dim_override = f.integer("head_dim", 256);
  c.layer_norm_eps = f.number("rms_norm_eps", 1e-6f);
  c.activation = f.activation(f.find("hidden_activation") ? "hidden_activation" : "hidden_act", "gelu_pytorch_tanh");
  c.norm = NormKind::rms_norm;
  c.norm_plus_one = true;
  c.sandwich_norms = true;
  c.norm_first = true;
  c.gated_ffn = true;
  c.embedding_scale = std::sqrt(static_cast<float>(c.d_model));
  c.positional = Positional::rope;
  parse_rope(f, c.rope, "rope_theta", gemma3 ? 1e6 : 10000.0);
  if (gemma3) c.rope.local_base = f.real("rope_local_base_freq", 10000.0);
  c.attn_scale = static_cast<float>(1.0 / std::sqrt(f.real("query_pre_attn_scalar", 256.0)));
  c.attn_softcap = f.number("attn_logit_softcapping", gemma3 ? 0.0f : 50.0f);
  c.final_softcap = f.number("final_logit_softcapping", gemma3 ? 0.0f : 30.0f);
  c.qk_norm = gemma3;
  c.qkv_bias = c.out_bias = f.boolean("attention_bias", false);
  c.ffn_bias = false;
  c.decoder_final_norm = true;
  c.fused_qkv = false;
  c.lm_head = true;
  c.tied_lm_head = f.boolean("tie_word_embeddings", true);
  // Which layers are local: "layer_types" when given, else the family's pattern (Gemma 2:
  // even layers; Gemma 3: all but every sliding_window_pattern-th).
  const int64_t window = f.integer("sliding_window", 4096);
  const int64_t pattern = f.integer("sliding_window_pattern", 6);
  const json* types = f.find("layer_types");
  if (types && (!types->is_array() || static_cast<int64_t>(types->size()) != c.n_decoder_layers))
    f.fail("field \"layer_types\" must list one type per layer (", c.n_decoder_layers, ")");
  for (int64_t i = 0; i < c.n_decoder_layers; ++i) {
    bool local;
    if (types) {
      const json& t = (*types)[static_cast<size_t>(i)];
      if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
        f.fail("field \"layer_types\": layer ", i, " is ", t.dump(), " (sliding_attention or full_attention)");
      local = t == "sliding_attention";
    } else {
      local = gemma3 ? (pattern <= 0 || (i + 1) % pattern != 0) : i % 2 == 0;
    }
    c.layer_windows.push_back(local ? window : 0);
  }
  return p;
}

const NameTable& names_gemma() {
  // Llama's names, with Gemma's four norms: post_attention_layernorm is the attention's
  // post norm here (in Llama it is the MLP's pre norm).
  static const NameTable table = [] {
    NameTable t{"gemma", {"model."}, llama_layer_rules(),
                // Ignored: rotary frequencies (HF Gemma*PreTrainedModel list nothing; from_pretrained
                // drops any r"rotary_emb\.inv_freq", and Gemma 3's rotary_emb_local.inv_freq is a
                // non-persistent buffer, dropped from a file's unexpected keys).
                {"*rotary_emb.inv_freq", "*rotary_emb_local.inv_freq"},
                {"lm_head.weight"}};
    t.rules.push_back({"dec.{i}.post_attn_norm.gamma", "layers.{i}.post_attention_layernorm.weight"});
    t.rules.push_back({"dec.{i}.norm_ffn.gamma", "layers.{i}.pre_feedforward_layernorm.weight"});
    t.rules.push_back({"dec.{i}.post_ffn_norm.gamma", "layers.{i}.post_feedforward_layernorm.weight"});
    return t;
  }();
  return table;
}

}  // namespace tfp::model
