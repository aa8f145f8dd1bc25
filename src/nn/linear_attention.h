// Linear attention (Katharopoulos et al. 2020, "Transformers are RNNs"): replace
// exp(q·k) by a feature-map kernel φ(q)·φ(k) with φ(x) = elu(x) + 1 > 0. Then
//   out_i = Σ_j φ(q_i)·φ(k_j) v_j / Σ_j φ(q_i)·φ(k_j)
//         = φ(q_i)ᵀ (Σ_j φ(k_j) v_jᵀ) / φ(q_i)ᵀ (Σ_j φ(k_j))
// and the bracketed sums — a (D, Dv) matrix and a (D) vector — are shared by every
// query: O(T·D·Dv) instead of O(T²·D). Causally the sums become running prefix sums,
// i.e. an RNN whose state is that matrix.
// The (Tq, Tk) matrix never exists in the fast path; when asked (need_probs) it is
// computed separately as φ(Q)φ(K)ᵀ with rows normalised, for the inspector: its rows sum
// to 1 and it reproduces the output (probs·v = out up to rounding).
// No √D scale (the kernel is not an exponential) and no additive masks (there are no
// scores to add them to); causal and key padding are supported.
//
// Legend: H heads, Tq queries, Tk keys/values, D key width, Dv value width.
#pragma once
#include <vector>

#include "core/tensor.h"
#include "nn/attention.h"

namespace tfp::nn {

struct LinearAttentionOptions {
  bool causal = false;               // query i sees keys j <= i + (Tk - Tq), as AttentionMask
  std::vector<uint8_t> key_padding;  // (Tk): 1 = padding; empty = none
};

// φ(x) = elu(x) + 1 = x + 1 for x > 0, exp(x) otherwise; in place over n floats.
void elu_plus_one(float* x, size_t n);

// q (H, Tq, D), k (H, Tk, D), v (H, Tk, Dv) → out (H, Tq, Dv); probs (H, Tq, Tk) if asked.
// A query that sees no key (all padded / causal before the first key) outputs 0.
AttentionResult linear_attention(const TensorView& q, const TensorView& k, const TensorView& v,
                                 const LinearAttentionOptions& opt = {}, bool need_probs = false);

// The computation step by step, one head, for teaching: the running state after each key
//   S_j = Σ_{j' <= j} φ(k_j') v_j'ᵀ   z_j = Σ_{j' <= j} φ(k_j')
// (the causal form's recurrence; the last one is the non-causal S and z), and each query's
// feature maps, numerator φ(q_i)ᵀ S and denominator φ(q_i)ᵀ z, with S, z = S_i, z_i when causal and the
// last ones otherwise: out_i = numerator_i / denominator_i (linear_attention's out).
// q (T, D), k (T, D), v (T, Dv): queries and keys of the same T tokens.
struct LinearAttentionSteps {
  Tensor phi_q, phi_k; // (T, D) φ(q_i), φ(k_j)
  Tensor S;            // (T, D, Dv)
  Tensor z;            // (T, D)
  Tensor numerator;    // (T, Dv)
  Tensor denominator;  // (T), > 0 (φ > 0)
};
LinearAttentionSteps linear_attention_steps(const TensorView& q, const TensorView& k, const TensorView& v, bool causal);

}  // namespace tfp::nn
