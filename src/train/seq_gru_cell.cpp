// See seq_gru_cell.h for the formulas.
#include "train/seq_gru_cell.h"

#include <cmath>

#include "train/linear_grad.h"

namespace tfp::train {

namespace {
template <class T>
T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}
}  // namespace

template <class T>
void gru_cell_forward(T* h_out, GruCellCache<T>& c, const T* x, const T* h_prev,
                      const GruCellWeights<T>& w, int B, int I, int H) {
  const size_t BH = static_cast<size_t>(B) * H, G = 3 * static_cast<size_t>(H);
  std::vector<T> gi(B * G), gh(B * G);
  linear_forward<T>(gi.data(), x, w.w_ih, w.b_ih, B, I, 3 * H);       // (B, 3H)
  linear_forward<T>(gh.data(), h_prev, w.w_hh, w.b_hh, B, H, 3 * H);  // (B, 3H)
  c.r.resize(BH), c.z.resize(BH), c.n.resize(BH), c.ghn.resize(BH);
  for (int b = 0; b < B; ++b) {
    const T* gib = gi.data() + b * G;
    const T* ghb = gh.data() + b * G;
    for (int k = 0; k < H; ++k) {
      const size_t i = static_cast<size_t>(b) * H + k;
      const T r = sigmoid(gib[k] + ghb[k]);
      const T z = sigmoid(gib[H + k] + ghb[H + k]);
      const T n = std::tanh(gib[2 * H + k] + r * ghb[2 * H + k]);
      c.r[i] = r, c.z[i] = z, c.n[i] = n, c.ghn[i] = ghb[2 * H + k];
      h_out[i] = (T(1) - z) * n + z * h_prev[i];
    }
  }
}

template <class T>
void gru_cell_backward(T* dx, T* dh_prev, const GruCellGrads<T>& g, const T* dh_out, const T* x,
                       const T* h_prev, const GruCellCache<T>& c, const GruCellWeights<T>& w,
                       int B, int I, int H) {
  const size_t G = 3 * static_cast<size_t>(H);
  std::vector<T> dgi(B * G), dgh(B * G);
  for (int b = 0; b < B; ++b) {
    T* dgib = dgi.data() + b * G;
    T* dghb = dgh.data() + b * G;
    for (int k = 0; k < H; ++k) {
      const size_t i = static_cast<size_t>(b) * H + k;
      const T r = c.r[i], z = c.z[i], n = c.n[i], dh = dh_out[i];
      const T dn = dh * (T(1) - z);
      const T dz = dh * (h_prev[i] - n);
      if (dh_prev) dh_prev[i] += dh * z;  // the direct path z ⊙ h
      const T dpre_n = dn * (T(1) - n * n);
      const T dr = dpre_n * c.ghn[i];
      const T dpre_z = dz * z * (T(1) - z);
      const T dpre_r = dr * r * (T(1) - r);
      dgib[k] = dpre_r, dghb[k] = dpre_r;
      dgib[H + k] = dpre_z, dghb[H + k] = dpre_z;
      dgib[2 * H + k] = dpre_n, dghb[2 * H + k] = dpre_n * r;
    }
  }
  linear_backward<T>(dx, g.w_ih, g.b_ih, dgi.data(), x, w.w_ih, B, I, 3 * H);
  linear_backward<T>(dh_prev, g.w_hh, g.b_hh, dgh.data(), h_prev, w.w_hh, B, H, 3 * H);
}

template void gru_cell_forward<float>(float*, GruCellCache<float>&, const float*, const float*,
                                      const GruCellWeights<float>&, int, int, int);
template void gru_cell_forward<double>(double*, GruCellCache<double>&, const double*, const double*,
                                       const GruCellWeights<double>&, int, int, int);
template void gru_cell_backward<float>(float*, float*, const GruCellGrads<float>&, const float*,
                                       const float*, const float*, const GruCellCache<float>&,
                                       const GruCellWeights<float>&, int, int, int);
template void gru_cell_backward<double>(double*, double*, const GruCellGrads<double>&, const double*,
                                        const double*, const double*, const GruCellCache<double>&,
                                        const GruCellWeights<double>&, int, int, int);

}  // namespace tfp::train
