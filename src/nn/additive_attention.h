// Additive attention (Bahdanau, Cho & Bengio 2015), the attention of RNN translation
// before Transformers: a small feed-forward net scores how well decoder state s fits
// encoder state h_j,
//   e_j = vᵀ · tanh(W·s + U·h_j)        α = softmax(e)        context = Σ_j α_j · h_j
// Unlike dot-product attention, s and h_j may have different widths and no √D scale
// is needed (tanh bounds each term). U·h_j does not depend on the query, so it is
// computed once for all queries, as in the paper.
//
// Legend: Tq decoder states (queries), Tk encoder states (keys = values), Cs decoder
// width, Ch encoder width, A attention (hidden) width.
#pragma once
#include "core/tensor.h"
#include "nn/attention.h"
#include "nn/linear.h"

namespace tfp::nn {

struct AdditiveAttentionWeights {
  Linear query;  // W: Cs → A (bias optional; Bahdanau's b is usually put here)
  Linear key;    // U: Ch → A (bias optional)
  TensorView v;  // (A)
};

struct AdditiveAttentionResult {
  Tensor context;  // (Tq, Ch)  Σ_j α_ij · h_j
  Tensor scores;   // (Tq, Tk)  e_ij before the softmax, masked entries -inf
  Tensor probs;    // (Tq, Tk)  α_ij; masked entries exactly 0, all-masked rows all 0
};

// What happens inside the score, for readers who want every step (the Learn chapter on
// additive attention shows them): filled by the same pass that computes the result, so
// the intermediates are exactly the numbers the scores were made from.
struct AdditiveAttentionTrace {
  Tensor ws;      // (Tq, A)      W·s_i (+ W's bias)
  Tensor uh;      // (Tk, A)      U·h_j (+ U's bias)
  Tensor sum;     // (Tq, Tk, A)  W·s_i + U·h_j, the input of tanh
  Tensor hidden;  // (Tq, Tk, A)  tanh(W·s_i + U·h_j); e_ij = v · hidden_ij
};

// s (Tq, Cs) queries, h (Tk, Ch) encoder states. The mask uses the same rules as
// dot-product attention (key_padding for padded source tokens; causal/window/additive
// work too), with H = 1. trace (optional) receives the intermediates of the scores.
AdditiveAttentionResult additive_attention(const TensorView& s, const TensorView& h,
                                           const AdditiveAttentionWeights& w,
                                           const AttentionMask& mask = {},
                                           AdditiveAttentionTrace* trace = nullptr);

}  // namespace tfp::nn
