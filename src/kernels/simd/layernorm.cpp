// LayerNorm over each row: y = (x - mean) / sqrt(var + eps) * gamma + beta.
//
// Corrected two-pass statistics rather than E[x^2] - E[x]^2 (which cancels when
// |mean| >> std): pass 1 gives a float mean m; pass 2 sums d = x - m and d^2, then
//   mean = m + Σd/n,  var = Σd²/n - (Σd/n)²
// where Σd/n is the small error of m, so m's rounding no longer shifts x̂.
// Biased variance, as PyTorch.
// x and y may alias: each element is read before it is written.
#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"
#include "kernels/simd/simd.h"

namespace tfp::kernels {
namespace simd {
namespace {

template <class A>
void layernorm_row(const float* x, const float* gamma, const float* beta, float* y, int n,
                   float eps) {
  using B = fbatch<A>;
  constexpr int W = B::size;

  // ---- mean ----
  B vs(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) vs += B::load_unaligned(x + j);
  float s = xsimd::hadd(vs);
  for (; j < n; ++j) s += x[j];
  const float mean = s / static_cast<float>(n);

  // ---- variance ----
  const B vmean(mean);
  B vd(0.0f), vq(0.0f);
  j = 0;
  for (; j + W <= n; j += W) {
    const B d = B::load_unaligned(x + j) - vmean;
    vd += d;
    vq = xsimd::fma(d, d, vq);
  }
  float sd = xsimd::hadd(vd), q = xsimd::hadd(vq);
  for (; j < n; ++j) {
    const float d = x[j] - mean;
    sd += d;
    q += d * d;
  }
  const float dm = sd / static_cast<float>(n);
  const float var = std::max(q / static_cast<float>(n) - dm * dm, 0.0f);
  const float inv = 1.0f / std::sqrt(var + eps);

  // ---- normalise, scale, shift: (x - mean)·inv = ((x - m) - dm)·inv ----
  const B vinv(inv), vdm(dm);
  j = 0;
  for (; j + W <= n; j += W) {
    B v = ((B::load_unaligned(x + j) - vmean) - vdm) * vinv;
    if (gamma) v *= B::load_unaligned(gamma + j);
    if (beta) v += B::load_unaligned(beta + j);
    v.store_unaligned(y + j);
  }
  for (; j < n; ++j) {
    float v = ((x[j] - mean) - dm) * inv;
    if (gamma) v *= gamma[j];
    if (beta) v += beta[j];
    y[j] = v;
  }
}

}  // namespace
}  // namespace simd

void layernorm_rows(const float* x, const float* gamma, const float* beta, float* y, int rows,
                    int cols, float eps) {
  if (cols <= 0) return;
  for (int r = 0; r < rows; ++r) {
    const int64_t off = static_cast<int64_t>(r) * cols;
    simd::layernorm_row<simd::Arch>(x + off, gamma, beta, y + off, cols, eps);
  }
}

}  // namespace tfp::kernels
