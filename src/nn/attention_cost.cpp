// Parameter and FLOP counts of one multi-head self-attention block (attention_cost.h).
#include "nn/attention_cost.h"

#include "core/error.h"

namespace tfp::nn {

MultiHeadCost multi_head_attention_cost(int64_t C, int64_t H, int64_t T, bool bias) {
  TFP_CHECK(C >= 1 && H >= 1 && T >= 1, "multi_head_attention_cost: d_model, heads and tokens must be >= 1, got ",
            C, ", ", H, ", ", T);
  TFP_CHECK(C % H == 0, "multi_head_attention_cost: heads (", H, ") must divide d_model (", C,
            "): each head takes d_model/heads columns");
  MultiHeadCost c;
  const int64_t D = C / H;
  c.head_dim = D;
  // One projection: a (C, C) weight, and a (C) bias when the block has biases. None of
  // this depends on H: the heads are slices of the same C output columns.
  const int64_t projection = C * C + (bias ? C : 0);
  c.params_q = c.params_k = c.params_v = c.params_out = projection;
  c.params_total = 4 * projection;
  // (T, C)·(C, C) three times for Q, K, V, once more for W_O.
  c.flops_qkv = 3 * (2 * T * C * C);
  c.flops_out = 2 * T * C * C;
  // Per head (T, D)·(D, T) for the scores and (T, T)·(T, D) for the mix; H heads of D
  // columns make C columns, so H cancels: 2·T²·C each.
  c.flops_scores = H * (2 * T * D * T);
  c.flops_mix = H * (2 * T * T * D);
  c.flops_total = c.flops_qkv + c.flops_scores + c.flops_mix + c.flops_out;
  // What does grow with H: the number of attention weights, H maps of T×T.
  c.map_entries = H * T * T;
  return c;
}

}  // namespace tfp::nn
