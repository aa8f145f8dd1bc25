// The GRU (gated recurrent unit, Cho et al. 2014) at inference: one step for a batch of
// rows, and a whole sequence in one direction. Gate order and formulas are PyTorch
// nn.GRU's (weight_ih_l0 rows r | z | n):
//
//   r  = σ(W_ir x + b_ir + W_hr h + b_hr)          reset gate: how much past feeds n
//   z  = σ(W_iz x + b_iz + W_hz h + b_hz)          update gate: how much of h is kept
//   n  = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)) candidate state
//   h' = (1 − z) ⊙ n + z ⊙ h
//
// An RNN reads its input one token after another: step t needs h_{t−1}, so the steps of
// a sequence cannot run in parallel — the "sequential computation" the Transformer paper
// removes. The input products W_i·x of all steps CAN be computed at once, and are.
// The trainable version with its backward pass is train/seq_gru_cell.h.
//
// Legend: N rows, T steps, I input width, H state width.
#pragma once
#include "core/tensor.h"
#include "nn/linear.h"

namespace tfp::nn {

struct GruWeights {
  Linear ih;  // (3H, I) + bias (3H): W_ir | W_iz | W_in
  Linear hh;  // (3H, H) + bias (3H): W_hr | W_hz | W_hn
  int64_t hidden() const { return hh.in_features(); }
  bool empty() const { return ih.empty(); }
};

// One step: x (N, I), h (N, H) → h' (N, H).
Tensor gru_step(const TensorView& x, const TensorView& h, const GruWeights& w);

// A sequence x (T, I) from h0 (H) (empty = zeros), left to right or (reverse) right to
// left. Returns the state after each step at that step's position: (T, H), so row t is
// h→_t (forward) or h←_t (reverse).
Tensor gru_sequence(const TensorView& x, const GruWeights& w, bool reverse = false,
                    const TensorView& h0 = {});

}  // namespace tfp::nn
