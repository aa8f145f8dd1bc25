// ALiBi, "Attention with Linear Biases" (Press et al. 2022): no position code at all;
// each head adds -slope_h · (i - j) to the score of query i on key j, so attention fades
// linearly with distance at a head-specific rate. Slopes form a geometric sequence:
//   H a power of two:  slope_h = 2^(-8(h+1)/H),  h = 0 .. H-1  (H = 8: 1/2, 1/4, ..., 1/256)
//   otherwise: with n = the largest power of two below H, the n slopes for n heads
//   followed by every other slope of 2n heads (slopes(2n)[0], [2], ...) up to H in all.
// Used causally (i >= j) by BLOOM and MPT; `symmetric` gives -slope·|i - j| for
// bidirectional encoders.
//
// Legend: Tq query tokens, Tk key tokens, H heads.
#pragma once
#include <vector>

#include "core/tensor.h"
#include "nn/attention.h"

namespace tfp::nn {

// The H per-head slopes.
std::vector<float> alibi_slopes(int H);

// The biases as a tensor (H, Tq, Tk) for inspection or as an additive mask; query row i
// at position q_pos0 + i, key column j at k_pos0 + j (self-attention: q_pos0 = Tk - Tq).
Tensor alibi_bias(int H, int Tq, int Tk, int64_t q_pos0, int64_t k_pos0, bool symmetric = false);

// The hook for attention (AttentionHooks::score_bias); n_heads must equal the call's H.
AttentionHooks::ScoreBiasFn alibi_score_bias(int n_heads, bool symmetric = false);

}  // namespace tfp::nn
