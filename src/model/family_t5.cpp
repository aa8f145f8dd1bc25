// T5 (v1.0, v1.1, Flan-T5; Hugging Face T5ForConditionalGeneration): an encoder–decoder
// with no position code but a learned relative bucketed bias added to the scores (the
// table lives in layer 0 of each stack: bidirectional buckets in the encoder, causal in
// the decoder), unscaled q·k, RMS norms without bias, pre-norm layers, no biases anywhere,
// a ReLU MLP (v1.0) or a gated GELU one (v1.1), one shared embedding table, and a head
// tied to it with the hidden states × d_model^-½ (v1.0) or a separate lm_head (v1.1).
#include <cmath>

#include "model/families.h"

namespace tfp::model {

ParsedConfig parse_t5(const Fields& f) {
  ParsedConfig p;
  p.family = CheckpointFamily::t5;
  ModelConfig& c = p.config;
  c.architecture = Architecture::encoder_decoder;
  c.family = "t5";
  c.d_model = f.integer("d_model");
  c.n_heads = f.integer("num_heads");
  c.head_dim_override = f.integer("d_kv", 64);
  c.d_ff = f.integer("d_ff");
  c.n_encoder_layers = f.integer("num_layers");
  c.n_decoder_layers = f.integer("num_decoder_layers", c.n_encoder_layers);
  c.vocab_size = f.integer("vocab_size");
  c.max_positions = f.integer("n_positions", 512);  // no table: the KV cache's default size
  c.layer_norm_eps = f.number("layer_norm_epsilon", 1e-6f);
  // "relu", "gated-gelu" (v1.1: the gate uses gelu_new), "gated-silu", ...
  const std::string proj = f.string("feed_forward_proj", "relu");
  const bool gated = proj.starts_with("gated-");
  const std::string act = gated ? proj.substr(6) : proj;
  c.gated_ffn = gated;
  try {
    c.activation = nn::activation_from_string(act == "gelu" ? "gelu_new" : act);
  } catch (const Error&) {
    f.fail("field \"feed_forward_proj\": \"", proj, "\" is not supported (relu, gated-gelu, gated-silu, ...)");
  }
  c.norm = NormKind::rms_norm;
  c.norm_first = true;
  c.positional = Positional::relative;
  c.relative.num_buckets = static_cast<int>(f.integer("relative_attention_num_buckets", 32));
  c.relative.max_distance = static_cast<int>(f.integer("relative_attention_max_distance", 128));
  c.attn_scale = 1.0f;  // T5 folds the scale into its initialisation
  c.qkv_bias = c.out_bias = c.ffn_bias = false;
  c.encoder_final_norm = c.decoder_final_norm = true;
  c.fused_qkv = false;
  c.shared_src_tgt_embeddings = true;
  c.lm_head = true;
  c.tied_lm_head = f.boolean("tie_word_embeddings", true);
  if (c.tied_lm_head) c.lm_head_scale = 1.0f / std::sqrt(static_cast<float>(c.d_model));
  p.decoder_start_token_id = f.integer("decoder_start_token_id", f.integer("pad_token_id", 0));
  return p;
}

const NameTable& names_t5() {
  static const NameTable table{
      "t5",
      {},
      {
          {"embed.token", "shared.weight|encoder.embed_tokens.weight"},
          {"enc.relative_bias", "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"},
          {"enc.{i}.norm_attn.gamma", "encoder.block.{i}.layer.0.layer_norm.weight"},
          {"enc.{i}.attn.q.weight", "encoder.block.{i}.layer.0.SelfAttention.q.weight"},
          {"enc.{i}.attn.k.weight", "encoder.block.{i}.layer.0.SelfAttention.k.weight"},
          {"enc.{i}.attn.v.weight", "encoder.block.{i}.layer.0.SelfAttention.v.weight"},
          {"enc.{i}.attn.out.weight", "encoder.block.{i}.layer.0.SelfAttention.o.weight"},
          {"enc.{i}.norm_ffn.gamma", "encoder.block.{i}.layer.1.layer_norm.weight"},
          {"enc.{i}.ffn.fc1.weight", "encoder.block.{i}.layer.1.DenseReluDense.wi.weight|encoder.block.{i}.layer.1.DenseReluDense.wi_1.weight"},
          {"enc.{i}.ffn.gate.weight", "encoder.block.{i}.layer.1.DenseReluDense.wi_0.weight"},
          {"enc.{i}.ffn.fc2.weight", "encoder.block.{i}.layer.1.DenseReluDense.wo.weight"},
          {"enc.norm.gamma", "encoder.final_layer_norm.weight"},
          {"dec.relative_bias", "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"},
          {"dec.{i}.norm_attn.gamma", "decoder.block.{i}.layer.0.layer_norm.weight"},
          {"dec.{i}.attn.q.weight", "decoder.block.{i}.layer.0.SelfAttention.q.weight"},
          {"dec.{i}.attn.k.weight", "decoder.block.{i}.layer.0.SelfAttention.k.weight"},
          {"dec.{i}.attn.v.weight", "decoder.block.{i}.layer.0.SelfAttention.v.weight"},
          {"dec.{i}.attn.out.weight", "decoder.block.{i}.layer.0.SelfAttention.o.weight"},
          {"dec.{i}.norm_cross.gamma", "decoder.block.{i}.layer.1.layer_norm.weight"},
          {"dec.{i}.cross.q.weight", "decoder.block.{i}.layer.1.EncDecAttention.q.weight"},
          {"dec.{i}.cross.k.weight", "decoder.block.{i}.layer.1.EncDecAttention.k.weight"},
          {"dec.{i}.cross.v.weight", "decoder.block.{i}.layer.1.EncDecAttention.v.weight"},
          {"dec.{i}.cross.out.weight", "decoder.block.{i}.layer.1.EncDecAttention.o.weight"},
          {"dec.{i}.norm_ffn.gamma", "decoder.block.{i}.layer.2.layer_norm.weight"},
          {"dec.{i}.ffn.fc1.weight", "decoder.block.{i}.layer.2.DenseReluDense.wi.weight|decoder.block.{i}.layer.2.DenseReluDense.wi_1.weight"},
          {"dec.{i}.ffn.gate.weight", "decoder.block.{i}.layer.2.DenseReluDense.wi_0.weight"},
          {"dec.{i}.ffn.fc2.weight", "decoder.block.{i}.layer.2.DenseReluDense.wo.weight"},
          {"dec.norm.gamma", "decoder.final_layer_norm.weight"},
          {"lm_head.weight", "lm_head.weight"},
          {"lm_head.bias", "lm_head.bias"},
      },
      // Ignored: a relative-position table the first decoder block's cross-attention holds in
      // files saved by older transformers versions (Flan-T5, T5 v1.0), which no attention
      // reads (HF T5Model / T5ForConditionalGeneration / T5ForSequenceClassification /
      // T5ForQuestionAnswering _keys_to_ignore_on_load_unexpected).
      {"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"},
      // Copies of the shared table some files also store; a tied model's stored head.
      {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight"},
  };
  return table;
}

}  // namespace tfp::model
