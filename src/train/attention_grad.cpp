#include "train/attention_grad.h"

#include <cmath>
#include <limits>

#include "core/error.h"
#include "train/gemm.h"
#include "train/linear_grad.h"

namespace tfp::train {

template <class T>
void softmax_rows_forward(T* x, int rows, int cols) {
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int r = 0; r < rows; ++r) {
    T* row = x + static_cast<int64_t>(r) * cols;
    // softmax(s) = softmax(s − max): exp never overflows, and the largest term is 1.
    T mx = neg_inf;
    for (int c = 0; c < cols; ++c) mx = row[c] > mx ? row[c] : mx;
    if (mx == neg_inf) {  // every key masked: no distribution; zeros, never 0/0 = NaN
      for (int c = 0; c < cols; ++c) row[c] = 0;
      continue;
    }
    T sum = 0;
    for (int c = 0; c < cols; ++c) sum += (row[c] = std::exp(row[c] - mx));  // exp(−inf) = 0
    const T inv = T(1) / sum;
    for (int c = 0; c < cols; ++c) row[c] *= inv;
  }
}

template <class T>
void softmax_rows_backward(T* ds, const T* p, const T* dp, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const int64_t o = static_cast<int64_t>(r) * cols;
    T dot = 0;  // Σ_j p_j dp_j: how much the row's distribution as a whole is pushed
    for (int c = 0; c < cols; ++c) dot += p[o + c] * dp[o + c];
    for (int c = 0; c < cols; ++c) ds[o + c] = p[o + c] * (dp[o + c] - dot);
  }
}

namespace {
// Rotates T rows of H heads (head h at channel h·D, row stride ld) by position pos0 + t:
// pairs (p, p + R/2) of each head's first R = 2·|θ| channels turn by (pos0 + t)·θ_p, or by
// minus that (inverse, the backward's transpose).
template <class T>
void rotate_heads(T* x, int rows, int64_t ld, int H, int D, int64_t pos0, const std::vector<double>& theta,
                  bool inverse) {
  const int half = static_cast<int>(theta.size());
  TFP_CHECK(2 * half <= D, "attention: RoPE rotates ", 2 * half, " channels of a ", D, "-wide head");
  for (int t = 0; t < rows; ++t)
    for (int p = 0; p < half; ++p) {
      const double angle = static_cast<double>(pos0 + t) * theta[p];
      const T c = static_cast<T>(std::cos(angle)), s = static_cast<T>(inverse ? -std::sin(angle) : std::sin(angle));
      for (int h = 0; h < H; ++h) {
        T* row = x + t * ld + h * D;
        const T a = row[p], b = row[p + half];
        row[p] = a * c - b * s;
        row[p + half] = a * s + b * c;
      }
    }
}
}  // namespace

template <class T>
void attention_forward(T* out, AttentionCache<T>& cache, const T* x_q, const T* x_kv,
                       const AttentionParams<T>& p, const AttentionDims& d,
                       const AttentionMaskSpec& mask) {
  const int B = d.B, Tq = d.Tq, Tk = d.Tk, C = d.C, H = d.H;
  TFP_CHECK(H > 0 && C % H == 0, "attention: ", C, " channels do not split into ", H, " heads");
  const int D = C / H;
  const T scale = T(1) / std::sqrt(static_cast<T>(D));
  const T neg_inf = -std::numeric_limits<T>::infinity();
  cache.q.resize(static_cast<size_t>(B) * Tq * C);
  cache.kv.resize(static_cast<size_t>(B) * Tk * 2 * C);
  cache.probs.resize(static_cast<size_t>(B) * H * Tq * Tk);
  cache.ctx.resize(static_cast<size_t>(B) * Tq * C);

  // Projections over all rows at once: q from rows [0, C) of in_proj, k|v from [C, 3C).
  linear_forward<T>(cache.q.data(), x_q, p.in_w, p.in_b, B * Tq, C, C);
  linear_forward<T>(cache.kv.data(), x_kv, p.in_w + static_cast<int64_t>(C) * C, p.in_b + C,
                    B * Tk, C, 2 * C);
  // RoPE: queries sit at the newest positions Tk − Tq .. Tk − 1, keys at 0 .. Tk − 1.
  cache.rope = mask.rope;
  if (mask.rope)
    for (int b = 0; b < B; ++b) {
      rotate_heads<T>(cache.q.data() + static_cast<int64_t>(b) * Tq * C, Tq, C, H, D, Tk - Tq, *mask.rope, false);
      rotate_heads<T>(cache.kv.data() + static_cast<int64_t>(b) * Tk * 2 * C, Tk, 2 * C, H, D, 0, *mask.rope, false);
    }

  for (int b = 0; b < B; ++b) {
    const T* q = cache.q.data() + static_cast<int64_t>(b) * Tq * C;
    const T* kv = cache.kv.data() + static_cast<int64_t>(b) * Tk * 2 * C;
    T* ctx = cache.ctx.data() + static_cast<int64_t>(b) * Tq * C;
    for (int h = 0; h < H; ++h) {
      T* P = cache.probs.data() + (static_cast<int64_t>(b) * H + h) * Tq * Tk;
      // S (Tq, Tk) = scale · Q_h (Tq, D, row stride C) · K_hᵀ (K_h is (Tk, D), stride 2C).
      gemm<T>(Tq, Tk, D, q + h * D, C, kv + h * D, 2 * C, BLayout::NK, P, Tk, scale);
      for (int i = 0; i < Tq; ++i)
        for (int j = 0; j < Tk; ++j) {
          const int qi = i + (Tk - Tq);
          const bool hidden = (mask.causal && j > qi) ||
                              (mask.key_padding && mask.key_padding[b * Tk + j]);
          if (hidden) P[i * Tk + j] = neg_inf;  // −inf: exactly zero weight after softmax
          else if (mask.alibi)  // ALiBi: a penalty growing with distance, per head
            P[i * Tk + j] -= static_cast<T>(mask.alibi[h]) * static_cast<T>(mask.causal ? qi - j : std::abs(qi - j));
        }
      softmax_rows_forward<T>(P, Tq, Tk);
      // ctx_h (Tq, D, stride C) = P (Tq, Tk) · V_h (Tk, D, stride 2C).
      gemm<T>(Tq, D, Tk, P, Tk, kv + C + h * D, 2 * C, BLayout::KN, ctx + h * D, C);
    }
  }
  linear_forward<T>(out, cache.ctx.data(), p.out_w, p.out_b, B * Tq, C, C);
}

template <class T>
void attention_backward(T* dx_q, T* dx_kv, const AttentionGrads<T>& g, const T* dout,
                        const AttentionCache<T>& cache, const T* x_q, const T* x_kv,
                        const AttentionParams<T>& p, const AttentionDims& d) {
  const int B = d.B, Tq = d.Tq, Tk = d.Tk, C = d.C, H = d.H;
  const int D = C / H;
  const T scale = T(1) / std::sqrt(static_cast<T>(D));

  // out = ctx·W_oᵀ + b_o
  std::vector<T> dctx(static_cast<size_t>(B) * Tq * C, T(0));
  linear_backward<T>(dctx.data(), g.out_w, g.out_b, dout, cache.ctx.data(), p.out_w, B * Tq, C, C);

  std::vector<T> dq(static_cast<size_t>(B) * Tq * C, T(0));
  std::vector<T> dkv(static_cast<size_t>(B) * Tk * 2 * C, T(0));
  std::vector<T> dP(static_cast<size_t>(Tq) * Tk), dS(dP.size()), tmpT(dP.size());
  for (int b = 0; b < B; ++b) {
    const T* q = cache.q.data() + static_cast<int64_t>(b) * Tq * C;
    const T* kv = cache.kv.data() + static_cast<int64_t>(b) * Tk * 2 * C;
    const T* dc = dctx.data() + static_cast<int64_t>(b) * Tq * C;
    T* dqb = dq.data() + static_cast<int64_t>(b) * Tq * C;
    T* dkvb = dkv.data() + static_cast<int64_t>(b) * Tk * 2 * C;
    for (int h = 0; h < H; ++h) {
      const T* P = cache.probs.data() + (static_cast<int64_t>(b) * H + h) * Tq * Tk;
      // ctx_h = P·V_h  →  dP = dctx_h·V_hᵀ (Tq, Tk),  dV_h += Pᵀ·dctx_h (Tk, D)
      gemm<T>(Tq, Tk, D, dc + h * D, C, kv + C + h * D, 2 * C, BLayout::NK, dP.data(), Tk);
      transpose<T>(P, Tq, Tk, Tk, tmpT.data());  // Pᵀ (Tk, Tq)
      gemm<T>(Tk, D, Tq, tmpT.data(), Tq, dc + h * D, C, BLayout::KN, dkvb + C + h * D, 2 * C,
              T(1), true);
      // P = softmax(S)
      softmax_rows_backward<T>(dS.data(), P, dP.data(), Tq, Tk);
      // S = scale·Q_h·K_hᵀ  →  dQ_h = scale·dS·K_h,  dK_h += scale·dSᵀ·Q_h
      gemm<T>(Tq, D, Tk, dS.data(), Tk, kv + h * D, 2 * C, BLayout::KN, dqb + h * D, C, scale);
      transpose<T>(dS.data(), Tq, Tk, Tk, tmpT.data());  // dSᵀ (Tk, Tq)
      gemm<T>(Tk, D, Tq, tmpT.data(), Tq, q + h * D, C, BLayout::KN, dkvb + h * D, 2 * C, scale,
              true);
    }
  }
  // The gradients arrived for the rotated q and k: rotate them back (RoPE's transpose).
  if (cache.rope)
    for (int b = 0; b < B; ++b) {
      rotate_heads<T>(dq.data() + static_cast<int64_t>(b) * Tq * C, Tq, C, H, D, Tk - Tq, *cache.rope, true);
      rotate_heads<T>(dkv.data() + static_cast<int64_t>(b) * Tk * 2 * C, Tk, 2 * C, H, D, 0, *cache.rope, true);
    }
  // The projections: q from in_proj rows [0, C), k|v from rows [C, 3C).
  const int64_t CC = static_cast<int64_t>(C) * C;
  linear_backward<T>(dx_q, g.in_w, g.in_b, dq.data(), x_q, p.in_w, B * Tq, C, C);
  linear_backward<T>(dx_kv, g.in_w ? g.in_w + CC : nullptr, g.in_b ? g.in_b + C : nullptr,
                     dkv.data(), x_kv, p.in_w + CC, B * Tk, C, 2 * C);
}

template void softmax_rows_forward<float>(float*, int, int);
template void softmax_rows_forward<double>(double*, int, int);
template void softmax_rows_backward<float>(float*, const float*, const float*, int, int);
template void softmax_rows_backward<double>(double*, const double*, const double*, int, int);
template void attention_forward<float>(float*, AttentionCache<float>&, const float*, const float*,
                                       const AttentionParams<float>&, const AttentionDims&,
                                       const AttentionMaskSpec&);
template void attention_forward<double>(double*, AttentionCache<double>&, const double*,
                                        const double*, const AttentionParams<double>&,
                                        const AttentionDims&, const AttentionMaskSpec&);
template void attention_backward<float>(float*, float*, const AttentionGrads<float>&, const float*,
                                        const AttentionCache<float>&, const float*, const float*,
                                        const AttentionParams<float>&, const AttentionDims&);
template void attention_backward<double>(double*, double*, const AttentionGrads<double>&,
                                         const double*, const AttentionCache<double>&,
                                         const double*, const double*,
                                         const AttentionParams<double>&, const AttentionDims&);

}  // namespace tfp::train
