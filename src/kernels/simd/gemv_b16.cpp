// A decode step (M = 1) on 16-bit B with the conversion fused into the GEMV, for the
// 4-lane builds (WASM SIMD128 through SSE4.1, native -msse4.1). WASM has no half-precision
// instruction; widening B into scratch first (gemm.cpp) ran at ~1 G values/s there.
//
// f16 without arithmetic on the weights: the bits (sign s, exponent e, mantissa m) placed as
//   f32 bits  s<<31 | (e·1024 + m)<<13
// read as f32 are exactly w·2^-112 for every finite half, subnormals included (an f16
// exponent e becomes the f32 exponent e, and 127 - 15 = 112). Per 8 halves that is one
// 16-bit arithmetic shift + mask (the high halves), one 16-bit shift (the low halves) and two
// interleaves. The activations are scaled by 2^112 instead (exact while max|x| < 2^16), so
// every product (x·2^112)·(w·2^-112) is the real x·w and rounds as x·w does: the sums below
// repeat gemm.cpp's gemv_nk (dot_row<A, 4>) and gemv_kn (8 rows, 512-column blocks) step for
// step, so the result equals the f32 path on widened B bit for bit. bf16 is a 16-bit
// interleave with zeros (exact, no scaling).
// Not taken (kernels::matmul_b16_decode returns false, the caller runs matmul): M != 1, an
// 8-lane build (AVX2), max|x| >= 2^16, or an f16 infinity/NaN in B (found by an unsigned max
// over the bits, two of the ~12 instructions per 8 weights: skipped when the caller vouches
// for B, MatmulArgs::B16_finite, as a model does after its load-time check).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/simd/simd.h"
#include "kernels/two_streams.h"

namespace tfp::kernels::simd {

#if defined(__SSE4_1__) && !defined(__AVX__)
namespace {

using F = fbatch<Arch>;
static_assert(F::size == 4, "gemv_b16.cpp: a 4-lane build (SSE4.1 / WASM SIMD128)");

// What the pass saw of B's bits: the vector max of h << 1 and a scalar flag for the tails.
struct Seen {
  __m128i hmax = _mm_setzero_si128();
  bool bad = false;  // an f16 with exponent 31 (inf/NaN) in a scalar tail
};

thread_local std::vector<float> t_x;  // x · 2^112 (f16) or x (bf16)

// What B16 holds: bfloat16, IEEE half (checked for infinity/NaN as it is read), or IEEE half
// the caller vouched for (MatmulArgs::B16_finite).
enum class Kind { bf16, f16, f16_finite };

// 8 halves → 2 × 4 floats (w·2^-112 for f16, w for bf16); `hmax` collects max(h << 1).
template <Kind B>
inline void convert8(const uint16_t* p, __m128& lo, __m128& hi, Seen& seen) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (B == Kind::bf16) {
    const __m128i z = _mm_setzero_si128();
    lo = _mm_castsi128_ps(_mm_unpacklo_epi16(z, h));
    hi = _mm_castsi128_ps(_mm_unpackhi_epi16(z, h));
  } else {
    if constexpr (B == Kind::f16)  // exponent 31 (inf/NaN) ⇔ h<<1 >= 0xf800
      seen.hmax = _mm_max_epu16(seen.hmax, _mm_slli_epi16(h, 1));
    const __m128i top = _mm_and_si128(_mm_srai_epi16(h, 3), _mm_set1_epi16(static_cast<short>(0x8fff)));
    const __m128i bot = _mm_slli_epi16(h, 13);
    lo = _mm_castsi128_ps(_mm_unpacklo_epi16(bot, top));
    hi = _mm_castsi128_ps(_mm_unpackhi_epi16(bot, top));
  }
}

template <Kind B>
inline float convert1(uint16_t h, Seen& seen) {
  if constexpr (B == Kind::bf16) return __builtin_bit_cast(float, static_cast<uint32_t>(h) << 16);
  if constexpr (B == Kind::f16) seen.bad = seen.bad || (h & 0x7c00u) == 0x7c00u;
  return __builtin_bit_cast(float, (static_cast<uint32_t>(h & 0x8000u) << 16) | (static_cast<uint32_t>(h & 0x7fffu) << 13));
}

inline bool has_inf_nan(const Seen& seen) {
  alignas(16) uint16_t l[8];
  _mm_store_si128(reinterpret_cast<__m128i*>(l), seen.hmax);
  return seen.bad || *std::max_element(l, l + 8) >= 0xf800;
}

// gemm.cpp's dot_row<A, 4> with B converted as it is read: U = 4 partial sums of 4 lanes.
template <Kind B>
float dot_row16(const float* __restrict x, const uint16_t* __restrict y, int K, Seen& seen) {
  constexpr int W = 4, U = 4;
  F s[U];
  for (int u = 0; u < U; ++u) s[u] = F(0.0f);
  int k = 0;
  for (; k + U * W <= K; k += U * W)
    for (int u = 0; u < U; u += 2) {
      __m128 lo, hi;
      convert8<B>(y + k + u * W, lo, hi, seen);
      s[u] = xsimd::fma(F::load_unaligned(x + k + u * W), F(lo), s[u]);
      s[u + 1] = xsimd::fma(F::load_unaligned(x + k + (u + 1) * W), F(hi), s[u + 1]);
    }
  for (; k + W <= K; k += W) {
    alignas(16) float w[W];
    for (int i = 0; i < W; ++i) w[i] = convert1<B>(y[k + i], seen);
    s[0] = xsimd::fma(F::load_unaligned(x + k), F::load_aligned(w), s[0]);
  }
  for (int u = 1; u < U; ++u) s[0] += s[u];
  float t = xsimd::hadd(s[0]);
  for (; k < K; ++k) t += x[k] * convert1<B>(y[k], seen);
  return t;
}

template <Kind B>
void gemv_nk16(const MatmulArgs& a, const float* x, Seen& seen) {
  two_streams(a.N, [&](int j) {  // rows from two streams far apart (two_streams.h)
    const float v = a.alpha * dot_row16<B>(x, a.B16 + static_cast<int64_t>(j) * a.ldb, a.K, seen);
    const float r = v + (a.bias ? a.bias[j] : 0.0f);
    float& c = a.C[j];
    c = a.accumulate ? c + r : r;
  });
}

// gemm.cpp's gemv_kn for M = 1: y[0:N] = Σ_p x[p] · B[p, 0:N], 8 rows a pass, 512 columns
// a block, then C = alpha·y + bias (+ C).
template <Kind B>
void gemv_kn16(const MatmulArgs& a, const float* x, Seen& seen) {
  constexpr int W = 4, R = 8, JB = 512;
  float* acc = scratch(2, static_cast<size_t>(a.N));
  std::memset(acc, 0, sizeof(float) * static_cast<size_t>(a.N));
  for (int p = 0; p < a.K; p += R) {
    const int pk = std::min(R, a.K - p);
    for (int jb = 0; jb < a.N; jb += JB) {
      const int jn = std::min(JB, a.N - jb);
      float* y = acc + jb;
      int j = 0;
      if (pk == R) {
        F av[R];
        for (int r = 0; r < R; ++r) av[r] = F(x[p + r]);
        for (; j + 2 * W <= jn; j += 2 * W) {
          F s0 = F::load_unaligned(y + j), s1 = F::load_unaligned(y + j + W);
          for (int r = 0; r < R; ++r) {
            __m128 lo, hi;
            convert8<B>(a.B16 + static_cast<int64_t>(p + r) * a.ldb + jb + j, lo, hi, seen);
            s0 = xsimd::fma(av[r], F(lo), s0);
            s1 = xsimd::fma(av[r], F(hi), s1);
          }
          s0.store_unaligned(y + j);
          s1.store_unaligned(y + j + W);
        }
        for (; j + W <= jn; j += W) {
          F s = F::load_unaligned(y + j);
          for (int r = 0; r < R; ++r) {
            alignas(16) float w[W];
            for (int i = 0; i < W; ++i) w[i] = convert1<B>(a.B16[static_cast<int64_t>(p + r) * a.ldb + jb + j + i], seen);
            s = xsimd::fma(av[r], F::load_aligned(w), s);
          }
          s.store_unaligned(y + j);
        }
        for (; j < jn; ++j) {
          float s = y[j];
          for (int r = 0; r < R; ++r) s += x[p + r] * convert1<B>(a.B16[static_cast<int64_t>(p + r) * a.ldb + jb + j], seen);
          y[j] = s;
        }
      } else {  // fewer than 8 rows left: one row at a time (axpy_rows<A, 1>)
        for (int r = 0; r < pk; ++r) {
          const F av(x[p + r]);
          const uint16_t* b = a.B16 + static_cast<int64_t>(p + r) * a.ldb + jb;
          int jj = 0;
          for (; jj + W <= jn; jj += W) {
            alignas(16) float w[W];
            for (int i = 0; i < W; ++i) w[i] = convert1<B>(b[jj + i], seen);
            xsimd::fma(av, F::load_aligned(w), F::load_unaligned(y + jj)).store_unaligned(y + jj);
          }
          for (; jj < jn; ++jj) {
            float s = y[jj];
            s += x[p + r] * convert1<B>(b[jj], seen);
            y[jj] = s;
          }
        }
      }
    }
  }
  // write_row: C = acc·alpha + bias (+ C)
  const F va(a.alpha);
  int j = 0;
  for (; j + W <= a.N; j += W) {
    F r = F::load_unaligned(acc + j) * va;
    if (a.bias) r += F::load_unaligned(a.bias + j);
    if (a.accumulate) r += F::load_unaligned(a.C + j);
    r.store_unaligned(a.C + j);
  }
  for (; j < a.N; ++j) {
    const float r = acc[j] * a.alpha + (a.bias ? a.bias[j] : 0.0f);
    a.C[j] = a.accumulate ? a.C[j] + r : r;
  }
}

}  // namespace

}  // namespace tfp::kernels::simd

namespace tfp::kernels {

bool matmul_b16_decode(const MatmulArgs& a) {
  using namespace simd;
  if (a.M != 1 || !a.B16 || a.K <= 0 || a.N <= 0) return false;
  // Bad arguments are matmul's to report (the caller then calls it).
  if (!a.A || !a.C || a.lda < a.K || a.ldc < a.N || a.ldb < (a.layout == BLayout::KN ? a.N : a.K)) return false;
  // x scaled by 2^112 (f16) must stay finite and exact: max|x| < 2^16.
  float amax = 0;
  for (int k = 0; k < a.K; ++k) amax = std::max(amax, std::fabs(a.A[k]));
  if (!(amax < 65536.0f)) return false;
  t_x.resize(static_cast<size_t>(a.K));
  const float scale = a.B16_bf16 ? 1.0f : 0x1p112f;
  for (int k = 0; k < a.K; ++k) t_x[static_cast<size_t>(k)] = a.A[k] * scale;
  // f16: an infinity or NaN in B is known only after the pass (C already written): C is put
  // back as it was and the caller's matmul computes it (N floats kept: small beside N·K).
  const bool check = !a.B16_bf16 && !a.B16_finite;
  std::vector<float> c0;
  if (check) c0.assign(a.C, a.C + a.N);
  // Column blocks over the threads at multiples of 16 (gemv_kn16's 8-column body then covers
  // the columns it covers in one call: the same bits); each block's Seen joins the total.
  const float* x = t_x.data();  // the caller's: the workers read it
  Seen seen;
  std::mutex seen_mutex;
  auto columns = [&](int j0, int j1) {
    const MatmulArgs b = column_block(a, j0, j1);
    Seen s;
    const bool nk = a.layout == BLayout::NK;
    if (a.B16_bf16) nk ? gemv_nk16<Kind::bf16>(b, x, s) : gemv_kn16<Kind::bf16>(b, x, s);
    else if (check) nk ? gemv_nk16<Kind::f16>(b, x, s) : gemv_kn16<Kind::f16>(b, x, s);
    else nk ? gemv_nk16<Kind::f16_finite>(b, x, s) : gemv_kn16<Kind::f16_finite>(b, x, s);
    std::lock_guard<std::mutex> lk(seen_mutex);
    seen.hmax = _mm_max_epu16(seen.hmax, s.hmax);
    seen.bad = seen.bad || s.bad;
  };
  if (!parallel_column_blocks(a.N, static_cast<int64_t>(a.N) * a.K, 16, columns)) columns(0, a.N);
  if (!check || !has_inf_nan(seen)) return true;
  std::copy(c0.begin(), c0.end(), a.C);
  return false;
}

}  // namespace tfp::kernels

#else
}  // namespace tfp::kernels::simd

namespace tfp::kernels {
bool matmul_b16_decode(const MatmulArgs&) { return false; }
}  // namespace tfp::kernels
#endif
