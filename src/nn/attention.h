// Scaled dot-product and multi-head attention (Vaswani et al. 2017), as PyTorch's
// nn.MultiheadAttention computes it, for one sequence at a time (batching is a loop
// in the caller). Every call can return its attention probabilities per head for
// the inspector.
//
// Legend: Tq query tokens, Tk key/value tokens, C model width, H heads, D = C/H head size.
#pragma once
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
};

// Query/key/value projections: either one fused (3C, C) projection as in PyTorch's
// in_proj_weight / GPT-2's c_attn, or three separate ones as in BERT.
struct AttentionWeights {
  Linear qkv;        // fused: output features 3C, order q | k | v; empty when separate
  Linear q, k, v;    // separate; used when qkv is empty
  Linear out;        // (C, C) output projection
};

struct AttentionResult {
  Tensor out;    // (Tq, C)
  Tensor probs;  // (H, Tq, Tk) when requested, else empty
};

// Self-attention when x_kv is the same tensor as x_q, cross-attention otherwise.
AttentionResult multi_head_attention(const TensorView& x_q,   // (Tq, C)
                                     const TensorView& x_kv,  // (Tk, C)
                                     const AttentionWeights& w, int n_heads,
                                     const AttentionMask& mask, bool need_probs);

// The core on already projected, per-head tensors: softmax(q·kᵀ·scale + mask)·v.
// q (H, Tq, D), k (H, Tk, D), v (H, Tk, D) → out (H, Tq, D); probs (H, Tq, Tk) if asked.
AttentionResult scaled_dot_product_attention(const TensorView& q, const TensorView& k,
                                             const TensorView& v, const AttentionMask& mask,
                                             float scale, bool need_probs);

}  // namespace tfp::nn
