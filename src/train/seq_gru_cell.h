// The GRU cell (Cho et al. 2014) for training: forward over a batch of rows with the
// activations the backward pass needs, and that backward pass. Gate order and formulas
// are PyTorch nn.GRU's, so the weights mean the same as a torch state_dict's
// weight_ih_l0 / weight_hh_l0 / bias_ih_l0 / bias_hh_l0:
//
//   gi = W_ih·x + b_ih          gh = W_hh·h + b_hh            (3H each: r | z | n)
//   r  = σ(gi_r + gh_r)                                       reset gate
//   z  = σ(gi_z + gh_z)                                       update gate
//   n  = tanh(gi_n + r ⊙ gh_n)                                candidate state
//   h' = (1 − z) ⊙ n + z ⊙ h                                  new state
//
// z near 1 keeps the old state (the gradient flows through "z ⊙ h" untouched — why a GRU
// remembers longer than a plain tanh RNN); r near 0 lets the candidate ignore the past.
// Note PyTorch puts r inside the hidden product's bias: r ⊙ (W_hn·h + b_hn), not
// W_hn·(r ⊙ h) as in the paper; we follow PyTorch.
//
// Backward, for one row, given dh' (the gradient reaching h'):
//   dn = dh' ⊙ (1 − z)        dz = dh' ⊙ (h − n)         dh  = dh' ⊙ z   (direct path)
//   dpre_n = dn ⊙ (1 − n²)    → dgi_n = dpre_n,   dgh_n = dpre_n ⊙ r,   dr = dpre_n ⊙ gh_n
//   dpre_z = dz ⊙ z(1 − z)    → dgi_z = dgh_z = dpre_z
//   dpre_r = dr ⊙ r(1 − r)    → dgi_r = dgh_r = dpre_r
//   dx  = W_ihᵀ·dgi     dh += W_hhᵀ·dgh     dW_ih += dgi·xᵀ   dW_hh += dgh·hᵀ   db += dg
// Gradients are ADDED into dx, dh_prev and the weight gradients (the src/train/ rule).
//
// Legend: B rows (batch), I input width, H state width.
#pragma once
#include <vector>

namespace tfp::train {

template <class T>
struct GruCellWeights {
  const T* w_ih = nullptr;  // (3H, I)
  const T* w_hh = nullptr;  // (3H, H)
  const T* b_ih = nullptr;  // (3H)
  const T* b_hh = nullptr;  // (3H)
};

template <class T>
struct GruCellGrads {
  T* w_ih = nullptr;  // (3H, I)  each may be null (not needed)
  T* w_hh = nullptr;  // (3H, H)
  T* b_ih = nullptr;  // (3H)
  T* b_hh = nullptr;  // (3H)
};

// What one step keeps for its backward pass (each (B, H)).
template <class T>
struct GruCellCache {
  std::vector<T> r, z, n, ghn;  // gates, candidate, and W_hn·h + b_hn
};

// h_out (B, H) from x (B, I) and h_prev (B, H). h_out must not alias h_prev.
template <class T>
void gru_cell_forward(T* h_out, GruCellCache<T>& cache, const T* x, const T* h_prev,
                      const GruCellWeights<T>& w, int B, int I, int H);

// dx (B, I) and dh_prev (B, H) += the gradients (either may be null); g += weight grads.
template <class T>
void gru_cell_backward(T* dx, T* dh_prev, const GruCellGrads<T>& g, const T* dh_out /*(B, H)*/,
                       const T* x, const T* h_prev, const GruCellCache<T>& cache,
                       const GruCellWeights<T>& w, int B, int I, int H);

}  // namespace tfp::train
