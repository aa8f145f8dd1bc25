// Scaled dot-product and multi-head attention (Vaswani et al. 2017), as PyTorch's
// nn.MultiheadAttention computes it, for one sequence at a time (batching is a loop
// in the caller). Every call can return its attention probabilities per head for
// the inspector.
//
// Legend: Tq query tokens, Tk key/value tokens, C model width, H heads, D = C/H head size.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/tensor.h"
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
// Order inside attention, per head:  s = q·kᵀ·scale  → + hooks.score_bias → + additive
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
  int64_t kv_pos0 = 0;     // absolute position of key/value row 0
};

// Query/key/value projections: either one fused (3C, C) projection as in PyTorch's
// in_proj_weight / GPT-2's c_attn, or three separate ones as in BERT.
struct AttentionWeights {
  Linear qkv;        // fused: output features 3C, order q | k | v; empty when separate
  Linear q, k, v;    // separate; used when qkv is empty
  Linear out;        // (C, C) output projection; empty = none (heads concatenated)
};
// Shapes accepted: fused qkv maps C → 3C (x_kv must then be C wide). Separate q maps
// C → C; k and v map Ckv → C, where Ckv = x_kv's width may differ from C (PyTorch's
// kdim/vdim). H must divide C.

struct AttentionResult {
  Tensor out;    // (Tq, C)
  Tensor probs;  // (H, Tq, Tk) when requested, else empty
  // The per-head inputs and output of the scores, when need_heads is set (else empty):
  // what the inspector's query-key drill-down replays (inspect/attention_steps.h).
  Tensor q, k, v;    // (H, Tq, D), (H, Tk, D), (H, Tk, D) after projection and any rotation
  Tensor head_out;   // (H, Tq, D) probs·v per head, before the output projection
};

// Self-attention when x_kv is the same tensor as x_q, cross-attention otherwise.
// need_heads: also return q, k, v and head_out (copies; nothing extra when false).
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
