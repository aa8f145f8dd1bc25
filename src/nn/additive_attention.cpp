// Additive (Bahdanau) attention. See additive_attention.h for the formula.
//
// The score is not a dot product of two projections, so there is no single matmul for
// it: e_ij = Σ_a v_a · tanh(Ws_ia + Uh_ja) costs Tq·Tk·A tanh evaluations. That is the
// price the Transformer paper cites for preferring dot-product attention. The two
// projections and the weighted sum of values are matmuls.
//
// Legend: Tq queries, Tk encoder states, Cs / Ch their widths, A attention width.
#include "nn/additive_attention.h"

#include <climits>
#include <cmath>

#include "kernels/kernels.h"

namespace tfp::nn {

AdditiveAttentionResult additive_attention(const TensorView& s,  // (Tq, Cs)
                                           const TensorView& h,  // (Tk, Ch)
                                           const AdditiveAttentionWeights& w,
                                           const AttentionMask& mask,
                                           AdditiveAttentionTrace* trace) {
  const char* op = "additive_attention";
  TFP_CHECK(s.rank() == 2 && h.rank() == 2, op, ": queries must be (Tq, Cs) and encoder states (Tk, Ch); got ",
            shape_str(s.shape), " and ", shape_str(h.shape));
  const int64_t Tq = s.shape[0], Tk = h.shape[0], Ch = h.shape[1];
  TFP_CHECK(Tq > 0 && Tk > 0 && Ch > 0, op, ": empty input: queries ", shape_str(s.shape),
            ", encoder states ", shape_str(h.shape));
  TFP_CHECK(!w.query.empty() && !w.key.empty() && !w.v.empty(), op,
            ": weights need query (W), key (U) and v");
  const int64_t A = w.query.out_features();
  TFP_CHECK(w.key.out_features() == A && w.v.rank() == 1 && w.v.shape[0] == A, op,
            ": W ", shape_str(w.query.weight.shape), ", U ", shape_str(w.key.weight.shape), " and v ",
            shape_str(w.v.shape), " must agree on the attention width A = ", A);
  TFP_CHECK(Tq * Tk <= INT_MAX && Tk * Ch <= INT_MAX, op, ": sizes too large: ", shape_str(s.shape),
            ", ", shape_str(h.shape));
  validate_attention_mask(op, mask, 1, static_cast<int>(Tq), static_cast<int>(Tk));

  const Tensor ws = linear(s, w.query, op);  // (Tq, A)  W·s_i, checks s's width
  const Tensor uh = linear(h, w.key, op);    // (Tk, A)  U·h_j, once for all queries

  AdditiveAttentionResult r;
  r.scores = Tensor({Tq, Tk});
  if (trace) *trace = {ws, uh, Tensor({Tq, Tk, A}), Tensor({Tq, Tk, A})};
  for (int64_t i = 0; i < Tq; ++i) {
    const float* wi = ws.row(i);
    for (int64_t j = 0; j < Tk; ++j) {
      const float* uj = uh.row(j);
      float e = 0.0f;
      for (int64_t a = 0; a < A; ++a) {
        const float x = wi[a] + uj[a], t = std::tanh(x);
        if (trace) {
          trace->sum.data[static_cast<size_t>((i * Tk + j) * A + a)] = x;
          trace->hidden.data[static_cast<size_t>((i * Tk + j) * A + a)] = t;
        }
        e += w.v.data[a] * t;
      }
      r.scores.row(i)[j] = e;
    }
  }
  apply_attention_mask(r.scores.ptr(), Tk, 0, static_cast<int>(Tq), static_cast<int>(Tk), mask);
  r.probs = r.scores;
  kernels::softmax_rows(r.probs.ptr(), static_cast<int>(Tq), static_cast<int>(Tk), Tk);

  // context = α · h : (Tq, Tk)·(Tk, Ch), B in KN layout.
  r.context = Tensor({Tq, Ch});
  kernels::matmul(kernels::dense(static_cast<int>(Tq), static_cast<int>(Ch), static_cast<int>(Tk),
                                 r.probs.ptr(), h.data, r.context.ptr(), kernels::BLayout::KN));
  return r;
}

}  // namespace tfp::nn
