// The query–key drill-down: every step of one attention row, replayed from what the real
// forward pass used. For layer l, head h and query token i:
//
//   q         the query vector of token i              (D)
//   k_j, v_j  every key and value vector               (Tk, D)
//   s_j       = q·k_j                                  raw match of query and key j
//   s_j/√D    the scaled score                         (keeps the logits' spread ~1 as D grows;
//                                                       the model's own scale where it differs)
//   cap·tanh  the soft-capped score                    (Gemma 2; = the scaled score elsewhere)
//   + b_j     the additive mask / positional bias      (ALiBi, T5 relative buckets; 0 for most)
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
// or compute anything when no observer asks (the layers test nn::wants_heads() first).
//
// Legend: H heads, Tq queries, Tk keys, D head size.
#pragma once
#include <string_view>

#include "core/tensor.h"
#include "nn/attention.h"
#include "nn/attention_report.h"

namespace tfp::inspect {

struct AttentionSteps {
  int head = 0, query = 0;
  float scale = 1.0f;  // 1/√D, or the model's own (T5, GPT-Neo: 1; Gemma: query_pre_attn_scalar^-½)
  float softcap = 0.0f;  // 0 = none
  Tensor q;            // (D)
  Tensor k, v;         // (Tk, D), (Tk, Dv)
  Tensor scores;       // (Tk) q·k_j
  Tensor scaled;       // (Tk) q·k_j · scale
  Tensor capped;       // (Tk) softcap·tanh(scaled / softcap), or scaled when there is no cap
  Tensor bias;         // (Tk) additive mask + positional bias; 0 where there is none or masked
  Tensor masked;       // (Tk) 1 where key j is forbidden for this query, else 0
  Tensor logits;       // (Tk) capped + bias, -inf where masked: the softmax's input
  Tensor probs;        // (Tk) softmax(logits); exactly 0 where masked
  Tensor weighted_v;   // (Tk, Dv) probs_j · v_j
  Tensor out;          // (Dv) Σ_j probs_j · v_j
};

// One row's steps from the captured tensors. q (H, Tq, D), k (H, Tk, D), v (H, Tk, Dv);
// mask (Tq, Tk), (H, Tq, Tk) or empty (= nothing masked). Throws tfp::Error naming
// the bad head / query / shape.
AttentionSteps attention_steps(const TensorView& q, const TensorView& k, const TensorView& v,
                               const TensorView& mask, int head, int query, float scale,
                               float softcap = 0.0f);

}  // namespace tfp::inspect
