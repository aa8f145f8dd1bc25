// What a model is, independent of where its weights come from: the one description of
// an architecture that every model is built from (model/transformer.cpp assembles all of
// them from it). Each family's config.json maps onto these fields (model/config_json.cpp
// and model/family_*.cpp); the forward pass only reads it.
//
// The three families and how they map onto the fields:
//   GPT-2 (HF)          decoder_only, norm_first, gelu_tanh, learned positions,
//                       decoder_final_norm (ln_f), tied_lm_head, Conv1D (InOut) weights
//   BERT (HF)           encoder_only, post-LN, gelu_erf, learned positions + token types,
//                       embedding_norm, eps 1e-12, separate q/k/v (fused_qkv = false)
//   nn.Transformer      encoder_decoder, has_embeddings = false (inputs are embeddings),
//                       encoder/decoder final norms, relu or gelu, post-LN or norm_first
//   Llama/Qwen/Mistral  decoder_only, RMSNorm, RoPE (half-split), GQA, gated SiLU MLP
//   GPT-NeoX (Pythia)   partial RoPE, parallel residual, untied head
//   GPT-Neo             learned positions, local/global layers, no score scaling
//   BLOOM               ALiBi, embedding LayerNorm
//   Gemma 2/3           RMSNorm (1 + w), sandwich norms, √C embedding scale, local/global
//                       layers (two RoPE bases in Gemma 3), soft-capping (2), q/k norms (3)
//   T5                  encoder_decoder, relative bucketed bias, RMSNorm, no score scale
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "nn/feed_forward.h"
#include "nn/positional_rope.h"

namespace tfp::model {

enum class Architecture { encoder_only, decoder_only, encoder_decoder };

enum class Positional {
  none,        // no positional information (nn.Transformer itself; permutation tests)
  learned,     // a (max_positions, C) table added to the token embeddings (GPT-2, BERT)
  sinusoidal,  // Vaswani et al. sin/cos, computed, not stored, added to the embeddings
  rope,        // q and k rotated by position inside attention (Llama, Pythia, Gemma)
  alibi,       // a per-head linear distance penalty added to the scores (BLOOM)
  relative,    // a learned per-head bias by bucketed distance added to the scores (T5)
};

// RoPE as a family applies it (nn/positional_rope.h).
struct RopeSpec {
  double base = 10000.0;        // rope_theta
  double local_base = 0.0;      // layers with a window use this base instead (Gemma 3); 0 = base
  double fraction = 1.0;        // of each head's dimensions rotated (GPT-NeoX rotary_pct)
  bool interleaved = false;     // pairs (0,1),(2,3)… (GPT-J); false = rotate-half (p, p + R/2)
  nn::RopeScaling scaling = nn::RopeScaling::None;  // of the global layers
  double factor = 1.0, low_freq_factor = 1.0, high_freq_factor = 4.0;
  int64_t original_max_positions = 0;
};

// T5's relative position buckets (nn/positional_relative.h): encoders bidirectional,
// decoders causal; the table lives in layer 0 and every layer of the stack uses it.
struct RelativeSpec {
  int num_buckets = 32;
  int max_distance = 128;
};

enum class NormKind { layer_norm, rms_norm };

// What sits on top of an encoder-only stack.
enum class EncoderHead {
  none,              // hidden states are the output
  token_classifier,  // Linear C → n_labels per token (our part-of-speech tagger)
  masked_lm,         // BERT cls.predictions: dense C→C, gelu, LayerNorm, tied decoder + bias
};

struct ModelConfig {
  Architecture architecture = Architecture::decoder_only;
  std::string family;  // free tag for display: "gpt2", "bert", "torch_transformer", "tfp"

  int64_t d_model = 0;           // C
  int64_t n_heads = 0;           // H; must divide d_model
  int64_t n_encoder_layers = 0;  // encoder_only, encoder_decoder
  int64_t n_decoder_layers = 0;  // decoder_only, encoder_decoder
  int64_t d_ff = 0;              // F, feed-forward hidden width; 0 = attention-only layers (no MLP)
  int64_t vocab_size = 0;        // V (0 when has_embeddings is false)
  int64_t max_positions = 0;     // context length: learned table rows, KV-cache capacity
  int64_t type_vocab_size = 0;   // BERT token types (segment ids); 0 = none

  nn::Activation activation = nn::Activation::relu;
  bool gated_ffn = false;        // act(gate(x)) ⊙ fc1(x) → fc2 (Llama SwiGLU, Gemma/T5 v1.1 GeGLU)
  bool norm_first = false;       // pre-LN layers (GPT-2, nn.Transformer norm_first=True)
  float layer_norm_eps = 1e-5f;  // every norm of the model
  NormKind norm = NormKind::layer_norm;
  bool norm_plus_one = false;    // RMSNorm scale stored as w, applied as (1 + w) (Gemma)
  bool sandwich_norms = false;   // a norm on each sublayer's output too (Gemma 2/3)
  bool parallel_residual = false;  // x + SA(N1(x)) + FF(N2(x)) (GPT-NeoX use_parallel_residual)

  // Attention. Defaults: H heads of d_model / H, 1/√D, no caps, no windows.
  int64_t n_kv_heads = 0;        // 0 = n_heads; fewer = grouped-query attention
  int64_t head_dim_override = 0; // 0 = d_model / n_heads (Gemma, Qwen3 set their own)
  float attn_scale = 0.0f;       // 0 = 1/√head_dim; T5 and GPT-Neo: 1; Gemma: query_pre_attn_scalar^-½
  float attn_softcap = 0.0f;     // Gemma 2 attention logit soft-capping; 0 = none
  bool qk_norm = false;          // per-head norms of q and k (Qwen3, Gemma 3)
  bool qkv_bias = true;          // the q/k/v projections may have biases (absent = 0)
  bool out_bias = true;          // the attention output projection may have a bias
  bool ffn_bias = true;          // the feed-forward linears may have biases
  // Self-attention window per layer (decoder layers, or encoder layers for encoder_only):
  // 0 = global; W > 0 = local, a query sees itself and the W - 1 keys before it
  // (Mistral sliding_window, GPT-Neo window_size, Gemma local layers). Empty = all global.
  std::vector<int64_t> layer_windows;

  // Embeddings. When has_embeddings is false the model takes (T, C) embeddings directly
  // (PyTorch nn.Transformer) and none of the fields below up to the heads apply.
  bool has_embeddings = true;
  Positional positional = Positional::learned;
  bool sinusoidal_halves = false;  // sinusoidal: sines in channels 0..C/2-1, cosines after
  int64_t learned_offset = 0;      // learned: position p reads table row p + offset (OPT: 2);
                                   // the table has max_positions + offset rows
  RopeSpec rope;                   // Positional::rope
  RelativeSpec relative;           // Positional::relative
  float embedding_scale = 1.0f;  // token embeddings × this (Vaswani, Gemma: sqrt(d_model))
  bool embedding_norm = false;   // LayerNorm after summing embeddings (BERT)
  // encoder_decoder only: the decoder reuses the encoder's token embedding table.
  bool shared_src_tgt_embeddings = true;

  // Final norms after the last layer (nn.Transformer encoder.norm / decoder.norm,
  // GPT-2 ln_f). Pre-LN stacks need them; post-LN stacks usually have none.
  bool encoder_final_norm = false;
  bool decoder_final_norm = false;

  // Attention projections: one fused (3C, C) q|k|v projection (PyTorch in_proj, GPT-2
  // c_attn) or separate q, k, v (BERT).
  bool fused_qkv = true;

  // Heads. Decoders (decoder_only, encoder_decoder) with embeddings produce logits over
  // the vocabulary; tied_lm_head reuses the (decoder) token embedding table as the
  // output projection (GPT-2, no bias).
  bool lm_head = true;           // decoders: produce logits (V); false → hidden states
  bool tied_lm_head = true;
  float lm_head_scale = 1.0f;    // hidden × this before the head (T5 tied: d_model^-½)
  float final_softcap = 0.0f;    // Gemma 2 final logit soft-capping; 0 = none
  EncoderHead encoder_head = EncoderHead::none;
  int64_t n_labels = 0;          // token_classifier outputs
  std::vector<std::string> id2label;  // the labels' names by id (config.json "id2label"), or none

  int64_t head_dim() const {
    return head_dim_override > 0 ? head_dim_override : n_heads > 0 ? d_model / n_heads : 0;
  }
  int64_t kv_heads() const { return n_kv_heads > 0 ? n_kv_heads : n_heads; }
  // Layer i's window (0 = global). layer_windows describe the decoder's layers, or the
  // encoder's in an encoder-only model.
  int64_t window(size_t i) const { return i < layer_windows.size() ? layer_windows[i] : 0; }
  int64_t layer_window(bool encoder_side, size_t i) const {
    return encoder_side == (architecture == Architecture::encoder_only) ? window(i) : 0;
  }
  bool has_encoder() const { return architecture != Architecture::decoder_only; }
  bool has_decoder() const { return architecture != Architecture::encoder_only; }
};

inline const char* architecture_name(Architecture a) {
  switch (a) {
    case Architecture::encoder_only: return "encoder_only";
    case Architecture::decoder_only: return "decoder_only";
    case Architecture::encoder_decoder: return "encoder_decoder";
  }
  return "?";
}

// Throws tfp::Error with a clear message when the config cannot describe a model:
// heads not dividing d_model, zero sizes, layers missing for the architecture, ...
inline void check_config(const ModelConfig& c) {
  TFP_CHECK(c.d_model > 0, "model config: d_model must be positive, got ", c.d_model);
  TFP_CHECK(c.n_heads > 0, "model config: n_heads must be positive, got ", c.n_heads);
  TFP_CHECK(c.head_dim_override > 0 || c.d_model % c.n_heads == 0, "model config: n_heads ", c.n_heads,
            " does not divide d_model ", c.d_model);
  TFP_CHECK(c.n_kv_heads >= 0 && c.n_heads % c.kv_heads() == 0, "model config: ", c.kv_heads(),
            " key/value heads do not divide ", c.n_heads, " heads");
  TFP_CHECK(c.head_dim_override >= 0, "model config: negative head_dim");
  TFP_CHECK(c.learned_offset >= 0 && c.learned_offset <= 1024, "model config: learned_offset must be in 0..1024, got ",
            c.learned_offset);
  TFP_CHECK(!c.parallel_residual || (c.norm_first && c.architecture == Architecture::decoder_only),
            "model config: a parallel residual needs a pre-norm decoder-only model");
  TFP_CHECK(c.positional != Positional::rope || (c.rope.fraction > 0 && c.rope.fraction <= 1 &&
                                                 static_cast<int64_t>(c.head_dim() * c.rope.fraction) % 2 == 0),
            "model config: RoPE rotates an even number of each head's ", c.head_dim(),
            " dimensions; the fraction ", c.rope.fraction, " gives ", c.head_dim() * c.rope.fraction);
  TFP_CHECK(c.positional != Positional::relative || (c.relative.num_buckets >= 2 && c.relative.max_distance >= 1),
            "model config: relative positions need num_buckets >= 2 and max_distance >= 1");
  for (const int64_t w : c.layer_windows)
    TFP_CHECK(w == 0 || (w >= 2 && w <= (1 << 30)), "model config: a layer window must be 0 (global) or ",
              ">= 2 keys, got ", w);
  TFP_CHECK(c.attn_scale >= 0 && c.attn_softcap >= 0 && c.final_softcap >= 0 && c.lm_head_scale > 0,
            "model config: attention scale, soft-caps and head scale must not be negative");
  // Every scale finite: a derived one can overflow float (Gemma's query_pre_attn_scalar 1e-300).
  for (const float x : {c.layer_norm_eps, c.attn_scale, c.attn_softcap, c.embedding_scale, c.lm_head_scale,
                        c.final_softcap})
    TFP_CHECK(std::isfinite(x), "model config: eps, scales and soft-caps must be finite (one is ", x, ")");
  TFP_CHECK(c.d_ff >= 0, "model config: d_ff must be positive (or 0: attention-only layers), got ", c.d_ff);
  TFP_CHECK(c.n_encoder_layers >= 0 && c.n_decoder_layers >= 0,
            "model config: negative layer count");
  // A bare decoder stack with cross-attention (PyTorch nn.TransformerDecoder) takes its
  // memory as an input: encoder_decoder with zero encoder layers and no embeddings.
  const bool bare_decoder = c.architecture == Architecture::encoder_decoder && !c.has_embeddings;
  TFP_CHECK(!c.has_encoder() || c.n_encoder_layers > 0 || bare_decoder, "model config: ",
            architecture_name(c.architecture), " needs n_encoder_layers > 0");
  TFP_CHECK(!c.has_decoder() || c.n_decoder_layers > 0, "model config: ",
            architecture_name(c.architecture), " needs n_decoder_layers > 0");
  TFP_CHECK(c.layer_norm_eps > 0.0f, "model config: layer_norm_eps must be positive");
  if (c.has_embeddings) {
    TFP_CHECK(c.vocab_size > 0, "model config: vocab_size must be positive, got ", c.vocab_size);
    TFP_CHECK(c.positional != Positional::learned || c.max_positions > 0,
              "model config: learned positions need max_positions > 0");
  }
  TFP_CHECK(c.encoder_head != EncoderHead::token_classifier || c.n_labels > 0,
            "model config: token_classifier head needs n_labels > 0");
  TFP_CHECK(c.encoder_head != EncoderHead::token_classifier || c.id2label.empty() ||
                static_cast<int64_t>(c.id2label.size()) == c.n_labels,
            "model config: id2label names ", c.id2label.size(), " labels, n_labels is ", c.n_labels);
  TFP_CHECK(c.encoder_head != EncoderHead::masked_lm || c.has_embeddings,
            "model config: masked_lm head needs token embeddings (it is tied to them)");
}

}  // namespace tfp::model
