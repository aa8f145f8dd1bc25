// See seq_gru_attention.h for the formulas.
#include "train/seq_gru_attention.h"

#include <cmath>
#include <limits>

#include "core/error.h"

namespace tfp::train {

template <class T>
void additive_step_forward(T* context, AdditiveStepCache<T>& c, const T* q, const T* keys, const T* h,
                           const T* v, const uint8_t* pad, int B, int S, int A, int Ch) {
  c.probs.assign(static_cast<size_t>(B) * S, T(0));
  c.u.assign(static_cast<size_t>(B) * S * A, T(0));
  for (int b = 0; b < B; ++b) {
    T* p = c.probs.data() + static_cast<size_t>(b) * S;
    const T* qb = q + static_cast<size_t>(b) * A;
    T mx = -std::numeric_limits<T>::infinity();
    for (int j = 0; j < S; ++j) {
      if (pad && pad[static_cast<size_t>(b) * S + j]) continue;
      const size_t bj = static_cast<size_t>(b) * S + j;
      const T* kj = keys + bj * A;
      T* u = c.u.data() + bj * A;
      T e = 0;
      for (int a = 0; a < A; ++a) {
        u[a] = std::tanh(qb[a] + kj[a]);
        e += v[a] * u[a];
      }
      p[j] = e;
      mx = std::max(mx, e);
    }
    TFP_CHECK(mx > -std::numeric_limits<T>::infinity(), "additive attention step: row ", b,
              " has every source position padded");
    // Softmax over the real positions; subtracting the max keeps exp() from overflowing.
    T sum = 0;
    for (int j = 0; j < S; ++j) {
      if (pad && pad[static_cast<size_t>(b) * S + j]) continue;
      p[j] = std::exp(p[j] - mx);
      sum += p[j];
    }
    for (int j = 0; j < S; ++j) p[j] /= sum;  // padded entries stay exactly 0
    T* cb = context + static_cast<size_t>(b) * Ch;
    for (int k = 0; k < Ch; ++k) cb[k] = 0;
    for (int j = 0; j < S; ++j) {
      if (p[j] == T(0)) continue;
      const T* hj = h + (static_cast<size_t>(b) * S + j) * Ch;
      for (int k = 0; k < Ch; ++k) cb[k] += p[j] * hj[k];
    }
  }
}

template <class T>
void additive_step_backward(T* dq, T* dkeys, T* dh, T* dv, const T* dcontext, const AdditiveStepCache<T>& c,
                            const T* h, const T* v, int B, int S, int A, int Ch) {
  std::vector<T> dalpha(static_cast<size_t>(S));
  for (int b = 0; b < B; ++b) {
    const T* p = c.probs.data() + static_cast<size_t>(b) * S;
    const T* dc = dcontext + static_cast<size_t>(b) * Ch;
    T dot = 0;  // Σ_i α_i dα_i
    for (int j = 0; j < S; ++j) {
      const size_t bj = static_cast<size_t>(b) * S + j;
      const T* hj = h + bj * Ch;
      T d = 0;
      for (int k = 0; k < Ch; ++k) d += dc[k] * hj[k];
      dalpha[j] = d;
      dot += p[j] * d;
      if (dh && p[j] != T(0))
        for (int k = 0; k < Ch; ++k) dh[bj * Ch + k] += p[j] * dc[k];
    }
    for (int j = 0; j < S; ++j) {
      if (p[j] == T(0)) continue;  // padded (or numerically zero): no gradient
      const size_t bj = static_cast<size_t>(b) * S + j;
      const T de = p[j] * (dalpha[j] - dot);
      const T* u = c.u.data() + bj * A;
      for (int a = 0; a < A; ++a) {
        if (dv) dv[a] += de * u[a];
        const T dpre = de * v[a] * (T(1) - u[a] * u[a]);
        if (dq) dq[static_cast<size_t>(b) * A + a] += dpre;
        if (dkeys) dkeys[bj * A + a] += dpre;
      }
    }
  }
}

template void additive_step_forward<float>(float*, AdditiveStepCache<float>&, const float*, const float*,
                                           const float*, const float*, const uint8_t*, int, int, int, int);
template void additive_step_forward<double>(double*, AdditiveStepCache<double>&, const double*, const double*,
                                            const double*, const double*, const uint8_t*, int, int, int, int);
template void additive_step_backward<float>(float*, float*, float*, float*, const float*,
                                            const AdditiveStepCache<float>&, const float*, const float*, int,
                                            int, int, int);
template void additive_step_backward<double>(double*, double*, double*, double*, const double*,
                                             const AdditiveStepCache<double>&, const double*, const double*,
                                             int, int, int, int);

}  // namespace tfp::train
