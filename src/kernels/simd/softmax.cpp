// Row-wise softmax in place: x[r, :] <- exp(x - max) / sum exp(x - max).
//
// Invariants:
//   - the row max is subtracted first, so every exp argument is <= 0: no overflow
//     (logits of 1000 are fine) and the largest term is exactly 1, so sum >= 1;
//   - masked entries are -inf: exp(-inf - max) = exp(-inf) = 0 exactly;
//   - a row that is all -inf has no distribution: written as all 0 (never 0/0 = NaN).
// Three passes over the row: max, exp + sum (exp stored in place), scale by 1/sum.
#include <cmath>
#include <limits>

#include "kernels/kernels.h"
#include "kernels/simd/simd.h"

namespace tfp::kernels {
namespace simd {
namespace {

template <class A>
void softmax_row(float* x, int n) {
  using B = fbatch<A>;
  constexpr int W = B::size;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  // ---- max ----
  B vmax(kNegInf);
  int j = 0;
  for (; j + W <= n; j += W) vmax = xsimd::max(vmax, B::load_unaligned(x + j));
  float mx = hmax<A>(vmax);
  for (; j < n; ++j) mx = x[j] > mx ? x[j] : mx;
  if (mx == kNegInf) {  // all masked (or n == 0)
    for (int k = 0; k < n; ++k) x[k] = 0.0f;
    return;
  }

  // ---- exp(x - max), sum ----
  const B vm(mx);
  B vsum(0.0f);
  j = 0;
  for (; j + W <= n; j += W) {
    const B e = exp_fast<A>(B::load_unaligned(x + j) - vm);
    e.store_unaligned(x + j);
    vsum += e;
  }
  if (j < n) {  // tail through the same vector exp; padding lanes are -inf -> 0
    const B e = exp_fast<A>(load_partial<A>(x + j, n - j, kNegInf) - vm);
    store_partial<A>(x + j, n - j, e);
    vsum += e;
  }
  const float sum = xsimd::hadd(vsum);

  // ---- scale ----
  const B inv(1.0f / sum);
  j = 0;
  for (; j + W <= n; j += W) (B::load_unaligned(x + j) * inv).store_unaligned(x + j);
  for (; j < n; ++j) x[j] *= 1.0f / sum;
}

}  // namespace
}  // namespace simd

void softmax_rows(float* x, int rows, int cols, int64_t ld) {
  for (int r = 0; r < rows; ++r) simd::softmax_row<simd::Arch>(x + r * ld, cols);
}

}  // namespace tfp::kernels
