// What a model is, independent of where its weights come from: the hyper-parameters
// that the forward pass and the weight binder need. The binder (src/model/, checkpoint
// name tables) fills this from a config.json (Hugging Face GPT-2/BERT, our own models)
// or from a PyTorch nn.Transformer description; the forward pass only reads it.
//
// The three families and how they map onto the fields:
//   GPT-2 (HF)          decoder_only, norm_first, gelu_tanh, learned positions,
//                       decoder_final_norm (ln_f), tied_lm_head, Conv1D (InOut) weights
//   BERT (HF)           encoder_only, post-LN, gelu_erf, learned positions + token types,
//                       embedding_norm, eps 1e-12, separate q/k/v (fused_qkv = false)
//   nn.Transformer      encoder_decoder, has_embeddings = false (inputs are embeddings),
//                       encoder/decoder final norms, relu or gelu, post-LN or norm_first
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "nn/feed_forward.h"

namespace tfp::model {

enum class Architecture { encoder_only, decoder_only, encoder_decoder };

enum class Positional {
  none,        // no positional information (nn.Transformer itself; permutation tests)
  learned,     // a (max_positions, C) table added to the token embeddings (GPT-2, BERT)
  sinusoidal,  // Vaswani et al. sin/cos, computed, not stored
};

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
  int64_t d_ff = 0;              // F, feed-forward hidden width
  int64_t vocab_size = 0;        // V (0 when has_embeddings is false)
  int64_t max_positions = 0;     // context length: learned table rows, KV-cache capacity
  int64_t type_vocab_size = 0;   // BERT token types (segment ids); 0 = none

  nn::Activation activation = nn::Activation::relu;
  bool norm_first = false;       // pre-LN layers (GPT-2, nn.Transformer norm_first=True)
  float layer_norm_eps = 1e-5f;  // every LayerNorm of the model

  // Embeddings. When has_embeddings is false the model takes (T, C) embeddings directly
  // (PyTorch nn.Transformer) and none of the fields below up to the heads apply.
  bool has_embeddings = true;
  Positional positional = Positional::learned;
  float embedding_scale = 1.0f;  // token embeddings × this (Vaswani: sqrt(d_model))
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
  EncoderHead encoder_head = EncoderHead::none;
  int64_t n_labels = 0;          // token_classifier outputs
  std::vector<std::string> id2label;  // the labels' names by id (config.json "id2label"), or none

  int64_t head_dim() const { return n_heads > 0 ? d_model / n_heads : 0; }
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
  TFP_CHECK(c.d_model % c.n_heads == 0, "model config: n_heads ", c.n_heads,
            " does not divide d_model ", c.d_model);
  TFP_CHECK(c.d_ff > 0, "model config: d_ff must be positive, got ", c.d_ff);
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
