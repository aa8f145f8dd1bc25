// GPT-NeoX (Pythia, Hugging Face GPTNeoXForCausalLM): LayerNorm pre-norm layers, RoPE on
// a fraction of each head's dimensions (rotary_pct), a parallel residual by default
// (x + attn(ln1(x)) + mlp(ln2(x))), q|k|v fused per head, an untied output head embed_out.
#include "model/families.h"

namespace tfp::model {

ParsedConfig parse_gpt_neox(const Fields& f) {
  ParsedConfig p;
  p.family = CheckpointFamily::gpt_neox;
  ModelConfig& c = p.config;
  c.architecture = Architecture::decoder_only;
  c.family = "gpt_neox";
  c.d_model = f.integer("hidden_size");
  c.n_heads = f.integer("num_attention_heads");
  c.n_decoder_layers = f.integer("num_hidden_layers");
  c.d_ff = f.integer("intermediate_size", 4 * c.d_model);
  c.vocab_size = f.integer("vocab_size");
  c.max_positions = f.integer("max_position_embeddings", 2048);
  c.layer_norm_eps = f.number("layer_norm_eps", 1e-5f);
  c.activation = f.activation("hidden_act", "gelu");
  c.norm_first = true;
  c.parallel_residual = f.boolean("use_parallel_residual", true);
  c.positional = Positional::rope;
  parse_rope(f, c.rope, f.find("rope_theta") ? "rope_theta" : "rotary_emb_base", 10000.0);
  c.rope.fraction = f.real(f.find("partial_rotary_factor") ? "partial_rotary_factor" : "rotary_pct", 0.25);
  // HF rotates int(head_size · rotary_pct) dimensions: round the fraction down the same way.
  const int64_t D = c.d_model / (c.n_heads > 0 ? c.n_heads : 1);
  const int64_t rotated = static_cast<int64_t>(static_cast<double>(D) * c.rope.fraction);
  if (D > 0) c.rope.fraction = static_cast<double>(rotated) / static_cast<double>(D);
  c.qkv_bias = c.out_bias = f.boolean("attention_bias", true);
  c.decoder_final_norm = true;
  c.fused_qkv = true;  // query_key_value, per head (reordered to q | k | v when bound)
  c.lm_head = true;
  c.tied_lm_head = f.boolean("tie_word_embeddings", false);
  return p;
}

const NameTable& names_gpt_neox() {
  using T = NameRule::Transform;
  static const NameTable table{
      "gpt_neox",
      {"gpt_neox."},
      {
          {"embed.token", "embed_in.weight"},
          {"dec.{i}.norm_attn.gamma", "layers.{i}.input_layernorm.weight"},
          {"dec.{i}.norm_attn.beta", "layers.{i}.input_layernorm.bias"},
          {"dec.{i}.attn.qkv.weight", "layers.{i}.attention.query_key_value.weight", nn::WeightLayout::OutIn, T::per_head_qkv},
          {"dec.{i}.attn.qkv.bias", "layers.{i}.attention.query_key_value.bias", nn::WeightLayout::OutIn, T::per_head_qkv},
          {"dec.{i}.attn.out.weight", "layers.{i}.attention.dense.weight"},
          {"dec.{i}.attn.out.bias", "layers.{i}.attention.dense.bias"},
          {"dec.{i}.norm_ffn.gamma", "layers.{i}.post_attention_layernorm.weight"},
          {"dec.{i}.norm_ffn.beta", "layers.{i}.post_attention_layernorm.bias"},
          {"dec.{i}.ffn.fc1.weight", "layers.{i}.mlp.dense_h_to_4h.weight"},
          {"dec.{i}.ffn.fc1.bias", "layers.{i}.mlp.dense_h_to_4h.bias"},
          {"dec.{i}.ffn.fc2.weight", "layers.{i}.mlp.dense_4h_to_h.weight"},
          {"dec.{i}.ffn.fc2.bias", "layers.{i}.mlp.dense_4h_to_h.bias"},
          {"dec.norm.gamma", "final_layer_norm.weight"},
          {"dec.norm.beta", "final_layer_norm.bias"},
          {"lm_head.weight", "embed_out.weight"},
          {"lm_head.bias", "embed_out.bias"},
      },
      // Ignored: buffers older files (Pythia) carry: the causal masks (HF
      // GPTNeoXPreTrainedModel _keys_to_ignore_on_load_unexpected [r"attention.bias",
      // r"attention.masked_bias"]) and the rotary frequencies (from_pretrained drops any
      // r"rotary_emb\.inv_freq" when the model has such a buffer, per layer or model-wide).
      {"layers.{i}.attention.bias", "layers.{i}.attention.masked_bias", "*rotary_emb.inv_freq"},
      {},
  };
  return table;
}

}  // namespace tfp::model
