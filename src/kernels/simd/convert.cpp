// Half-precision storage formats -> f32, and the name of the SIMD level in use.
//
// f16 (1 sign, 5 exponent bias 15, 10 mantissa) -> f32, branch-free per lane:
//   o = (h & 0x7fff) << 13          exponent and mantissa moved into f32 position
//   normal       o + (127-15)<<23   rebias the exponent
//   inf / NaN    o + (255-31)<<23   exponent 31 -> 255, mantissa (NaN payload) kept
//   zero / sub   as_float(o + 113<<23) - 2^-14
//                 = 2^-14·(1 + man/1024) - 2^-14 = man·2^-24, exact
//   then OR the sign back.
// bf16 is the top half of an f32: a 16-bit shift.
#include "kernels/kernels.h"
#include "kernels/simd/simd.h"

namespace tfp::kernels {
namespace simd {
namespace {

template <class A>
using ubatch = xsimd::batch<uint32_t, A>;

// Widen W halves to a u32 batch: one zero-extending load (SSE4.1 pmovzxwd, which
// Emscripten maps onto WASM's i32x4.extend_low_i16x8_u; AVX2 vpmovzxwd); xsimd 8.1 has no
// widening load, and the element loop it replaces stayed scalar in WASM (10x slower).
template <class A>
inline ubatch<A> widen(const uint16_t* s) {
#if defined(__AVX512F__)
  if constexpr (ubatch<A>::size == 16)
    return ubatch<A>(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s))));
#endif
#if defined(__AVX2__)
  if constexpr (ubatch<A>::size == 8)
    return ubatch<A>(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s))));
#endif
#if defined(__SSE4_1__)
  if constexpr (ubatch<A>::size == 4)
    return ubatch<A>(_mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s))));
#endif
  alignas(64) uint32_t buf[ubatch<A>::size];
  for (size_t i = 0; i < ubatch<A>::size; ++i) buf[i] = s[i];
  return ubatch<A>::load_aligned(buf);
}

template <class A>
inline fbatch<A> half_to_float(const ubatch<A>& h) {
  using U = ubatch<A>;
  using F = fbatch<A>;
  const U o = (h & U(0x7fffu)) << 13;
  const U exp = o & U(0x0f800000u);
  const U normal = o + U(112u << 23);
  const U infnan = o + U(224u << 23);
  const F sub_f = xsimd::bitwise_cast<F>(o + U(113u << 23)) - F(6.103515625e-05f);  // 2^-14
  const U sub = xsimd::bitwise_cast<U>(sub_f);
  U r = xsimd::select(exp == U(0x0f800000u), infnan, normal);
  r = xsimd::select(exp == U(0u), sub, r);
  return xsimd::bitwise_cast<F>(r | ((h & U(0x8000u)) << 16));
}

#if defined(__SSE4_1__) && !defined(__AVX__)
// 4-lane builds (WASM SIMD128, native -msse4.1): 8 halves at a time without widening loads.
// The bits s<<31 | (h & 0x7fff)<<13 read as f32 are w·2^-112 exactly for every finite half
// (subnormals too), so one multiply by 2^112 finishes; exponent 31 (inf/NaN) gets f32's 255
// by OR-ing 0x7f80 into the top half (the payload is kept). ~2.6 G values/s in WASM here
// against ~0.85 for half_to_float below (its selects and compares per 4 lanes).
inline size_t f16_to_f32_sse(const uint16_t* src, float* dst, size_t n) {
  const __m128 k = _mm_set1_ps(0x1p112f);
  const __m128i mask = _mm_set1_epi16(static_cast<short>(0x8fff)), e31 = _mm_set1_epi16(0x7c00);
  const __m128i f255 = _mm_set1_epi16(0x7f80), zero = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i top = _mm_and_si128(_mm_srai_epi16(h, 3), mask), bot = _mm_slli_epi16(h, 13);
    const __m128i fix = _mm_and_si128(_mm_cmpeq_epi16(_mm_and_si128(h, e31), e31), f255);
    const __m128 lo = _mm_mul_ps(_mm_castsi128_ps(_mm_unpacklo_epi16(bot, top)), k);
    const __m128 hi = _mm_mul_ps(_mm_castsi128_ps(_mm_unpackhi_epi16(bot, top)), k);
    _mm_storeu_ps(dst + i, _mm_or_ps(lo, _mm_castsi128_ps(_mm_unpacklo_epi16(zero, fix))));
    _mm_storeu_ps(dst + i + 4, _mm_or_ps(hi, _mm_castsi128_ps(_mm_unpackhi_epi16(zero, fix))));
  }
  return i;
}
#endif

template <class A>
void f16_to_f32_impl(const uint16_t* src, float* dst, size_t n) {
  constexpr size_t W = fbatch<A>::size;
  size_t i = 0;
#if defined(__SSE4_1__) && !defined(__AVX__)
  i = f16_to_f32_sse(src, dst, n);
#endif
  for (; i + W <= n; i += W) half_to_float<A>(widen<A>(src + i)).store_unaligned(dst + i);
  if (i < n) {
    alignas(64) uint16_t pad[W] = {};
    for (size_t k = 0; k < n - i; ++k) pad[k] = src[i + k];
    store_partial<A>(dst + i, n - i, half_to_float<A>(widen<A>(pad)));
  }
}

template <class A>
void bf16_to_f32_impl(const uint16_t* src, float* dst, size_t n) {
  constexpr size_t W = fbatch<A>::size;
  size_t i = 0;
  for (; i + W <= n; i += W)
    xsimd::bitwise_cast<fbatch<A>>(widen<A>(src + i) << 16).store_unaligned(dst + i);
  for (; i < n; ++i) dst[i] = __builtin_bit_cast(float, static_cast<uint32_t>(src[i]) << 16);
}

}  // namespace
}  // namespace simd

void f16_to_f32(const uint16_t* src, float* dst, size_t n) {
  simd::f16_to_f32_impl<simd::Arch>(src, dst, n);
}
void bf16_to_f32(const uint16_t* src, float* dst, size_t n) {
  simd::bf16_to_f32_impl<simd::Arch>(src, dst, n);
}

const char* simd_arch_name() {
#ifdef __EMSCRIPTEN__
  return "sse4.1/wasm128";
#else
  return simd::Arch::name();
#endif
}

}  // namespace tfp::kernels
