// What one multi-head self-attention block costs: its parameters and the floating-point
// operations of one forward pass over T tokens. Counting only — no attention is run.
// The Learn chapter on multi-head attention shows these numbers for the d_model, h and
// T the reader picks.
//
// The block counted is nn::multi_head_attention's (PyTorch nn.MultiheadAttention, GPT-2):
//   Q = X·W_Qᵀ + b_Q,  K = X·W_Kᵀ + b_K,  V = X·W_Vᵀ + b_V      X (T, C), each W (C, C)
//   head i takes columns [i·D, (i+1)·D) of Q, K, V                 D = C/H
//   A_i = softmax(Q_i·K_iᵀ / √D)                                    (T, T) per head
//   O_i = A_i·V_i                                                   (T, D) per head
//   out = concat(O_1 … O_H)·W_Oᵀ + b_O                              (T, C)
//
// Convention for FLOPs: a product of an (m, k) and a (k, n) matrix is 2·m·k·n (one
// multiply and one add per term); the bias adds, the 1/√D scaling and the softmax are
// not in the matrix-product total, they are given apart (map_entries = H·T² scores,
// each scaled once and exponentiated once). Every query sees every key (no causal
// mask: the engine computes the full T×T map and masks afterwards).
//
// Legend: T tokens, C model width (d_model), H heads, D = C/H head size.
#pragma once
#include <cstdint>

namespace tfp::nn {

struct MultiHeadCost {
  int64_t head_dim = 0;         // D = C/H
  // Parameters: each projection is a (C, C) weight plus, with biases, a (C) bias.
  int64_t params_q = 0, params_k = 0, params_v = 0, params_out = 0;
  int64_t params_total = 0;     // 4·C² (+ 4·C with biases) — H does not appear
  // FLOPs of the matrix products (2·m·k·n each).
  int64_t flops_qkv = 0;        // 3 · 2·T·C·C     the three input projections
  int64_t flops_scores = 0;     // H · 2·T·D·T  = 2·T²·C   Q_i·K_iᵀ for every head
  int64_t flops_mix = 0;        // H · 2·T·T·D  = 2·T²·C   A_i·V_i for every head
  int64_t flops_out = 0;        // 2·T·C·C         the output projection W_O
  int64_t flops_total = 0;      // their sum: 8·T·C² + 4·T²·C
  int64_t map_entries = 0;      // H·T²: attention scores, softmax exponentials, stored weights
};

// Throws tfp::Error naming the rule unless C, H, T >= 1 and H divides C.
MultiHeadCost multi_head_attention_cost(int64_t C, int64_t H, int64_t T, bool bias);

}  // namespace tfp::nn
