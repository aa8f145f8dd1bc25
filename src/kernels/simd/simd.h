// Shared pieces of the xsimd kernels (private to src/kernels/simd/).
//
// Every kernel here is a template over the architecture `Arch` and uses
// xsimd::batch<float, Arch>; the public functions instantiate it for
// xsimd::default_arch, which is what the compile flags allow:
//   native -mavx2 -mfma     -> fma3<avx2>, 8 floats a batch
//   wasm   -msimd128 -msse4.1 -> sse4_1 mapped onto WASM SIMD128, 4 floats a batch
// Pattern of each loop: a vector body over whole batches, then a tail of
// fewer than W elements.
#pragma once
#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace tfp::kernels::simd {

using Arch = xsimd::default_arch;

template <class A>
using fbatch = xsimd::batch<float, A>;

// Load / store the first n (< W) floats of a batch; the missing lanes read as `fill`.
// Used by tails that must go through the same vector maths as the body
// (exp, erf, tanh), so element i gets the same result whatever its position.
template <class A>
inline fbatch<A> load_partial(const float* p, size_t n, float fill) {
  alignas(64) float buf[fbatch<A>::size];
  for (size_t i = 0; i < fbatch<A>::size; ++i) buf[i] = i < n ? p[i] : fill;
  return fbatch<A>::load_aligned(buf);
}

template <class A>
inline void store_partial(float* p, size_t n, const fbatch<A>& v) {
  alignas(64) float buf[fbatch<A>::size];
  v.store_aligned(buf);
  for (size_t i = 0; i < n; ++i) p[i] = buf[i];
}

// Horizontal max of a batch (xsimd 8.1 has hadd but no hmax).
template <class A>
inline float hmax(const fbatch<A>& v) {
  alignas(64) float buf[fbatch<A>::size];
  v.store_aligned(buf);
  float m = buf[0];
  for (size_t i = 1; i < fbatch<A>::size; ++i) m = buf[i] > m ? buf[i] : m;
  return m;
}

// e^x for the kernels (softmax, SiLU, GELU): Cephes' expf (x = n·ln2 + r, |r| <= ln2/2,
// a degree-5 polynomial; within 2 ulp of e^x), with 2^n written straight into the
// exponent bits. xsimd::exp does the same maths, but its float-to-int conversion has no
// WASM lane instruction under Emscripten's SSE emulation (it runs per lane): ~5x slower.
// Domain: x < -87.34 gives 0 (the true result is denormal), x > 88.3 gives +inf (the
// true overflow is at 88.72), NaN stays NaN; -inf gives exactly 0 (masked scores).
template <class A>
inline fbatch<A> exp_fast(const fbatch<A>& x) {
  using B = fbatch<A>;
  using I = xsimd::batch<int32_t, A>;
  const B lo(-87.3365478515625f), hi(88.3f);  // hi / ln2 = 127.4: n <= 127
  const B xc = xsimd::min(xsimd::max(x, lo), hi);
  // n = round(x / ln2) through the 1.5·2^23 trick: its low mantissa bits hold n.
  const B shifter(12582912.0f);
  const B t = xsimd::fma(xc, B(1.44269504088896341f), shifter);
  const B n = t - shifter;
  B r = xsimd::fnma(n, B(0.693359375f), xc);  // ln2 in two parts: r = x - n·ln2, exactly
  r = xsimd::fnma(n, B(-2.12194440e-4f), r);
  B p(1.9875691500e-4f);
  p = xsimd::fma(p, r, B(1.3981999507e-3f));
  p = xsimd::fma(p, r, B(8.3334519073e-3f));
  p = xsimd::fma(p, r, B(4.1665795894e-2f));
  p = xsimd::fma(p, r, B(1.6666665459e-1f));
  p = xsimd::fma(p, r, B(5.0000001201e-1f));
  p = xsimd::fma(p * r, r, r + B(1.0f));  // 1 + r + r²·p
  const I bits = (xsimd::bitwise_cast<I>(t) - I(0x4B400000 - 127)) << 23;  // 2^n
  B e = p * xsimd::bitwise_cast<B>(bits);
  e = xsimd::select(x < lo, B(0.0f), e);
  e = xsimd::select(x > hi, B(std::numeric_limits<float>::infinity()), e);
  return xsimd::select(xsimd::isnan(x), x, e);
}

// Per-thread scratch of at least n floats, 64-byte aligned, grown and never shrunk.
// Callers use it for packing buffers only; its content is garbage on entry.
// `slot` selects one of a few independent buffers (packed A, packed B, ...).
float* scratch(int slot, size_t n);

}  // namespace tfp::kernels::simd
