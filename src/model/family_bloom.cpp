// BLOOM (Hugging Face BloomForCausalLM): no position code at all — ALiBi adds a per-head
// linear distance penalty to the scores — a LayerNorm right after the word embeddings,
// q|k|v fused per head, tanh-GELU MLP, pre-norm layers, tied head.
#include "model/families.h"

namespace tfp::model {

ParsedConfig parse_bloom(const Fields& f) {
  ParsedConfig p;
  p.family = CheckpointFamily::bloom;
  ModelConfig& c = p.config;
  c.architecture = Architecture::decoder_only;
  c.family = "bloom";
  c.d_model = f.find("n_embed") ? f.integer("n_embed") : f.integer("hidden_size");
  c.n_heads = f.find("n_head") ? f.integer("n_head") : f.integer("num_attention_heads");
  c.n_decoder_layers = f.find("n_layer") ? f.integer("n_layer") : f.integer("num_hidden_layers");
  c.d_ff = 4 * c.d_model;
  c.vocab_size = f.integer("vocab_size");
  c.max_positions = f.integer("seq_length", 2048);  // ALiBi has no table: the KV cache's default size
  c.layer_norm_eps = f.number("layer_norm_epsilon", 1e-5f);
  if (f.boolean("apply_residual_connection_post_layernorm", false))
    f.fail("apply_residual_connection_post_layernorm=true is not supported");
  if (f.integer("pretraining_tp", 1) != 1 && f.boolean("slow_but_exact", false))
    f.fail("slow_but_exact with pretraining_tp > 1 is not supported");
  c.activation = nn::Activation::gelu_tanh;  // bloom_gelu: the tanh approximation
  c.norm_first = true;
  c.positional = Positional::alibi;
  c.embedding_norm = true;  // word_embeddings_layernorm
  c.decoder_final_norm = true;
  c.fused_qkv = true;  // query_key_value, per head (reordered to q | k | v when bound)
  c.lm_head = true;
  c.tied_lm_head = true;
  return p;
}

const NameTable& names_bloom() {
  using T = NameRule::Transform;
  static const NameTable table{
      "bloom",
      {"transformer."},
      {
          {"embed.token", "word_embeddings.weight"},
          {"embed.norm.gamma", "word_embeddings_layernorm.weight"},
          {"embed.norm.beta", "word_embeddings_layernorm.bias"},
          {"dec.{i}.norm_attn.gamma", "h.{i}.input_layernorm.weight"},
          {"dec.{i}.norm_attn.beta", "h.{i}.input_layernorm.bias"},
          {"dec.{i}.attn.qkv.weight", "h.{i}.self_attention.query_key_value.weight", nn::WeightLayout::OutIn, T::per_head_qkv},
          {"dec.{i}.attn.qkv.bias", "h.{i}.self_attention.query_key_value.bias", nn::WeightLayout::OutIn, T::per_head_qkv},
          {"dec.{i}.attn.out.weight", "h.{i}.self_attention.dense.weight"},
          {"dec.{i}.attn.out.bias", "h.{i}.self_attention.dense.bias"},
          {"dec.{i}.norm_ffn.gamma", "h.{i}.post_attention_layernorm.weight"},
          {"dec.{i}.norm_ffn.beta", "h.{i}.post_attention_layernorm.bias"},
          {"dec.{i}.ffn.fc1.weight", "h.{i}.mlp.dense_h_to_4h.weight"},
          {"dec.{i}.ffn.fc1.bias", "h.{i}.mlp.dense_h_to_4h.bias"},
          {"dec.{i}.ffn.fc2.weight", "h.{i}.mlp.dense_4h_to_h.weight"},
          {"dec.{i}.ffn.fc2.bias", "h.{i}.mlp.dense_4h_to_h.bias"},
          {"dec.norm.gamma", "ln_f.weight"},
          {"dec.norm.beta", "ln_f.bias"},
      },
      // Ignored: the causal mask Megatron-converted files may carry (HF BloomPreTrainedModel
      // _keys_to_ignore_on_load_missing [r"h.*.self_attention.scale_mask_softmax.causal_mask"],
      // transformers 4.2x).
      {"h.{i}.self_attention.scale_mask_softmax.causal_mask"},
      {"lm_head.weight"},
  };
  return table;
}

}  // namespace tfp::model
