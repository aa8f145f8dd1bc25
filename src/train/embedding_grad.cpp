#include "train/embedding_grad.h"

#include <cstdint>

#include "core/error.h"

namespace tfp::train {

template <class T>
void embedding_forward(T* x, const int* ids, const T* wte, const T* wpe, int B, int Tn, int C,
                       int V, int P) {
  TFP_CHECK(!wpe || Tn <= P, "embedding: sequence of ", Tn, " tokens exceeds the ", P,
            " learned positions");
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < Tn; ++t) {
      const int id = ids[b * Tn + t];
      TFP_CHECK(id >= 0 && id < V, "embedding: token id ", id, " at [", b, ", ", t,
                "] is outside the vocabulary of ", V);
      T* xr = x + (static_cast<int64_t>(b) * Tn + t) * C;
      const T* er = wte + static_cast<int64_t>(id) * C;
      for (int c = 0; c < C; ++c) xr[c] = er[c] + (wpe ? wpe[static_cast<int64_t>(t) * C + c] : T(0));
    }
}

template <class T>
void embedding_backward(T* dwte, T* dwpe, const T* dx, const int* ids, int B, int Tn, int C) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < Tn; ++t) {
      const T* g = dx + (static_cast<int64_t>(b) * Tn + t) * C;
      if (dwte) {
        T* row = dwte + static_cast<int64_t>(ids[b * Tn + t]) * C;
        for (int c = 0; c < C; ++c) row[c] += g[c];
      }
      if (dwpe) {
        T* row = dwpe + static_cast<int64_t>(t) * C;
        for (int c = 0; c < C; ++c) row[c] += g[c];
      }
    }
}

template void embedding_forward<float>(float*, const int*, const float*, const float*, int, int,
                                       int, int, int);
template void embedding_forward<double>(double*, const int*, const double*, const double*, int,
                                        int, int, int, int);
template void embedding_backward<float>(float*, float*, const float*, const int*, int, int, int);
template void embedding_backward<double>(double*, double*, const double*, const int*, int, int, int);

}  // namespace tfp::train
