// The query–key drill-down: every step of one attention row, replayed from what the real
// forward pass used. For layer l, head h and query token i:
//
//   q         the query vector of token i              (D)
//   k_j, v_j  every key and value vector               (Tk, D)
//   s_j       = q·k_j                                  raw match of query and key j
//   s_j/√D    the scaled score                         (keeps the logits' spread ~1 as D grows)
//   + b_j     the additive mask / positional bias      (0 for most models)
//   -inf      where the mask forbids key j             (causal future, padding)
//   p_j       = softmax_j(...)                         one distribution over the keys
//   p_j·v_j   each value, weighted                     (Tk, D)
//   o         = Σ_j p_j·v_j                            the head's output for token i (D)
//
// The forward pass reports q, k, v (after projection and any rotation such as RoPE) and
// the mask it applied through the observer, under the names
//   "<block>.q" (H, Tq, D), "<block>.k" (H, Tk, D), "<block>.v" (H, Tk, D),
//   "<block>.mask" (Tq, Tk) or (H, Tq, Tk), "<block>.head_out" (H, Tq, D)
// where <block> is "enc.i.attn", "dec.i.attn" or "dec.i.cross" (see observer.h).
// attention_steps() then recomputes the row in double precision, so its probabilities
// are an independent re-derivation that must equal the engine's "<block>.probs" row.
//
// What this file does not do: run the model (the C API does, src/api/api_attention_steps.cpp),
// or compute anything when no observer asks (the layers test wants_heads() first).
//
// Legend: H heads, Tq queries, Tk keys, D head size.
#pragma once
#include <string_view>

#include "core/tensor.h"
#include "inspect/observer.h"
#include "nn/attention.h"

namespace tfp::inspect {

// The mask and biases a block adds to its scaled scores, as one matrix: the additive
// mask's value (0 without one) plus any positional score bias (ALiBi, relative), and
// -inf wherever causal / window / key_padding (or a -inf additive entry) forbid the key.
// (Tq, Tk), or (H, Tq, Tk) when the additive mask is per head or hooks.score_bias is set.
Tensor attention_mask_matrix(const nn::AttentionMask& mask, int H, int Tq, int Tk,
                             const nn::AttentionHooks& hooks = {});

// Whether the observer wants any of "<block>.q/k/v/mask" (block = "attn" or "cross"
// under the layer's scope). False, and allocation-free, without an observer.
bool wants_heads(const Scope& scope, std::string_view block);

// Hooks whose edit_heads reports "<block>.head_out" (H, Tq, D) from inside attention,
// before the output projection, so an observer's edit of it flows on (head ablation,
// inspect/head_mask.h). Empty hooks when the observer does not want it.
nn::AttentionHooks head_out_hooks(const Scope& scope, std::string_view block);

// Reports a.q, a.k, a.v (filled by multi_head_attention(..., need_heads)) and the
// block's mask matrix under "<block>.*", each only when wanted (head_out: see above).
void emit_heads(const Scope& scope, std::string_view block, nn::AttentionResult& a,
                const nn::AttentionMask& mask, int H);

struct AttentionSteps {
  int head = 0, query = 0;
  float scale = 1.0f;  // 1/√D
  Tensor q;            // (D)
  Tensor k, v;         // (Tk, D), (Tk, Dv)
  Tensor scores;       // (Tk) q·k_j
  Tensor scaled;       // (Tk) q·k_j · scale
  Tensor bias;         // (Tk) additive mask + positional bias; 0 where there is none or masked
  Tensor masked;       // (Tk) 1 where key j is forbidden for this query, else 0
  Tensor logits;       // (Tk) scaled + bias, -inf where masked: the softmax's input
  Tensor probs;        // (Tk) softmax(logits); exactly 0 where masked
  Tensor weighted_v;   // (Tk, Dv) probs_j · v_j
  Tensor out;          // (Dv) Σ_j probs_j · v_j
};

// One row's steps from the captured tensors. q (H, Tq, D), k (H, Tk, D), v (H, Tk, Dv);
// mask (Tq, Tk), (H, Tq, Tk) or empty (= nothing masked). Throws tfp::Error naming
// the bad head / query / shape.
AttentionSteps attention_steps(const TensorView& q, const TensorView& k, const TensorView& v,
                               const TensorView& mask, int head, int query, float scale);

}  // namespace tfp::inspect
