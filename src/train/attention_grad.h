// Multi-head attention (Vaswani et al. 2017) with its backward pass, batched, for
// self-attention (x_kv = x_q) and cross-attention (x_kv = encoder memory), with causal
// and key-padding masks. Parameters follow PyTorch nn.MultiheadAttention: one fused
// in_proj (3C, C) whose rows are q | k | v, and out_proj (C, C).
//
// Forward, per sequence b and head h (D = C/H, scale = 1/√D):
//   Q = x_q·W_qᵀ + b_q  (Tq, C)       K, V = x_kv·W_kᵀ + b_k, x_kv·W_vᵀ + b_v  (Tk, C)
//   S = scale · Q_h·K_hᵀ + mask       (Tq, Tk)   mask entries are 0 or −inf
//   P = softmax_rows(S)               (Tq, Tk)   the attention map the page draws
//   ctx_h = P·V_h                     (Tq, D)    heads side by side → ctx (Tq, C)
//   out = ctx·W_oᵀ + b_o              (Tq, C)
//
// Backward, in reverse order:
//   dctx = dout·W_o,  dW_o += doutᵀ·ctx,  db_o += Σ dout       (a linear layer)
//   dP   = dctx_h·V_hᵀ                 dV_h += Pᵀ·dctx_h        (ctx = P·V)
//   dS   = P ⊙ (dP − rowsum(P ⊙ dP))                            (softmax, below)
//   dQ_h = scale·dS·K_h                dK_h += scale·dSᵀ·Q_h     (S = scale·Q·Kᵀ)
//   then the q and k|v projections backward to x_q and x_kv (linear layers again).
// A masked entry has P = 0, so dS = 0 there: masks need no special case backward, and a
// query whose keys are all masked (P row all zero) passes no gradient.
//
// Positions inside attention, as inference applies them (nn/positional_*.h):
//   ALiBi adds −slope_h·(i − j) (−slope_h·|i − j| without a causal mask) to S: a constant,
//     so nothing changes backward.
//   RoPE rotates Q_h and K_h by position after the projections (half-split pairs, the
//     first R channels): S reads the rotated ones, so dQ_h and dK_h arrive for the rotated
//     vectors and are turned back by the inverse rotation before the projections' backward
//     (a rotation's inverse is its transpose).
//
// Softmax backward: p_j = e^{s_j}/Σe^{s}, so ∂p_j/∂s_i = p_j(δ_ij − p_i), and
//   ds_i = Σ_j dp_j p_j (δ_ij − p_i) = p_i (dp_i − Σ_j p_j dp_j).
//
// Legend: B sequences, Tq query tokens, Tk key tokens, C channels, H heads, D = C/H.
#pragma once
#include <cstdint>
#include <vector>

namespace tfp::train {

struct AttentionDims {
  int B = 1, Tq = 0, Tk = 0, C = 0, H = 1;
};

// Which keys each query may see; masked scores become −inf before the softmax.
struct AttentionMaskSpec {
  bool causal = false;                   // query i sees keys j <= i + (Tk − Tq)
  const uint8_t* key_padding = nullptr;  // (B, Tk): 1 = padding key, hidden from every query
  const float* alibi = nullptr;          // (H) ALiBi slopes (nn::alibi_slopes); null = none
  const std::vector<double>* rope = nullptr;  // RoPE θ_p for R/2 pairs (nn::rope_inv_freq); null = none
};

template <class T>
struct AttentionParams {
  const T* in_w = nullptr;   // (3C, C) rows q | k | v, nn.Linear layout
  const T* in_b = nullptr;   // (3C)
  const T* out_w = nullptr;  // (C, C)
  const T* out_b = nullptr;  // (C)
};

template <class T>
struct AttentionGrads {  // added into, same shapes as AttentionParams
  T* in_w = nullptr;
  T* in_b = nullptr;
  T* out_w = nullptr;
  T* out_b = nullptr;
};

// What the forward keeps for the backward (and for the attention inspector).
template <class T>
struct AttentionCache {
  std::vector<T> q;      // (B, Tq, C) projected queries, heads side by side
  std::vector<T> kv;     // (B, Tk, 2C) projected keys | values
  std::vector<T> probs;  // (B, H, Tq, Tk) attention probabilities
  std::vector<T> ctx;    // (B, Tq, C) concatenated head outputs, before out_proj
  const std::vector<double>* rope = nullptr;  // the rotation q and k got (backward undoes it)
};

// out (B, Tq, C). For self-attention pass the same pointer as x_q and x_kv.
template <class T>
void attention_forward(T* out, AttentionCache<T>& cache, const T* x_q /*(B, Tq, C)*/,
                       const T* x_kv /*(B, Tk, C)*/, const AttentionParams<T>& p,
                       const AttentionDims& d, const AttentionMaskSpec& mask);

// dx_q (B, Tq, C) += ..., dx_kv (B, Tk, C) += ... (the same pointer for self-attention:
// both contributions add up); parameter gradients added into g.
template <class T>
void attention_backward(T* dx_q, T* dx_kv, const AttentionGrads<T>& g, const T* dout,
                        const AttentionCache<T>& cache, const T* x_q, const T* x_kv,
                        const AttentionParams<T>& p, const AttentionDims& d);

// Row softmax in place over (rows, cols) with max subtraction; all −inf rows → zeros.
template <class T>
void softmax_rows_forward(T* x, int rows, int cols);

// ds (rows, cols) = p ⊙ (dp − rowsum(p ⊙ dp)) (overwritten, not added: an intermediate).
template <class T>
void softmax_rows_backward(T* ds, const T* p, const T* dp, int rows, int cols);

}  // namespace tfp::train
