#include "train/layer_norm_grad.h"

#include <cmath>
#include <cstdint>

namespace tfp::train {

template <class T>
void layer_norm_forward(T* y, T* mean, T* rstd, const T* x, const T* gamma, const T* beta,
                        int N, int C, T eps) {
  for (int n = 0; n < N; ++n) {
    const T* xr = x + static_cast<int64_t>(n) * C;
    T* yr = y + static_cast<int64_t>(n) * C;
    // Statistics in double even for float: the variance of activations with a large
    // mean loses digits otherwise (the engine's layernorm kernel does the same).
    double m = 0, v = 0;
    for (int c = 0; c < C; ++c) m += xr[c];
    m /= C;
    for (int c = 0; c < C; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= C;
    const T rs = static_cast<T>(1.0 / std::sqrt(v + static_cast<double>(eps)));
    const T mt = static_cast<T>(m);
    for (int c = 0; c < C; ++c) yr[c] = (xr[c] - mt) * rs * gamma[c] + beta[c];
    if (mean) mean[n] = mt;
    if (rstd) rstd[n] = rs;
  }
}

template <class T>
void layer_norm_backward(T* dx, T* dgamma, T* dbeta, const T* dy, const T* x, const T* gamma,
                         const T* mean, const T* rstd, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const T* xr = x + static_cast<int64_t>(n) * C;
    const T* dyr = dy + static_cast<int64_t>(n) * C;
    T* dxr = dx + static_cast<int64_t>(n) * C;
    // Two reductions over the row: mean(g) and mean(g ⊙ x̂), with g = dy ⊙ γ.
    T g_mean = 0, gx_mean = 0;
    for (int c = 0; c < C; ++c) {
      const T xhat = (xr[c] - mean[n]) * rstd[n];
      const T g = dyr[c] * gamma[c];
      g_mean += g;
      gx_mean += g * xhat;
      dgamma[c] += dyr[c] * xhat;
      dbeta[c] += dyr[c];
    }
    g_mean /= C;
    gx_mean /= C;
    for (int c = 0; c < C; ++c) {
      const T xhat = (xr[c] - mean[n]) * rstd[n];
      dxr[c] += rstd[n] * (dyr[c] * gamma[c] - g_mean - xhat * gx_mean);
    }
  }
}

template void layer_norm_forward<float>(float*, float*, float*, const float*, const float*,
                                        const float*, int, int, float);
template void layer_norm_forward<double>(double*, double*, double*, const double*,
                                         const double*, const double*, int, int, double);
template void layer_norm_backward<float>(float*, float*, float*, const float*, const float*,
                                         const float*, const float*, const float*, int, int);
template void layer_norm_backward<double>(double*, double*, double*, const double*,
                                          const double*, const double*, const double*,
                                          const double*, int, int);

}  // namespace tfp::train
