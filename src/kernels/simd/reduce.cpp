// Whole-vector scans a decode step makes over its V logits (V = 50,257 for GPT-2,
// 262,144 for Gemma 3): the first NaN, the first index of the maximum, the softmax's sum.
// The vector body only answers "is it in this batch?"; the exact index comes from a
// scalar look inside that one batch, so the answer is the scalar loop's.
#include <limits>

#include "kernels/kernels.h"
#include "kernels/simd/simd.h"

namespace tfp::kernels {
namespace simd {
namespace {

template <class A>
int64_t first_nan(const float* x, int64_t n) {
  using B = fbatch<A>;
  constexpr int64_t W = B::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const B v = B::load_unaligned(x + i);
    if (xsimd::any(xsimd::isnan(v))) break;  // the NaN is in x[i, i + W)
  }
  for (; i < n; ++i)
    if (x[i] != x[i]) return i;
  return -1;
}

template <class A>
int64_t argmax(const float* x, int64_t n) {
  using B = fbatch<A>;
  constexpr int64_t W = B::size;
  B vmax(-std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + W <= n; i += W) vmax = xsimd::max(vmax, B::load_unaligned(x + i));
  float mx = hmax<A>(vmax);
  for (; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  const B vm(mx);
  for (i = 0; i + W <= n; i += W)
    if (xsimd::any(B::load_unaligned(x + i) == vm)) break;  // the first max is in here
  for (; i < n; ++i)
    if (x[i] == mx) return i;
  return 0;  // every element -inf below the initial max: x[0] is the first of them
}

template <class A>
float sum_exp(const float* x, int64_t n, float shift) {
  using B = fbatch<A>;
  constexpr int64_t W = B::size;
  const B vs(shift);
  B acc(0.0f);
  int64_t i = 0;
  for (; i + W <= n; i += W) acc += exp_fast<A>(B::load_unaligned(x + i) - vs);
  if (i < n)  // the tail through the same vector exp; padding lanes are -inf -> 0
    acc += exp_fast<A>(load_partial<A>(x + i, static_cast<size_t>(n - i), -std::numeric_limits<float>::infinity()) - vs);
  return xsimd::hadd(acc);
}

}  // namespace
}  // namespace simd

int64_t first_nan(const float* x, int64_t n) { return simd::first_nan<simd::Arch>(x, n); }

int64_t argmax(const float* x, int64_t n) { return n > 0 ? simd::argmax<simd::Arch>(x, n) : -1; }

float sum_exp(const float* x, int64_t n, float shift) { return simd::sum_exp<simd::Arch>(x, n, shift); }

}  // namespace tfp::kernels
