#include "train/cross_entropy.h"

#include <cmath>
#include <cstdint>

#include "core/error.h"

namespace tfp::train {

template <class T>
CrossEntropyResult cross_entropy(T* dlogits, const T* logits, const int* targets, int N, int V,
                                 double label_smoothing, int ignore_index, double scale) {
  CrossEntropyResult r;
  for (int n = 0; n < N; ++n) {
    const int y = targets[n];
    if (y == ignore_index) continue;
    TFP_CHECK(y >= 0 && y < V, "cross_entropy: target ", y, " at row ", n,
              " is outside the vocabulary of ", V);
    ++r.valid;
  }
  const double eps = label_smoothing;
  const double inv_valid = r.valid ? 1.0 / r.valid : 0.0;
  double total = 0;
  for (int n = 0; n < N; ++n) {
    const T* z = logits + static_cast<int64_t>(n) * V;
    T* dz = dlogits ? dlogits + static_cast<int64_t>(n) * V : nullptr;
    const int y = targets[n];
    if (y == ignore_index) {
      if (dz)
        for (int c = 0; c < V; ++c) dz[c] = 0;
      continue;
    }
    // The row's sums in double: they feed a reported number and the gradient's scale.
    int arg = 0;
    double mx = z[0];
    for (int c = 1; c < V; ++c)
      if (z[c] > mx) mx = z[c], arg = c;
    double sum = 0, zsum = 0;
    for (int c = 0; c < V; ++c) sum += std::exp(z[c] - mx), zsum += z[c];
    const double lse = mx + std::log(sum);
    total += lse - (1.0 - eps) * z[y] - eps / V * zsum;
    r.correct += arg == y;
    if (dz) {
      const double g = scale * inv_valid;
      for (int c = 0; c < V; ++c) {
        const double p = std::exp(z[c] - lse);
        const double q = (c == y ? 1.0 - eps : 0.0) + eps / V;
        dz[c] = static_cast<T>(g * (p - q));
      }
    }
  }
  r.loss = total * inv_valid;
  return r;
}

template CrossEntropyResult cross_entropy<float>(float*, const float*, const int*, int, int,
                                                 double, int, double);
template CrossEntropyResult cross_entropy<double>(double*, const double*, const int*, int, int,
                                                  double, int, double);

}  // namespace tfp::train
