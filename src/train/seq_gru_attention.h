// Additive (Bahdanau) attention for training: one decoder step for a batch, forward with
// the activations the backward pass needs, and that backward pass. The inference version
// (one sequence, many queries) is nn/additive_attention.h; this one is the same formula:
//
//   e_j = vᵀ · tanh(q + k_j)     q = W·s + b (A)     k_j = U·h_j (A)
//   α   = softmax_j(e)           (padded source positions get e_j = −∞, so α_j = 0)
//   c   = Σ_j α_j · h_j          (Ch)
//
// The projections q = W·s + b and k = U·h are ordinary linear layers (linear_grad.h); the
// caller computes k for all source positions once per batch and q once per step. What
// is special — and what this file differentiates — is the score network and the
// weighted sum. With u_ja = tanh(q_a + k_ja):
//
//   dα_j = dc · h_j                      dh_j += α_j · dc              (weighted sum)
//   de_j = α_j · (dα_j − Σ_i α_i dα_i)                                 (softmax)
//   dv_a += Σ_j de_j · u_ja              dpre_ja = de_j · v_a · (1 − u_ja²)
//   dq_a += Σ_j dpre_ja                  dk_ja  += dpre_ja             (tanh, then the sum q + k)
//
// A padded position has α_j = 0, so it receives no gradient through either path.
//
// Legend: B rows (batch), S source positions, A attention width, Ch encoder-state width.
#pragma once
#include <cstdint>
#include <vector>

namespace tfp::train {

template <class T>
struct AdditiveStepCache {
  std::vector<T> probs;  // (B, S)  α
  std::vector<T> u;      // (B, S, A)  tanh(q + k_j)
};

// context (B, Ch) and cache from q (B, A), keys (B, S, A), h (B, S, Ch), v (A);
// pad (B, S): 1 = padded source position (may be null). Every row needs one real position.
template <class T>
void additive_step_forward(T* context, AdditiveStepCache<T>& cache, const T* q, const T* keys,
                           const T* h, const T* v, const uint8_t* pad, int B, int S, int A, int Ch);

// Adds into dq (B, A), dkeys (B, S, A), dh (B, S, Ch), dv (A); any may be null.
template <class T>
void additive_step_backward(T* dq, T* dkeys, T* dh, T* dv, const T* dcontext /*(B, Ch)*/,
                            const AdditiveStepCache<T>& cache, const T* h, const T* v, int B, int S,
                            int A, int Ch);

}  // namespace tfp::train
