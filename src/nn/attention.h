// Scaled dot-product and multi-head attention (Vaswani et al. 2017), as PyTorch's
// nn.MultiheadAttention computes it, for one sequence at a time (batching is a loop
// in the caller), with the options today's model families add: grouped-query attention
// (fewer key/value heads), a head size of its own, another score scale, logit
// soft-capping, q/k norms, positions inside attention (hooks) and a KV cache. One
// function, attention(), serves encoder self-attention, decoder self-attention (cached
// or not) and cross-attention. Every call can return its attention probabilities per
// head for the inspector.
//
// Legend: Tq query tokens, Tk key/value tokens, C model width, H query heads, Hkv key/value
// heads, D head size (C/H unless the model says otherwise).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/tensor.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"

namespace tfp::nn {

// Which key positions each query may see. Additive masks follow PyTorch: a float
// mask is added to the scores; a boolean mask marks *disallowed* positions (true =
// masked) and becomes -inf.
struct AttentionMask {
  bool causal = false;              // query i sees keys j <= i + (Tk - Tq)  (KV cache aware)
  std::vector<uint8_t> key_padding; // (Tk): 1 = padding, masked for every query; empty = none
  Tensor additive;                  // (Tq, Tk) or (H, Tq, Tk) added to scores; empty = none
  int window = 0;                   // local attention: keys within |i - j| <= window; 0 = all
                                    // (i counted as for causal: i + (Tk - Tq)); combines
                                    // with causal (then i - window <= j <= i)
};
// Order inside attention, per head:  s = q·kᵀ·scale → soft-cap → + hooks.score_bias → + additive
// → -inf where causal / window / key_padding forbid → softmax (an all -inf row gives
// probabilities 0 and output 0, never NaN) → probs·v.

// Optional hooks for positional schemes that act inside attention instead of on the
// embeddings (RoPE rotates q and k; relative-position bias and ALiBi add to the scores).
// Plain callables, so attention knows no particular scheme; nn/positional_*.h build
// ready-made ones (rope_rotation(), alibi_score_bias(), RelativePositionBias::hook()).
// Positions are absolute: key/value row j is at kv_pos0 + j, query row i at
// kv_pos0 + (Tk - Tq) + i (queries are the newest tokens, as with a KV cache).
struct AttentionHooks {
  // Rotate one head's queries or keys in place, after projection and before the scores.
  // x points at row 0 of a (T, D) block with row stride ld (>= D); row r is at pos0 + r.
  using RotateFn = std::function<void(float* x, int T, int D, int64_t ld, int64_t pos0)>;
  // Add a bias to one head's scaled scores. scores (Tq, Tk) with row stride ld.
  using ScoreBiasFn = std::function<void(int head, float* scores, int Tq, int Tk, int64_t ld,
                                         int64_t q_pos0, int64_t k_pos0)>;
  // Sees, and may edit, the per-head outputs (H, Tq, D) = probs·v before the output
  // projection; the projection then uses the edited values (head ablation and scaling,
  // inspect/head_mask.h). Called by multi_head_attention (and the KV-cached paths of
  // nn/decoder_layer.cpp); scaled_dot_product_attention leaves it to its caller.
  using EditHeadsFn = std::function<void(Tensor& head_out)>;
  RotateFn rotate;         // empty = none
  ScoreBiasFn score_bias;  // empty = none
  EditHeadsFn edit_heads;  // empty = none (nothing is copied)
  // Activation patching of q, k, v and the pattern (multi_head_attention and attention()
  // only; each empty = none, nothing copied). They see, and may edit, copies of this call's
  // q (H, Tq, D) after its norm and rotation, its new k and v (Hkv, Tnew, D) before they
  // enter a cache, and the softmax (H, Tq, Tk) before probs·v; the edits flow on.
  EditHeadsFn edit_q, edit_k, edit_v, edit_pattern;
  int64_t kv_pos0 = 0;     // absolute position of key/value row 0
};

// Query/key/value projections: either one fused projection as in PyTorch's
// in_proj_weight / GPT-2's c_attn, or three separate ones as in BERT and Llama.
struct AttentionWeights {
  Linear qkv;        // fused: output features H·D + 2·Hkv·D, order q | k | v; empty when separate
  Linear q, k, v;    // separate; used when qkv is empty
  Linear out;        // (C, H·D) output projection; empty = none (heads concatenated)
  LayerNormWeights q_norm, k_norm;  // (D) per-head norms of q and k before rotation (Qwen3,
                                    // Gemma 3); empty = none
};
// Shapes accepted: fused qkv maps C → H·D + 2·Hkv·D (x_kv must then be C wide). Separate
// q maps C → H·D; k and v map Ckv → Hkv·D, where Ckv = x_kv's width may differ from C
// (PyTorch's kdim/vdim).

// Where attention differs between model families (all defaults = Vaswani / PyTorch).
struct AttentionOptions {
  int n_heads = 1;       // H query heads
  int n_kv_heads = 0;    // Hkv; 0 = H. Fewer = grouped-query attention: query head h reads
                         // key/value head h / (H / Hkv) (Llama 2 70B, Llama 3, Qwen, Mistral)
  int head_dim = 0;      // D; 0 = the q projection's width / H
  float scale = 0.0f;    // scores = q·kᵀ·scale; 0 = 1/√D (T5 and GPT-Neo use 1)
  float softcap = 0.0f;  // Gemma 2: scores = softcap·tanh(scores / softcap); 0 = none
};

// Keys and values one attention block keeps between calls (a KV cache). Self-attention
// appends the new tokens' keys (already rotated at their absolute positions) and values;
// cross-attention (memory = true) projects the encoder memory once and reuses it.
struct AttentionCache {
  Tensor k, v;            // (Hkv, capacity, D): head g's first `length` rows are contiguous
  int64_t length = 0;     // positions filled
  int64_t capacity = 0;
  bool memory = false;    // cross-attention: filled once from the memory, never appended

  void reset(int n_kv_heads, int64_t head_dim, int64_t capacity);
  void clear() { length = 0; if (memory) { k = {}; v = {}; capacity = 0; } }
};

struct AttentionResult {
  Tensor out;    // (Tq, C)
  Tensor probs;  // (H, Tq, Tk) when requested, else empty
  // The per-head inputs and output of the scores, when need_heads is set (else empty):
  // what the inspector's query-key drill-down replays (inspect/attention_steps.h).
  Tensor q, k, v;    // (H, Tq, D), (H, Tk, D), (H, Tk, D) after projection and any rotation
  Tensor head_out;   // (H, Tq, D) probs·v per head, before the output projection
};

// The one attention: project, norm q and k (if configured), rotate (hooks.rotate), score,
// soft-cap, add biases and masks, softmax, mix the values, output projection.
// With a cache: self-attention appends the new keys/values (positions continue from
// cache->length; queries sit at the newest positions) and attends over everything cached;
// a memory cache projects x_kv the first time and ignores it afterwards.
// need_heads: also return q, k, v (k, v repeated per query head under GQA) and head_out.
AttentionResult attention(const TensorView& x_q,   // (Tq, C)
                          const TensorView& x_kv,  // (Tk, Ckv); x_q for self-attention
                          const AttentionWeights& w, const AttentionOptions& opt,
                          const AttentionMask& mask, bool need_probs,
                          const AttentionHooks& hooks = {}, bool need_heads = false,
                          AttentionCache* cache = nullptr);

// attention() with H heads and every other option at its default, no cache.
// Self-attention when x_kv is the same tensor as x_q, cross-attention otherwise.
AttentionResult multi_head_attention(const TensorView& x_q,   // (Tq, C)
                                     const TensorView& x_kv,  // (Tk, C)
                                     const AttentionWeights& w, int n_heads,
                                     const AttentionMask& mask, bool need_probs,
                                     const AttentionHooks& hooks = {}, bool need_heads = false);

// Checks q (H, Tq, D), k (H, Tk, D), v (H, Tk, Dv) agree; errors name `op`.
void check_qkv_shapes(const char* op, const TensorView& q, const TensorView& k, const TensorView& v);

// The core on already projected, per-head tensors: softmax(q·kᵀ·scale + mask)·v.
// q (H, Tq, D), k (H, Tk, D), v (H, Tk, Dv) → out (H, Tq, Dv); probs (H, Tq, Tk) if asked.
// With hooks.rotate set, q and k are copied and rotated (the inputs stay untouched).
AttentionResult scaled_dot_product_attention(const TensorView& q, const TensorView& k,
                                             const TensorView& v, const AttentionMask& mask,
                                             float scale, bool need_probs,
                                             const AttentionHooks& hooks = {});

// The mask rules on their own, for other attention variants (additive/Bahdanau) and
// tools that compute scores themselves. validate_attention_mask throws naming `op` unless
// the mask fits H heads, Tq queries, Tk keys. apply_attention_mask adds head `head`'s
// additive slice to scores (Tq, Tk) (row stride ld) and sets forbidden positions to -inf.
void validate_attention_mask(const char* op, const AttentionMask& mask, int H, int Tq, int Tk);
void apply_attention_mask(float* scores, int64_t ld, int head, int Tq, int Tk,
                          const AttentionMask& mask);
// Whether query i may see key j under causal / window / key_padding (not the additive mask).
bool attention_allowed(const AttentionMask& mask, int i, int j, int Tq, int Tk);

}  // namespace tfp::nn
