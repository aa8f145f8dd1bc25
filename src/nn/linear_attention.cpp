// Linear attention with φ(x) = elu(x) + 1. See linear_attention.h for the maths.
//
// Per head:
//   non-causal: S = φ(K)ᵀ V (D, Dv) and z = Σ_j φ(k_j) (D) once, then out = φ(Q) S / φ(Q) z
//               — two matmuls; φ(K) is transposed into a scratch so S is a plain A·B.
//   causal:     walk the keys in order, S += φ(k_j) v_jᵀ and z += φ(k_j); each query reads
//               the state once its last visible key is in. The state update is a rank-1
//               outer product per key: this is the RNN view of the paper.
// Padded keys get φ(k_j) = 0, which removes them from both sums.
//
// Legend: H heads, Tq queries, Tk keys/values, D key width, Dv value width.
#include "nn/linear_attention.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "kernels/kernels.h"

namespace tfp::nn {

void elu_plus_one(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] + 1.0f : std::exp(x[i]);
}

AttentionResult linear_attention(const TensorView& q,  // (H, Tq, D)
                                 const TensorView& k,  // (H, Tk, D)
                                 const TensorView& v,  // (H, Tk, Dv)
                                 const LinearAttentionOptions& opt, bool need_probs) {
  const char* op = "linear_attention";
  TFP_CHECK(q.rank() == 3 && k.rank() == 3 && v.rank() == 3, op,
            ": q, k, v must be (H, T, D); got q ", shape_str(q.shape), ", k ", shape_str(k.shape),
            ", v ", shape_str(v.shape));
  const int64_t H = q.shape[0], Tq = q.shape[1], D = q.shape[2], Tk = k.shape[1], Dv = v.shape[2];
  TFP_CHECK(k.shape[0] == H && v.shape[0] == H && k.shape[2] == D && v.shape[1] == Tk, op,
            ": shapes disagree: q ", shape_str(q.shape), " (H, Tq, D), k ", shape_str(k.shape),
            " (H, Tk, D), v ", shape_str(v.shape), " (H, Tk, Dv)");
  TFP_CHECK(H > 0 && Tq > 0 && Tk > 0 && D > 0 && Dv > 0, op, ": empty attention: q ",
            shape_str(q.shape), ", k ", shape_str(k.shape), ", v ", shape_str(v.shape));
  TFP_CHECK(opt.key_padding.empty() || static_cast<int64_t>(opt.key_padding.size()) == Tk, op,
            ": key_padding has ", opt.key_padding.size(), " entries, expected Tk = ", Tk);
  TFP_CHECK(H * Tq * Tk <= INT_MAX && H * Tk * D <= INT_MAX && H * Tk * Dv <= INT_MAX, op,
            ": sizes too large: q ", shape_str(q.shape), ", k ", shape_str(k.shape));

  // Feature maps φ(Q), φ(K) for all heads; padded keys → 0 (they then add nothing).
  std::vector<float> fq(q.data, q.data + q.numel()), fk(k.data, k.data + k.numel());
  elu_plus_one(fq.data(), fq.size());
  elu_plus_one(fk.data(), fk.size());
  if (!opt.key_padding.empty())
    for (int64_t h = 0; h < H; ++h)
      for (int64_t j = 0; j < Tk; ++j)
        if (opt.key_padding[j])
          for (int64_t d = 0; d < D; ++d) fk[(h * Tk + j) * D + d] = 0.0f;

  AttentionResult r;
  r.out = Tensor({H, Tq, Dv});
  const int64_t offset = Tk - Tq;  // query i sees keys j <= i + offset when causal
  std::vector<float> S(static_cast<size_t>(D * Dv)), z(static_cast<size_t>(D)), fkt;
  std::vector<float> num(static_cast<size_t>(Tq * Dv));
  for (int64_t h = 0; h < H; ++h) {
    const float* Qh = fq.data() + h * Tq * D;  // (Tq, D)  φ(q)
    const float* Kh = fk.data() + h * Tk * D;  // (Tk, D)  φ(k)
    const float* Vh = v.data + h * Tk * Dv;    // (Tk, Dv)
    float* Oh = r.out.ptr() + h * Tq * Dv;     // (Tq, Dv)
    if (!opt.causal) {
      // S = φ(K)ᵀ V: (D, Tk)·(Tk, Dv). z = column sums of φ(K).
      fkt.assign(static_cast<size_t>(D * Tk), 0.0f);
      std::fill(z.begin(), z.end(), 0.0f);
      for (int64_t j = 0; j < Tk; ++j)
        for (int64_t d = 0; d < D; ++d) {
          fkt[d * Tk + j] = Kh[j * D + d];
          z[d] += Kh[j * D + d];
        }
      kernels::matmul(kernels::dense(static_cast<int>(D), static_cast<int>(Dv), static_cast<int>(Tk),
                                     fkt.data(), Vh, S.data(), kernels::BLayout::KN));
      // numerator φ(Q) S: (Tq, D)·(D, Dv)
      kernels::matmul(kernels::dense(static_cast<int>(Tq), static_cast<int>(Dv), static_cast<int>(D),
                                     Qh, S.data(), num.data(), kernels::BLayout::KN));
      for (int64_t i = 0; i < Tq; ++i) {
        float den = 0.0f;
        for (int64_t d = 0; d < D; ++d) den += Qh[i * D + d] * z[d];
        // den > 0 unless every key is padded (φ > 0 elsewhere): then the output is 0.
        const float inv = den > 0.0f ? 1.0f / den : 0.0f;
        for (int64_t c = 0; c < Dv; ++c) Oh[i * Dv + c] = num[i * Dv + c] * inv;
      }
    } else {
      std::fill(S.begin(), S.end(), 0.0f);
      std::fill(z.begin(), z.end(), 0.0f);
      int64_t next_key = 0;  // keys [0, next_key) are in the state
      for (int64_t i = 0; i < Tq; ++i) {
        const int64_t last = std::min(i + offset, Tk - 1);  // last visible key
        for (; next_key <= last; ++next_key) {                // S += φ(k_j) v_jᵀ, z += φ(k_j)
          const float* kj = Kh + next_key * D;
          const float* vj = Vh + next_key * Dv;
          for (int64_t d = 0; d < D; ++d) {
            z[d] += kj[d];
            for (int64_t c = 0; c < Dv; ++c) S[d * Dv + c] += kj[d] * vj[c];
          }
        }
        const float* qi = Qh + i * D;
        float den = 0.0f;
        for (int64_t d = 0; d < D; ++d) den += qi[d] * z[d];
        const float inv = den > 0.0f ? 1.0f / den : 0.0f;  // no visible key → output 0
        for (int64_t c = 0; c < Dv; ++c) {
          float acc = 0.0f;
          for (int64_t d = 0; d < D; ++d) acc += qi[d] * S[d * Dv + c];
          Oh[i * Dv + c] = acc * inv;
        }
      }
    }
  }

  if (need_probs) {  // the implied attention matrix, for inspection only: O(Tq·Tk) memory
    r.probs = Tensor({H, Tq, Tk});
    for (int64_t h = 0; h < H; ++h) {
      float* P = r.probs.ptr() + h * Tq * Tk;  // (Tq, Tk) = φ(Q)·φ(K)ᵀ
      kernels::matmul(kernels::dense(static_cast<int>(Tq), static_cast<int>(Tk), static_cast<int>(D),
                                     fq.data() + h * Tq * D, fk.data() + h * Tk * D, P,
                                     kernels::BLayout::NK));
      for (int64_t i = 0; i < Tq; ++i) {
        float* row = P + i * Tk;
        if (opt.causal)
          for (int64_t j = std::max<int64_t>(i + offset + 1, 0); j < Tk; ++j) row[j] = 0.0f;
        float sum = 0.0f;
        for (int64_t j = 0; j < Tk; ++j) sum += row[j];  // padded keys are already 0
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
        for (int64_t j = 0; j < Tk; ++j) row[j] *= inv;
      }
    }
  }
  return r;
}

LinearAttentionSteps linear_attention_steps(const TensorView& q, const TensorView& k, const TensorView& v, bool causal) {
  const char* op = "linear_attention_steps";
  TFP_CHECK(q.rank() == 2 && k.rank() == 2 && v.rank() == 2 && q.shape == k.shape && k.shape[0] == v.shape[0] &&
                k.shape[0] > 0 && k.shape[1] > 0 && v.shape[1] > 0, op,
            ": q and k must be (T, D) and v (T, Dv); got q ", shape_str(q.shape), ", k ", shape_str(k.shape), ", v ",
            shape_str(v.shape));
  const int64_t T = k.shape[0], D = k.shape[1], Dv = v.shape[1];
  LinearAttentionSteps r{Tensor({T, D}), Tensor({T, D}), Tensor({T, D, Dv}), Tensor({T, D}), Tensor({T, Dv}), Tensor({T})};
  std::copy(q.data, q.data + q.numel(), r.phi_q.ptr());
  std::copy(k.data, k.data + k.numel(), r.phi_k.ptr());
  elu_plus_one(r.phi_q.ptr(), r.phi_q.data.size());
  elu_plus_one(r.phi_k.ptr(), r.phi_k.data.size());
  const float* fq = r.phi_q.ptr();
  const float* fk = r.phi_k.ptr();
  std::vector<float> S(static_cast<size_t>(D * Dv), 0.0f), z(static_cast<size_t>(D), 0.0f);
  for (int64_t j = 0; j < T; ++j) {  // the same update, in the same order, as the causal run
    const float* kj = fk + j * D;
    const float* vj = v.data + j * Dv;
    for (int64_t d = 0; d < D; ++d) {
      z[d] += kj[d];
      for (int64_t c = 0; c < Dv; ++c) S[d * Dv + c] += kj[d] * vj[c];
    }
    std::copy(S.begin(), S.end(), r.S.ptr() + j * D * Dv);
    std::copy(z.begin(), z.end(), r.z.ptr() + j * D);
  }
  for (int64_t i = 0; i < T; ++i) {
    const int64_t at = causal ? i : T - 1;  // the state query i reads
    const float* Si = r.S.ptr() + at * D * Dv;
    const float* zi = r.z.ptr() + at * D;
    const float* qi = fq + i * D;
    float den = 0.0f;
    for (int64_t d = 0; d < D; ++d) den += qi[d] * zi[d];
    r.denominator.data[static_cast<size_t>(i)] = den;
    for (int64_t c = 0; c < Dv; ++c) {
      float acc = 0.0f;
      for (int64_t d = 0; d < D; ++d) acc += qi[d] * Si[d * Dv + c];
      r.numerator.data[static_cast<size_t>(i * Dv + c)] = acc;
    }
  }
  return r;
}

}  // namespace tfp::nn
