// Elementwise kernels over n floats: relu, the two GELUs, SiLU, the residual add.
// Transcendental tails go through a padded batch, so element i gets the same maths
// wherever it lies; relu and add have exact scalar tails.
#include "kernels/kernels.h"
#include "kernels/simd/simd.h"

namespace tfp::kernels {
namespace simd {
namespace {

// Applies f (batch -> batch) to x[0:n] in place.
template <class A, class F>
inline void map_inplace(float* x, size_t n, F f) {
  using B = fbatch<A>;
  constexpr size_t W = B::size;
  size_t i = 0;
  for (; i + W <= n; i += W) f(B::load_unaligned(x + i)).store_unaligned(x + i);
  if (i < n) store_partial<A>(x + i, n - i, f(load_partial<A>(x + i, n - i, 0.0f)));
}

template <class A>
fbatch<A> relu_b(const fbatch<A>& v) {
  // select(v > 0, v, 0) rather than max(v, 0): NaN -> 0 exactly like the reference
  return xsimd::select(v > fbatch<A>(0.0f), v, fbatch<A>(0.0f));
}

template <class A>
fbatch<A> gelu_tanh_b(const fbatch<A>& v) {
  using B = fbatch<A>;
  const B k(0.7978845608028654f), c(0.044715f), one(1.0f);
  const B u = k * xsimd::fma(c * v * v, v, v);  // √(2/π)·(x + 0.044715·x³)
  // ½·x·(1 + tanh u) = x / (1 + e^(-2u)): one exp, no cancellation near u = 0
  return v / (one + exp_fast<A>(B(-2.0f) * u));
}

template <class A>
fbatch<A> gelu_erf_b(const fbatch<A>& v) {
  using B = fbatch<A>;
  const B r(0.7071067811865476f), half(0.5f), one(1.0f);
  return half * v * (one + xsimd::erf(v * r));
}

template <class A>
fbatch<A> silu_b(const fbatch<A>& v) {
  using B = fbatch<A>;
  return v / (B(1.0f) + exp_fast<A>(-v));
}

}  // namespace
}  // namespace simd

void relu(float* x, size_t n) {
  simd::map_inplace<simd::Arch>(x, n, simd::relu_b<simd::Arch>);
}
void gelu_tanh(float* x, size_t n) {
  simd::map_inplace<simd::Arch>(x, n, simd::gelu_tanh_b<simd::Arch>);
}
void gelu_erf(float* x, size_t n) {
  simd::map_inplace<simd::Arch>(x, n, simd::gelu_erf_b<simd::Arch>);
}

void silu(float* x, size_t n) {
  simd::map_inplace<simd::Arch>(x, n, simd::silu_b<simd::Arch>);
}

void add_inplace(float* y, const float* x, size_t n) {
  using B = simd::fbatch<simd::Arch>;
  constexpr size_t W = B::size;
  size_t i = 0;
  for (; i + W <= n; i += W) (B::load_unaligned(y + i) + B::load_unaligned(x + i)).store_unaligned(y + i);
  for (; i < n; ++i) y[i] += x[i];
}

}  // namespace tfp::kernels
