// Whole-model forward passes: embeddings → layer stack(s) → final norm → head, for the
// three architectures, plus PyTorch's nn.Transformer / TransformerEncoder /
// TransformerDecoder on embedding inputs. One sequence at a time (batching is a loop in
// the caller); no dropout (inference).
//
//   encoder_only    (BERT):    token + position + token-type embeddings, emb. LayerNorm,
//                              post-LN layers with a padding mask → hidden (T, C)
//                              [→ token classifier or masked-LM logits]
//   decoder_only    (GPT-2):   token + position embeddings, pre-LN causal layers, final
//                              LayerNorm, tied LM head → logits (T, V)
//   encoder_decoder (seq2seq): encoder stack + final norm → memory (S, C); decoder stack
//                              (causal self-attention, cross-attention over memory) +
//                              final norm → logits (T, V)
// Every pass reports its intermediates to an optional observer (names in
// inspect/observer.h), attention probabilities per layer and head included.
// Incremental decoding with a KV cache is in model/kv_cache.h.
//
// Legend: S source tokens, T target tokens, C width, V vocabulary.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "nn/observer.h"
#include "model/config.h"
#include "model/weights.h"
#include "nn/attention.h"
#include "nn/positional_rope.h"
#include "nn/transformer_block.h"

namespace tfp::model {

// A ready model: its config, its weights, and whatever owns the bytes the weights
// view (a loaded safetensors buffer), kept alive as long as the model.
struct Model {
  ModelConfig config;
  ModelWeights weights;
  std::shared_ptr<const void> backing;
};

struct ForwardResult {
  Tensor hidden;  // (T, C) last hidden states (after the final norm, if any)
  Tensor logits;  // (T, V) or (T, n_labels); empty when the model has no head
};

// ---- building blocks --------------------------------------------------------------

// Embeddings of ids placed at positions pos0, pos0+1, ... :
// token·embedding_scale + position (learned or sinusoidal) + token type, then the
// embedding LayerNorm if configured. token_types empty = all 0. Reports "<scope>.out".
// Errors name the offending position: id out of range, position beyond max_positions.
Tensor embed(const ModelConfig& cfg, const EmbeddingWeights& e, std::span<const int32_t> ids,
             std::span<const int32_t> token_types, int64_t pos0, const nn::Scope& scope);

// embed() in two steps, for callers that work on the token rows themselves (gradient
// attribution scales them): the table's rows for ids (T, C) as stored, and their sum with
// everything else embed() adds (× embedding_scale, positions, token types), before the
// embedding norm.
Tensor token_rows(const ModelConfig& cfg, const EmbeddingWeights& e, std::span<const int32_t> ids);
Tensor embedding_sum(const ModelConfig& cfg, const EmbeddingWeights& e, Tensor rows,
                     std::span<const int32_t> token_types, int64_t pos0);

// Vaswani et al.'s sinusoidal encoding, rows pos0 .. pos0+T-1 → (T, C): the model-order
// name (pos0 first) for nn::sinusoidal_encoding(T, C, pos0), which embed adds.
Tensor sinusoidal_positions(int64_t pos0, int64_t T, int64_t C);

// The encoder layers then the encoder final norm (if configured). x (S, C) → (S, C).
// Reports "enc.i.*" and "enc.norm.out" under the observer.
Tensor encoder_stack(const ModelConfig& cfg, const ModelWeights& w, const TensorView& x,
                     const nn::AttentionMask& mask, nn::Observer* obs = nullptr);

// The decoder layers then the decoder final norm. y (T, C), memory (S, C) or empty
// (decoder-only) → (T, C). With caches (one per layer, see kv_cache.h) y holds only the
// new tokens. Reports "dec.i.*" and "dec.norm.out". first (0..L) skips blocks 0..first-1:
// y is then the residual stream before block `first`.
Tensor decoder_stack(const ModelConfig& cfg, const ModelWeights& w, const TensorView& y,
                     const TensorView& memory, const nn::AttentionMask& self_mask,
                     const nn::AttentionMask& memory_mask,
                     std::vector<nn::DecoderLayerCache>* caches = nullptr,
                     nn::Observer* obs = nullptr, int64_t first = 0);

// hidden (T, C) → logits (T, V) with the (tied or separate) LM head. Reports "logits".
// With a vocabulary range [v_begin, v_end) (v_end -1 = V) only those columns: (T, v_end -
// v_begin), reading only those rows of the head (how a caller gets every logit of a long
// input a block at a time, without (T, V) floats at once).
Tensor lm_logits(const ModelConfig& cfg, const ModelWeights& w, const TensorView& hidden,
                 nn::Observer* obs = nullptr, int64_t v_begin = 0, int64_t v_end = -1);

// lm_logits over [v_begin, v_end) written into the caller's (T, v_end - v_begin) buffer out
// (nothing reported): the C API's blocks of logits with no second copy in the heap.
void lm_logits_into(const ModelConfig& cfg, const ModelWeights& w, const TensorView& hidden, int64_t v_begin,
                    int64_t v_end, float* out);

// The rows of hidden (T, C) that get logits: last_logits = 0 every row, k > 0 the last
// min(k, T) rows (a generation needs the last alone).
TensorView logit_rows(const Tensor& hidden, int64_t last_logits);

// The LM head as an nn::Linear (V, C): the separate head, or the tied token table. Throws
// when the model has none.
nn::Linear lm_head_of(const ModelConfig& cfg, const ModelWeights& w);
// BERT's masked-LM decoder (V, C) + bias: its own, or tied to the token table.
nn::Linear mlm_decoder_of(const ModelWeights& w);
// hidden (T, C) → the encoder head's output (T, n_labels) or (T, V); empty if none.
Tensor encoder_head(const ModelConfig& cfg, const ModelWeights& w, const TensorView& hidden,
                    nn::Observer* obs = nullptr);

// ---- token models -----------------------------------------------------------------

// BERT-like. padding (T): 1 = padding token (Hugging Face attention_mask 0), masked as
// a key for every query; empty = none.
ForwardResult forward_encoder_only(const ModelConfig& cfg, const ModelWeights& w,
                                   std::span<const int32_t> ids,
                                   std::span<const int32_t> token_types = {},
                                   const std::vector<uint8_t>& padding = {},
                                   nn::Observer* obs = nullptr, int64_t last_logits = 0);

// GPT-2-like: causal, logits for every position (last_logits: see logit_rows; < 0 none).
ForwardResult forward_decoder_only(const ModelConfig& cfg, const ModelWeights& w,
                                   std::span<const int32_t> ids, nn::Observer* obs = nullptr,
                                   int64_t last_logits = 0);

// forward_decoder_only from block `first` (0..L) on: resid (T, C) is the residual stream
// before that block, as forward_decoder_only reported it ("embed.out" for 0, "dec.{first-1}.out"
// after); first = L runs only the final norm and the head. A pass that changes nothing
// before block `first` gives the same result without the embedding and blocks 0..first-1
// again (activation patching's prefix reuse).
ForwardResult forward_decoder_only_from(const ModelConfig& cfg, const ModelWeights& w, const TensorView& resid,
                                        int64_t first, nn::Observer* obs = nullptr, int64_t last_logits = 0);

// The encoder side of an encoder_decoder token model: src ids → memory (S, C).
Tensor encode_source(const ModelConfig& cfg, const ModelWeights& w,
                     std::span<const int32_t> src_ids, const std::vector<uint8_t>& src_padding = {},
                     nn::Observer* obs = nullptr);

// Full seq2seq pass (teacher forcing): logits (T, V) for every target position.
ForwardResult forward_encoder_decoder(const ModelConfig& cfg, const ModelWeights& w,
                                      std::span<const int32_t> src_ids,
                                      std::span<const int32_t> tgt_ids,
                                      const std::vector<uint8_t>& src_padding = {},
                                      nn::Observer* obs = nullptr, int64_t last_logits = 0);

// ---- PyTorch nn.Transformer on embeddings -----------------------------------------

// PyTorch's mask arguments. Float masks are added to the scores; PyTorch's boolean masks
// (true = not allowed) convert with bool_mask(). Key padding: 1 = padded (ignored) key.
struct TransformerMasks {
  Tensor src_mask;                           // (S, S) additive; empty = none
  std::vector<uint8_t> src_key_padding;      // (S)
  Tensor tgt_mask;                           // (T, T) additive; empty = none
  bool tgt_causal = false;                   // same as tgt_mask = generate_square_subsequent_mask(T)
  std::vector<uint8_t> tgt_key_padding;      // (T)
  Tensor memory_mask;                        // (T, S) additive
  std::vector<uint8_t> memory_key_padding;   // (S)
};

// A PyTorch boolean mask (rows, cols), true = masked, as an additive mask (0 / -inf).
Tensor bool_mask(const std::vector<uint8_t>& masked, int64_t rows, int64_t cols);

// nn.Transformer.forward(src, tgt, masks) for one sequence: src (S, C), tgt (T, C) → (T, C).
Tensor transformer_forward(const ModelConfig& cfg, const ModelWeights& w, const TensorView& src,
                           const TensorView& tgt, const TransformerMasks& masks,
                           nn::Observer* obs = nullptr);
// nn.TransformerEncoder (with its final norm if configured): src (S, C) → (S, C).
Tensor transformer_encoder_forward(const ModelConfig& cfg, const ModelWeights& w,
                                   const TensorView& src, const TransformerMasks& masks,
                                   nn::Observer* obs = nullptr);
// nn.TransformerDecoder: tgt (T, C), memory (S, C) → (T, C).
Tensor transformer_decoder_forward(const ModelConfig& cfg, const ModelWeights& w,
                                   const TensorView& tgt, const TensorView& memory,
                                   const TransformerMasks& masks, nn::Observer* obs = nullptr);

// Layer options from the config (heads, activation, norms, attention options), the same
// for every layer.
nn::LayerOptions layer_options(const ModelConfig& cfg);
// Layer i's options on one side (encoder or decoder): the above plus the positional hooks
// that act inside attention (RoPE with the layer's base, ALiBi, the stack's relative bias).
nn::LayerOptions layer_options(const ModelConfig& cfg, const ModelWeights& w, bool encoder_side, size_t i);
// The stack's self-attention mask for layer i on one side: base with the layer's window.
nn::AttentionMask layer_mask(const ModelConfig& cfg, const nn::AttentionMask& base, bool encoder_side, size_t i);
// RoPE as the config applies it on a local (windowed) or global layer.
nn::RopeConfig rope_config(const ModelConfig& cfg, bool local);

}  // namespace tfp::model
