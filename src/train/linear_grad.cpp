#include "train/linear_grad.h"

#include <vector>

#include "train/gemm.h"

namespace tfp::train {

template <class T>
void linear_forward(T* y, const T* x, const T* w, const T* b, int N, int I, int O) {
  gemm<T>(N, O, I, x, I, w, I, BLayout::NK, y, O);
  if (b)
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o) y[static_cast<int64_t>(n) * O + o] += b[o];
}

template <class T>
void linear_backward(T* dx, T* dw, T* db, const T* dy, const T* x, const T* w, int N, int I,
                     int O) {
  if (dx) gemm<T>(N, I, O, dy, O, w, I, BLayout::KN, dx, I, T(1), /*accumulate=*/true);
  if (dw) {
    // dW (O, I) += dYᵀ (O, N) · X (N, I); the kernel wants A row-major, so transpose dY.
    std::vector<T> dyT(static_cast<size_t>(N) * O);
    transpose<T>(dy, N, O, O, dyT.data());
    gemm<T>(O, I, N, dyT.data(), N, x, I, BLayout::KN, dw, I, T(1), /*accumulate=*/true);
  }
  if (db)
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o) db[o] += dy[static_cast<int64_t>(n) * O + o];
}

template void linear_forward<float>(float*, const float*, const float*, const float*, int, int, int);
template void linear_forward<double>(double*, const double*, const double*, const double*, int, int, int);
template void linear_backward<float>(float*, float*, float*, const float*, const float*,
                                     const float*, int, int, int);
template void linear_backward<double>(double*, double*, double*, const double*, const double*,
                                      const double*, int, int, int);

}  // namespace tfp::train
