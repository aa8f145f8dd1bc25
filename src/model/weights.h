// The weights of a whole model as views by role, and the one table that lists every
// role a config needs with its expected shape. The checkpoint binder maps file names to
// these roles (e.g. HF GPT-2 "h.3.attn.c_attn.weight" → role "dec.3.attn.qkv.weight",
// layout InOut); validation walks the same table, so a missing or mis-shaped tensor is
// reported by role name whatever file it came from.
//
// Role names (i = layer index; they mirror the observer names in inspect/observer.h):
//   embed.token (V,C)  embed.position (P,C)  embed.token_type (Tt,C)  embed.norm.{gamma,beta}
//   tgt_embed.token (V,C)   (encoder_decoder with shared_src_tgt_embeddings = false)
//   enc.i.attn.{qkv|q|k|v|out}.{weight,bias}   enc.i.norm_attn.{gamma,beta}
//   enc.i.ffn.{fc1,fc2}.{weight,bias}         enc.i.norm_ffn.{gamma,beta}
//   enc.i.ffn.gate.{weight,bias}  (gated_ffn)  enc.i.attn.{q_norm,k_norm}.gamma (qk_norm)
//   enc.i.post_attn_norm.*  enc.i.post_ffn_norm.*  (sandwich_norms)
//   enc.relative_bias (NB, H)  dec.relative_bias (NB, H)  (relative positions)
//   dec.i.attn.*  dec.i.norm_attn.*  dec.i.cross.*  dec.i.norm_cross.*  dec.i.ffn.*  dec.i.norm_ffn.*
//   enc.norm.{gamma,beta}  dec.norm.{gamma,beta}
//   lm_head.{weight,bias}  classifier.{weight,bias}
//   mlm.transform.{weight,bias}  mlm.norm.{gamma,beta}  mlm.bias (V)
//   mlm.decoder.weight (V,C)  optional: absent = tied to embed.token (BERT's usual case)
// Linear weights are listed with their PyTorch (out, in) shape; a slot whose Linear has
// layout InOut (GPT-2 Conv1D) expects the transpose. Biases are optional (absent = 0)
// but checked when present; so is mlm.decoder.weight (absent = tied). A config that says a
// family has no biases (qkv_bias, out_bias, ffn_bias false) has no bias slots, so a bias in
// its file is an unexpected tensor. RMSNorms have a gamma and no beta.
//
// How a binder uses it:
//   ModelWeights w = ModelWeights::for_config(cfg);   // layers sized, norm eps set
//   for (WeightSlot& s : weight_slots(cfg, w)) { s.view = <tensor named by my table>;
//                                                if (s.linear) s.linear->layout = ...; }
//   validate_weights(cfg, w);                          // throws listing every problem
#pragma once
#include <deque>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "model/config.h"
#include "nn/attention.h"
#include "nn/transformer_block.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"

namespace tfp::model {

struct EmbeddingWeights {
  TensorView token;           // (V, C); data null when token16 holds it
  HalfView token16;           // the table as a 16-bit checkpoint stored it (shape in token.shape)
  nn::Int8Weights token8;     // the table as int8 + one scale per row (shape in token.shape)
  TensorView position;        // (max_positions, C)  learned positions only
  TensorView token_type;      // (type_vocab_size, C) BERT only
  nn::LayerNormWeights norm;  // BERT embeddings.LayerNorm
};

struct ModelWeights {
  EmbeddingWeights embed;      // encoder side / the only embeddings
  EmbeddingWeights tgt_embed;  // decoder side of an encoder_decoder (token table may be shared)
  std::vector<nn::EncoderLayerWeights> encoder_layers;
  std::vector<nn::DecoderLayerWeights> decoder_layers;  // decoder_only layers live here too
  nn::LayerNormWeights encoder_norm;  // nn.Transformer encoder.norm
  nn::LayerNormWeights decoder_norm;  // nn.Transformer decoder.norm, GPT-2 ln_f
  TensorView encoder_relative_bias;   // (num_buckets, H) T5 relative_attention_bias of layer 0
  TensorView decoder_relative_bias;   // (num_buckets, H)
  nn::Linear lm_head;                 // (V, C); unused when tied_lm_head
  nn::Linear classifier;              // (n_labels, C)
  nn::Linear mlm_transform;           // (C, C) BERT cls.predictions.transform.dense
  nn::LayerNormWeights mlm_norm;      // BERT cls.predictions.transform.LayerNorm
  TensorView mlm_bias;                // (V) BERT cls.predictions.bias
  TensorView mlm_decoder;             // (V, C) untied cls.predictions.decoder.weight;
                                      // empty = the decoder is embed.token (tied)

  // Tensors the views may point into when nobody else owns them (converted f16
  // weights, randomly initialised test models). A deque keeps element addresses stable.
  std::deque<Tensor> storage;

  ModelWeights() = default;
  ModelWeights(ModelWeights&&) = default;             // deque move keeps addresses
  ModelWeights& operator=(ModelWeights&&) = default;
  ModelWeights(const ModelWeights&) = delete;         // a copy would point into the original
  ModelWeights& operator=(const ModelWeights&) = delete;

  // Empty weights shaped for cfg: layer vectors sized, every norm's eps and kind (LayerNorm
  // or RMSNorm, (1 + w)) as the config says.
  static ModelWeights for_config(const ModelConfig& cfg);

  // Keeps t in storage and returns a view of it.
  TensorView own(Tensor t);
};

struct WeightSlot {
  std::string role;         // "dec.3.attn.qkv.weight"
  TensorView* view;         // where the binder puts the tensor
  Shape expected;           // (out, in) for Linear weights — transposed if layout is InOut
  nn::Linear* linear;       // the Linear this weight/bias belongs to, else null
  bool required;            // false for biases and other optional tensors
  HalfView* half = nullptr;  // where a 16-bit tensor may be bound instead (Linear weights, token tables)
  nn::Int8Weights* int8 = nullptr;  // where int8 + per-row scales may be bound instead (same slots)

  Shape expected_now() const;  // expected, transposed for an InOut Linear weight
  bool empty() const { return view->empty() && (!half || half->empty()) && (!int8 || int8->empty()); }
  // The tensor as f32: the view itself, or a 16-bit or int8 one widened into `tmp` (an int8
  // Linear weight is (out, in): its slot's layout is OutIn).
  TensorView f32(Tensor& tmp) const;
  // The same values written into dst (numel of view->shape floats): copied, widened or
  // dequantised straight into place, with no temporary.
  void f32_into(float* dst) const;
};

// Every tensor slot cfg needs, in a stable order. Pointers point into `w`. If w has no
// layers yet they are created as for_config does (the other norms keep their eps).
std::vector<WeightSlot> weight_slots(const ModelConfig& cfg, ModelWeights& w);

// One line per problem: "dec.1.cross.qkv.weight: missing" or
// "enc.0.ffn.fc1.weight: shape [64, 32], expected [64, 16]". Empty = usable.
std::vector<std::string> weight_problems(const ModelConfig& cfg, const ModelWeights& w);

// check_config + weight_problems; throws tfp::Error listing every problem.
void validate_weights(const ModelConfig& cfg, const ModelWeights& w);

// Deterministic pseudo-random weights for tests, tutorials and the trainer's
// initialisation: normal(0, std) matrices, zero biases, unit gammas, layout OutIn (optional
// matrices such as mlm.decoder.weight stay absent: tied), the
// same numbers natively and in WASM. randomize_norms_and_biases (tests) draws biases and
// betas from normal(0, 0.1) and gammas from 1 + normal(0, 0.1) so that they matter.
ModelWeights random_weights(const ModelConfig& cfg, uint64_t seed, float std = 0.02f,
                            bool randomize_norms_and_biases = false);

}  // namespace tfp::model
