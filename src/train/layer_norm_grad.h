// Layer normalisation (Ba, Kiros, Hinton 2016) and its backward pass, per row of C
// features, exactly as PyTorch nn.LayerNorm: biased variance, eps inside the sqrt.
//
//   mean = Σ x / C,  var = Σ (x - mean)² / C,  rstd = 1/√(var + eps)
//   x̂ = (x - mean)·rstd,   y = γ ⊙ x̂ + β
//
// Backward. With g = dy ⊙ γ (the gradient reaching x̂), differentiating x̂ through both
// mean and rstd gives the compact form (see llm.c's layernorm_backward for the same):
//   dx = rstd · ( g − mean(g) − x̂ · mean(g ⊙ x̂) )
// The two subtracted means are what normalisation does to gradients: a shift of all x
// changes nothing (so dx sums to zero), nor does a scaling (so dx ⊥ x̂).
//   dγ += Σ_rows dy ⊙ x̂,   dβ += Σ_rows dy
//
// The forward saves mean and rstd per row (N floats each) so the backward need not
// recompute them. Legend: N rows, C features.
#pragma once

namespace tfp::train {

// y (N, C); mean, rstd (N) saved for the backward (may be null if not training).
template <class T>
void layer_norm_forward(T* y, T* mean, T* rstd, const T* x /*(N, C)*/, const T* gamma /*(C)*/,
                        const T* beta /*(C)*/, int N, int C, T eps);

// dx (N, C) += ...;  dgamma, dbeta (C) += ...
template <class T>
void layer_norm_backward(T* dx, T* dgamma, T* dbeta, const T* dy /*(N, C)*/,
                         const T* x /*(N, C)*/, const T* gamma, const T* mean, const T* rstd,
                         int N, int C);

}  // namespace tfp::train
