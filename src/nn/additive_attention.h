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

// s (Tq, Cs) queries, h (Tk, Ch) encoder states. The mask uses the same rules as
// dot-product attention (key_padding for padded source tokens; causal/window/additive
// work too), with H = 1.
AdditiveAttentionResult additive_attention(const TensorView& s, const TensorView& h,
                                           const AdditiveAttentionWeights& w,
                                           const AttentionMask& mask = {});

}  // namespace tfp::nn
