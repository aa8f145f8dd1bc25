// The linear layer y = x·Wᵀ + b and its backward pass, over N rows at once.
// W is stored (O, I) as in PyTorch nn.Linear (the layout the trainer keeps for every
// weight; GPT-2's transposed Conv1D layout is produced only when a checkpoint is written).
//
// Calculus, for one row (the batch is a sum over rows):
//   y_o = Σ_i W_oi x_i + b_o
//   ∂L/∂x_i  = Σ_o dy_o W_oi         →  dX  = dY · W
//   ∂L/∂W_oi = Σ_rows dy_o x_i       →  dW += dYᵀ · X
//   ∂L/∂b_o  = Σ_rows dy_o           →  db += column sums of dY
//
// Convention of every backward in src/train/: gradients are ADDED into their outputs
// (dx, dw, db). Parameter gradients accumulate over a batch (zeroed by the optimiser
// step), and an activation read by two consumers (a residual stream) simply receives
// both contributions. Callers zero activation-gradient buffers before the backward pass.
//
// Legend: N rows (batch × tokens), I input features, O output features.
#pragma once

namespace tfp::train {

// y (N, O) = x (N, I) · w (O, I)ᵀ + b (O); b may be null.
template <class T>
void linear_forward(T* y, const T* x, const T* w, const T* b, int N, int I, int O);

// dx (N, I) += dy·w;  dw (O, I) += dyᵀ·x;  db (O) += Σ_rows dy.  Any of dx, dw, db may be
// null (not needed: e.g. the input is token ids, or the layer has no bias).
template <class T>
void linear_backward(T* dx, T* dw, T* db, const T* dy /*(N, O)*/, const T* x /*(N, I)*/,
                     const T* w /*(O, I)*/, int N, int I, int O);

}  // namespace tfp::train
