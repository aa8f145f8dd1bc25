// matmul_int8: C = alpha · A · Bᵀ + bias (+ C) with B int8, one scale per output column
// (per-channel symmetric weights, nn/quantize_int8.h): B(n, k) = B8[n·ldb + k] · B8_scale[n].
//
// Paths, chosen by M:
//   M <= kSmallM   integer GEMV (decode): each row of A is quantised on the fly to int16
//                  (symmetric, sa = max|a| / 32767), then per output column
//                    acc = Σ_k qa[k] · q[n, k]   in int32, 16 k at a time:
//                    8 int8 → i16x8 (a sign-extending load), i16x8 · i16x8 pairwise → i32x4
//                    (SSE4.1 _mm_madd_epi16 = WASM i32x4.dot_i16x8_s)
//                  C[i, n] = alpha · sa · s[n] · acc (+ bias) (+ C). B is read once, row by
//                  row, 1 byte a weight.
//   otherwise      dequantise blocks of B's rows (~1 MiB) to f32 and run the f32 matmul on them
//                  (prefill is compute-bound: the f32 microkernel is what counts there).
//
// Overflow: |qa| <= 32767, |q| <= 127, so one int32 lane gains at most 4 · 127 · 32767 <
// 2^24 per 16 k; flushing the int32 lanes to float every kFlushK = 2048 k keeps them
// below 2^31. The lanes are summed in float: their integer total can pass 2^31 from
// K = 516 on (every |qa| and |q| at full scale). Activation rounding: |error| <= sa/2 per
// element, i.e. the result differs from the f32 product on the dequantised weights by at
// most (max|a|/65534) · Σ_k |B(n, k)|.
//
// Measured alternative (WASM, 768 × 3072): widening int8 weights to f32 in registers and
// multiplying by f32 A needs 4 extends + 4 converts + 4 mul + 4 add per 16 weights against
// 2 extends + 2 dot + 2 add here; see bench/RESULTS.md.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"

#if defined(__EMSCRIPTEN__)
#include <wasm_simd128.h>
#define TFP_I8_WASM 1
#elif defined(__SSE4_1__)
#include <smmintrin.h>
#define TFP_I8_SSE 1
#endif

namespace tfp::kernels {
namespace {

constexpr int kSmallM = 4;
constexpr int kFlushK = 2048;  // int32 partial sums go to float every this many k
constexpr int64_t kWideBytes = 1 << 20;  // M > kSmallM: rows of B dequantised at a time fill ~1 MiB

// Per-thread buffers: the quantised A rows (int16, padded to 32) and dequantised B rows.
thread_local std::vector<int16_t> t_qa;
thread_local std::vector<float> t_wide;

// Row a (K floats) → q (K16 int16, zero-padded); returns the scale sa (0 for a zero row,
// NaN when the row holds a NaN or an infinity: the caller then takes the reference path).
float quantize_row_i16(const float* a, int K, int K16, int16_t* q) {
  float amax = 0;
  bool finite = true;
  int k = 0;
#if TFP_I8_WASM
  {  // f32x4.max propagates NaN; an infinity makes amax infinite: both fail isfinite below
    v128_t m = wasm_f32x4_splat(0.0f);
    for (; k + 4 <= K; k += 4) m = wasm_f32x4_max(m, wasm_f32x4_abs(wasm_v128_load(a + k)));
    amax = std::max(std::max(wasm_f32x4_extract_lane(m, 0), wasm_f32x4_extract_lane(m, 1)),
                    std::max(wasm_f32x4_extract_lane(m, 2), wasm_f32x4_extract_lane(m, 3)));
    finite = std::isfinite(wasm_f32x4_extract_lane(m, 0)) && std::isfinite(wasm_f32x4_extract_lane(m, 1)) &&
             std::isfinite(wasm_f32x4_extract_lane(m, 2)) && std::isfinite(wasm_f32x4_extract_lane(m, 3));
  }
#endif
  for (; k < K; ++k) {
    finite = finite && std::isfinite(a[k]);
    amax = std::max(amax, std::fabs(a[k]));
  }
  std::fill(q + K, q + K16, int16_t(0));
  if (!finite) return NAN;
  if (amax == 0) {
    std::fill(q, q + K, int16_t(0));
    return 0.0f;
  }
  const float inv = 32767.0f / amax;
  k = 0;
#if TFP_I8_WASM
  {  // round to nearest even (as lrint), |a·inv| <= 32767: the narrowing never saturates
    const v128_t vi = wasm_f32x4_splat(inv);
    for (; k + 8 <= K; k += 8) {
      const v128_t lo = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(wasm_f32x4_mul(wasm_v128_load(a + k), vi)));
      const v128_t hi = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(wasm_f32x4_mul(wasm_v128_load(a + k + 4), vi)));
      wasm_v128_store(q + k, wasm_i16x8_narrow_i32x4(lo, hi));
    }
  }
#endif
  for (; k < K; ++k) q[k] = static_cast<int16_t>(std::lrint(a[k] * inv));
  return amax / 32767.0f;
}

// One row of B against one quantised row of A: Σ_k qa[k] · b[k] as four float lane sums
// (their total is the dot product). int32 within a kFlushK block, float across blocks;
// the lanes are left unsummed so that dots4 adds four rows' lanes at once (a horizontal
// sum per row made a 768-long row ~7 % slower in WASM). Whole 32s of k run vectorised
// (4 independent int32x4 sums), the rest scalar into lane 0.
#if TFP_I8_WASM
using Lanes = v128_t;
#elif TFP_I8_SSE
using Lanes = __m128;
#else
using Lanes = float;
#endif

inline Lanes dot_i8_lanes(const int16_t* __restrict qa, const int8_t* __restrict b, int K) {
  float tail = 0;
#if TFP_I8_WASM
  v128_t total = wasm_f32x4_splat(0.0f);
#elif TFP_I8_SSE
  __m128 total = _mm_setzero_ps();
#else
  float total = 0;
#endif
  for (int k0 = 0; k0 < K; k0 += kFlushK) {
    const int kn = std::min(kFlushK, K - k0);
    const int kv = kn & ~31;
#if TFP_I8_WASM
    v128_t s0 = wasm_i32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int k = k0; k < k0 + kv; k += 32) {  // load8x8: one load that sign-extends 8 weights
      s0 = wasm_i32x4_add(s0, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b + k), wasm_v128_load(qa + k)));
      s1 = wasm_i32x4_add(s1, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b + k + 8), wasm_v128_load(qa + k + 8)));
      s2 = wasm_i32x4_add(s2, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b + k + 16), wasm_v128_load(qa + k + 16)));
      s3 = wasm_i32x4_add(s3, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b + k + 24), wasm_v128_load(qa + k + 24)));
    }
    const v128_t s = wasm_i32x4_add(wasm_i32x4_add(s0, s1), wasm_i32x4_add(s2, s3));
    total = wasm_f32x4_add(total, wasm_f32x4_convert_i32x4(s));
#elif TFP_I8_SSE
    __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
    auto ld = [](const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); };
    auto ld8 = [](const int8_t* p) { return _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))); };
    for (int k = k0; k < k0 + kv; k += 32) {
      s0 = _mm_add_epi32(s0, _mm_madd_epi16(ld8(b + k), ld(qa + k)));
      s1 = _mm_add_epi32(s1, _mm_madd_epi16(ld8(b + k + 8), ld(qa + k + 8)));
      s2 = _mm_add_epi32(s2, _mm_madd_epi16(ld8(b + k + 16), ld(qa + k + 16)));
      s3 = _mm_add_epi32(s3, _mm_madd_epi16(ld8(b + k + 24), ld(qa + k + 24)));
    }
    total = _mm_add_ps(total, _mm_cvtepi32_ps(_mm_add_epi32(_mm_add_epi32(s0, s1), _mm_add_epi32(s2, s3))));
#else
    int32_t part = 0;
    for (int k = k0; k < k0 + kv; ++k) part += int32_t(qa[k]) * b[k];
    total += static_cast<float>(part);
#endif
    int32_t rest = 0;  // < 32 terms: < 2^27
    for (int k = k0 + kv; k < k0 + kn; ++k) rest += int32_t(qa[k]) * b[k];
    tail += static_cast<float>(rest);
  }
#if TFP_I8_WASM
  return wasm_f32x4_add(total, wasm_f32x4_make(tail, 0.0f, 0.0f, 0.0f));
#elif TFP_I8_SSE
  return _mm_add_ps(total, _mm_set_ss(tail));
#else
  return total + tail;
#endif
}

#if TFP_I8_WASM
// dot_i8_lanes on two rows of B at once, each load of qa used for both. The int32 lanes hold
// the same exact sums as dot_i8_lanes' (integer adds in another order), so the results are
// its bits.
inline void dot_i8_lanes2(const int16_t* __restrict qa, const int8_t* __restrict b0, const int8_t* __restrict b1, int K,
                          Lanes& r0, Lanes& r1) {
  float tail0 = 0, tail1 = 0;
  v128_t total0 = wasm_f32x4_splat(0.0f), total1 = total0;
  for (int k0 = 0; k0 < K; k0 += kFlushK) {
    const int kn = std::min(kFlushK, K - k0);
    const int kv = kn & ~31;
    v128_t s0 = wasm_i32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int k = k0; k < k0 + kv; k += 16) {
      const v128_t a0 = wasm_v128_load(qa + k), a1 = wasm_v128_load(qa + k + 8);
      s0 = wasm_i32x4_add(s0, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b0 + k), a0));
      s1 = wasm_i32x4_add(s1, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b0 + k + 8), a1));
      s2 = wasm_i32x4_add(s2, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b1 + k), a0));
      s3 = wasm_i32x4_add(s3, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(b1 + k + 8), a1));
    }
    total0 = wasm_f32x4_add(total0, wasm_f32x4_convert_i32x4(wasm_i32x4_add(s0, s1)));
    total1 = wasm_f32x4_add(total1, wasm_f32x4_convert_i32x4(wasm_i32x4_add(s2, s3)));
    int32_t rest0 = 0, rest1 = 0;
    for (int k = k0 + kv; k < k0 + kn; ++k) rest0 += int32_t(qa[k]) * b0[k], rest1 += int32_t(qa[k]) * b1[k];
    tail0 += static_cast<float>(rest0);
    tail1 += static_cast<float>(rest1);
  }
  r0 = wasm_f32x4_add(total0, wasm_f32x4_make(tail0, 0.0f, 0.0f, 0.0f));
  r1 = wasm_f32x4_add(total1, wasm_f32x4_make(tail1, 0.0f, 0.0f, 0.0f));
}
#endif

// out[j] = the total of r[j]'s lanes, j < 4: a 4 × 4 transpose and three adds.
inline void dots4(const Lanes r[4], float out[4]) {
#if TFP_I8_WASM
  const v128_t a = wasm_f32x4_add(wasm_i32x4_shuffle(r[0], r[1], 0, 4, 1, 5), wasm_i32x4_shuffle(r[0], r[1], 2, 6, 3, 7));
  const v128_t c = wasm_f32x4_add(wasm_i32x4_shuffle(r[2], r[3], 0, 4, 1, 5), wasm_i32x4_shuffle(r[2], r[3], 2, 6, 3, 7));
  wasm_v128_store(out, wasm_f32x4_add(wasm_i64x2_shuffle(a, c, 0, 2), wasm_i64x2_shuffle(a, c, 1, 3)));
#elif TFP_I8_SSE
  const __m128 a = _mm_add_ps(_mm_unpacklo_ps(r[0], r[1]), _mm_unpackhi_ps(r[0], r[1]));
  const __m128 c = _mm_add_ps(_mm_unpacklo_ps(r[2], r[3]), _mm_unpackhi_ps(r[2], r[3]));
  _mm_storeu_ps(out, _mm_add_ps(_mm_movelh_ps(a, c), _mm_movehl_ps(c, a)));
#else
  for (int j = 0; j < 4; ++j) out[j] = r[j];
#endif
}

void store(const MatmulArgs& a, int i, int n, float v) {
  v = a.alpha * v + (a.bias ? a.bias[n] : 0.0f);
  float& c = a.C[static_cast<int64_t>(i) * a.ldc + n];
  c = a.accumulate ? c + v : v;
}

void gemv_int8(const MatmulArgs& a) {
  const int K16 = (a.K + 31) & ~31;
  t_qa.resize(static_cast<size_t>(a.M) * K16);
  float sa[kSmallM];
  for (int i = 0; i < a.M; ++i)
    sa[i] = quantize_row_i16(a.A + static_cast<int64_t>(i) * a.lda, a.K, K16, t_qa.data() + static_cast<size_t>(i) * K16);
  for (int i = 0; i < a.M; ++i) {
    if (std::isfinite(sa[i])) continue;
    // A row holding NaN or inf: the integer path cannot carry it; give what f32 would
    // (NaN, or ±inf·w summed) through the reference on this row.
    MatmulArgs r = a;
    r.M = 1;
    r.A = a.A + static_cast<int64_t>(i) * a.lda;
    r.C = a.C + static_cast<int64_t>(i) * a.ldc;
    ref::matmul_int8(r);
  }
  // WASM: rows j and j + half two at a time, sharing the loads of qa: two streams far apart
  // (two_streams.h) and 7 instead of 8 instructions per 16 weights (AMD EPYC family 26: one
  // decode step's int8 GEMVs 4.7 -> 3.7 ms, the 50257 x 768 head from DRAM 1.52 -> 1.20 ms;
  // 4 adjacent rows interleaved had run 3x slower from DRAM, and two streams of single rows
  // 2.5 % slower, on the family-25 EPYC). Then, and elsewhere, row by row of B, 4 rows per
  // transpose of their lanes. Column blocks over the threads, each column computed as one
  // thread computes it.
  const int16_t* qa = t_qa.data();  // the caller's: the workers read it
  // C[i, rows[t]] for t < count, from the lanes r[t] of row i of A against those rows of B.
  const auto put = [&](int i, const Lanes r[4], const int rows[4], int count) {
    alignas(16) float d[4];
    dots4(r, d);
    for (int t = 0; t < count; ++t) store(a, i, rows[t], d[t] * sa[i] * a.B8_scale[rows[t]]);
  };
  auto columns = [&](int n0, int n1) {
#if TFP_I8_WASM
    const int half = (n1 - n0) / 4 * 2;
    for (int j = n0; j < n0 + half; j += 2) {
      for (int i = 0; i < a.M; ++i) {
        if (!std::isfinite(sa[i])) continue;
        const int16_t* qi = qa + static_cast<size_t>(i) * K16;
        Lanes r[4];
        dot_i8_lanes2(qi, a.B8 + static_cast<int64_t>(j) * a.ldb, a.B8 + static_cast<int64_t>(j + half) * a.ldb, a.K, r[0], r[1]);
        dot_i8_lanes2(qi, a.B8 + static_cast<int64_t>(j + 1) * a.ldb, a.B8 + static_cast<int64_t>(j + 1 + half) * a.ldb, a.K, r[2], r[3]);
        const int rows[4] = {j, j + half, j + 1, j + 1 + half};
        put(i, r, rows, 4);
      }
    }
    n0 += 2 * half;
#endif
    for (int n = n0; n < n1; n += 4) {  // 4 rows of B, then the next 4: one stream
      const int nb = std::min(4, n1 - n);
      for (int i = 0; i < a.M; ++i) {
        if (!std::isfinite(sa[i])) continue;
        const int16_t* qi = qa + static_cast<size_t>(i) * K16;
        Lanes r[4] = {};  // rows past the block's end keep zero lanes
        for (int j = 0; j < nb; ++j) r[j] = dot_i8_lanes(qi, a.B8 + static_cast<int64_t>(n + j) * a.ldb, a.K);
        const int rows[4] = {n, n + 1, n + 2, n + 3};
        put(i, r, rows, nb);
      }
    }
  };
  if (!parallel_column_blocks(a.N, static_cast<int64_t>(a.M) * a.N * a.K, 16, columns)) columns(0, a.N);
}

void gemm_dequant(const MatmulArgs& a) {
  // Each block is a separate f32 matmul that packs A again: blocks as wide as ~1 MiB of
  // B allows (at least 64 rows) keep that repacking small beside the block's products.
  const int block = static_cast<int>(std::max<int64_t>(64, kWideBytes / (4 * int64_t{a.K})) / 16 * 16);
  t_wide.resize(static_cast<size_t>(std::min(block, a.N)) * a.K);
  for (int n0 = 0; n0 < a.N; n0 += block) {
    const int nb = std::min(block, a.N - n0);
    for (int r = 0; r < nb; ++r) {
      const int8_t* q = a.B8 + static_cast<int64_t>(n0 + r) * a.ldb;
      const float s = a.B8_scale[n0 + r];
      float* w = t_wide.data() + static_cast<size_t>(r) * a.K;
      for (int k = 0; k < a.K; ++k) w[k] = static_cast<float>(q[k]) * s;
    }
    MatmulArgs f = a;
    f.B8 = nullptr;
    f.B8_scale = nullptr;
    f.N = nb;
    f.B = t_wide.data();
    f.ldb = a.K;
    f.layout = BLayout::NK;
    f.C = a.C + n0;
    f.bias = a.bias ? a.bias + n0 : nullptr;
    matmul(f);
  }
}

}  // namespace

void quantize_row_int8(const float* x, int64_t n, float s, int8_t* q) {
  int64_t i = 0;
#if TFP_I8_WASM
  const v128_t vs = wasm_f32x4_splat(s), half = wasm_f32x4_splat(0.5f), one = wasm_f32x4_splat(1.0f),
               lim = wasm_f32x4_splat(127.0f), sign = wasm_f32x4_splat(-0.0f);
  auto four = [&](const float* p) {
    const v128_t qf = wasm_f32x4_div(wasm_v128_load(p), vs);
    const v128_t a = wasm_f32x4_abs(qf), t = wasm_f32x4_trunc(a);
    v128_t r = wasm_f32x4_add(t, wasm_v128_and(wasm_f32x4_ge(wasm_f32x4_sub(a, t), half), one));
    r = wasm_v128_or(wasm_f32x4_min(r, lim), wasm_v128_and(qf, sign));
    return wasm_i32x4_trunc_sat_f32x4(r);
  };
  for (; i + 16 <= n; i += 16) {
    const v128_t lo = wasm_i16x8_narrow_i32x4(four(x + i), four(x + i + 4));
    const v128_t hi = wasm_i16x8_narrow_i32x4(four(x + i + 8), four(x + i + 12));
    wasm_v128_store(q + i, wasm_i8x16_narrow_i16x8(lo, hi));
  }
#elif TFP_I8_SSE
  const __m128 vs = _mm_set1_ps(s), half = _mm_set1_ps(0.5f), one = _mm_set1_ps(1.0f), lim = _mm_set1_ps(127.0f),
               sign = _mm_set1_ps(-0.0f);
  auto four = [&](const float* p) {
    const __m128 qf = _mm_div_ps(_mm_loadu_ps(p), vs);
    const __m128 a = _mm_andnot_ps(sign, qf), t = _mm_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m128 r = _mm_add_ps(t, _mm_and_ps(_mm_cmpge_ps(_mm_sub_ps(a, t), half), one));
    r = _mm_or_ps(_mm_min_ps(r, lim), _mm_and_ps(qf, sign));
    return _mm_cvttps_epi32(r);
  };
  for (; i + 16 <= n; i += 16) {
    const __m128i lo = _mm_packs_epi32(four(x + i), four(x + i + 4));
    const __m128i hi = _mm_packs_epi32(four(x + i + 8), four(x + i + 12));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi16(lo, hi));
  }
#endif
  for (; i < n; ++i) {  // the same steps, one at a time
    const float qf = x[i] / s;
    const float a = std::fabs(qf), t = std::trunc(a);
    const float m = std::min(t + (a - t >= 0.5f ? 1.0f : 0.0f), 127.0f);
    q[i] = static_cast<int8_t>(qf < 0 ? -m : m);
  }
}

void matmul_int8(const MatmulArgs& a) {
  TFP_CHECK(a.M >= 0 && a.N >= 0 && a.K >= 0, "matmul_int8: negative size M=", a.M, " N=", a.N, " K=", a.K);
  if (a.M == 0 || a.N == 0) return;
  TFP_CHECK(a.C && a.ldc >= a.N, "matmul_int8: C null or ldc=", a.ldc, " < N=", a.N);
  TFP_CHECK(a.layout == BLayout::NK, "matmul_int8: int8 B must be (N, K) (BLayout::NK)");
  if (a.K == 0) {
    for (int i = 0; i < a.M; ++i)
      for (int n = 0; n < a.N; ++n) store(a, i, n, 0.0f);
    return;
  }
  TFP_CHECK(a.A && a.lda >= a.K, "matmul_int8: A null or lda=", a.lda, " < K=", a.K);
  TFP_CHECK(a.B8 && a.B8_scale && a.ldb >= a.K, "matmul_int8: B8/B8_scale null or ldb=", a.ldb, " < K=", a.K);
  if (a.M <= kSmallM) return gemv_int8(a);
  gemm_dequant(a);
}

}  // namespace tfp::kernels
