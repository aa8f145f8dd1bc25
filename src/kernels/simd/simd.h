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

// Per-thread scratch of at least n floats, 64-byte aligned, grown and never shrunk.
// Callers use it for packing buffers only; its content is garbage on entry.
// `slot` selects one of a few independent buffers (packed A, packed B, ...).
float* scratch(int slot, size_t n);

}  // namespace tfp::kernels::simd
