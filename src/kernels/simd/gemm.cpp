// GEMM: C = alpha · A · op(B) + bias (+ C), f32 in, f32 accumulate.
//
// Paths, chosen by shape:
//   M <= kSmallM, layout KN   gemv_kn: stream the rows of B once; M rows of partial sums
//                             stay in L1 (decode step, M = 1); M = 1 and N <= 64 (decode
//                             attention's values): gemv_kn_narrow, the sums in registers
//   M <= kSmallM, layout NK   gemv_nk: dot products, 4 rows of B against each row of A
//                             (M = 1: row by row, from two streams, two_streams.h)
//   otherwise                 packed: Goto-style blocking
//       for jc (NC columns)  for pc (KC depth)   pack B(pc:, jc:) into NR-column panels
//         for ic (MC rows)                       pack A(ic:, pc:) into MR-row panels
//           for jr (NR)  for ir (MR)             MR x NR microkernel, accumulators in registers
//
// 16-bit B (MatmulArgs::B16): each path widens the part of B it is about to read into
// scratch (a row for gemv_nk, R row pieces for gemv_kn, the (kc, nc) block before packing)
// and runs unchanged on it, so the arithmetic, and every result bit, is that of f32 B.
//
// Packed layouts (p runs over the K block, kc = its depth):
//   B panel  (kc, NR)  panel[p*NR + j] = op(B)(pc+p, j0+j), columns past N are 0
//   A panel  (kc, MR)  panel[p*MR + i] = A(i0+i, pc+p),     rows past M are 0
// pack_b / matmul_packed keep a whole packed B for repeated calls (weights); M < MR then
// runs an M-row microkernel. A whole packed B is the K blocks one after another, each block its panels in
// column order: block pc starts at pc*Npad, its panel j0 at j0*kc (Npad = N rounded up to NR).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/error.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/simd/simd.h"
#include "kernels/two_streams.h"

namespace tfp::kernels {
namespace simd {
namespace {

// ---- tile and block sizes ------------------------------------------------------
// Register budget (16 vector registers on AVX2 and on x64 V8 for WASM SIMD128):
//   MR*NV accumulators + NV loaded B vectors + 1 broadcast A.
//   AVX2   (W=8): 6 x 16 -> 12 + 2 + 1 = 15
//   SIMD128(W=4): 4 x 8  ->  8 + 2 + 1 = 11 (6 x 8 = 15 made V8 spill; see bench/RESULTS.md)
#ifndef TFP_GEMM_MR_128
#define TFP_GEMM_MR_128 4
#endif
#ifndef TFP_GEMM_KC
#define TFP_GEMM_KC 256
#endif
#ifndef TFP_GEMM_NC
#define TFP_GEMM_NC 1024
#endif
template <class A>
struct Cfg {
  static constexpr int W = fbatch<A>::size;
  static constexpr int NV = 2;
  static constexpr int NR = NV * W;
  static constexpr int MR = W == 4 ? TFP_GEMM_MR_128 : 6;
  static constexpr int KC = TFP_GEMM_KC;       // B panel kc*NR*4 bytes: 8 KiB (W=4), 16 KiB (W=8): L1
  static constexpr int MC = MR * 24;    // A block MC*KC*4 bytes: 96-144 KiB: L2
  static constexpr int NC = TFP_GEMM_NC;      // B block KC*NC*4 bytes: 1 MiB: L2/L3
};
constexpr int kSmallM = 4;
constexpr int kNarrowN = 64;  // gemv_kn_narrow: M = 1, at most this many columns

inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// n 16-bit floats of B from src -> dst (f32).
inline void widen(const MatmulArgs& a, const uint16_t* src, float* dst, int64_t n) {
  if (a.B16_bf16) bf16_to_f32(src, dst, static_cast<size_t>(n));
  else f16_to_f32(src, dst, static_cast<size_t>(n));
}

// What happens to a tile when its accumulators leave registers.
struct Epilogue {
  float alpha;
  const float* bias;  // (N) slice starting at the tile's first column; null after the first K block
  bool add_c;         // C += result (accumulate, or any K block after the first)
};

// ---- microkernel: (MR, kc) · (kc, NR) -> C tile (m <= MR valid rows, n <= NR valid cols) --
template <class A, int MR, int NV>
inline void microkernel(int kc, const float* __restrict ap, const float* __restrict bp,
                        float* __restrict c, int64_t ldc, int m, int n, const Epilogue& e) {
  using B = fbatch<A>;
  constexpr int W = B::size, NR = NV * W;
  B acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) acc[i][v] = B(0.0f);
  // invariant: acc[i][v] = sum over p' < p of ap[p'*MR + i] * bp[p'*NR + v*W .. +W]
  for (int p = 0; p < kc; ++p) {
    B b[NV];
    for (int v = 0; v < NV; ++v) b[v] = B::load_unaligned(bp + v * W);
    for (int i = 0; i < MR; ++i) {
      const B a(ap[i]);
      for (int v = 0; v < NV; ++v) acc[i][v] = xsimd::fma(a, b[v], acc[i][v]);
    }
    ap += MR;
    bp += NR;
  }
  const B alpha(e.alpha);
  if (m == MR && n == NR) {
    for (int i = 0; i < MR; ++i)
      for (int v = 0; v < NV; ++v) {
        float* cp = c + i * ldc + v * W;
        B r = acc[i][v] * alpha;
        if (e.bias) r += B::load_unaligned(e.bias + v * W);
        if (e.add_c) r += B::load_unaligned(cp);
        r.store_unaligned(cp);
      }
    return;
  }
  // edge tile: spill to a buffer, write only the valid part (C may be smaller than a tile)
  alignas(64) float t[MR * NR];
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) (acc[i][v] * alpha).store_aligned(t + i * NR + v * W);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const float r = t[i * NR + j] + (e.bias ? e.bias[j] : 0.0f);
      float& cr = c[i * ldc + j];
      cr = e.add_c ? cr + r : r;
    }
}

// ---- packing -----------------------------------------------------------------------
// Rows r0, r0 + ld, r0 + 2 ld, r0 + 3 ld (kc long) -> out[p * stride + r]: 4 x 4 blocks
// transposed in registers (4-lane builds), the tail one by one.
template <class A>
inline void pack_4_rows(const float* r0, int64_t ld, int kc, float* out, int64_t stride) {
  using B = fbatch<A>;
  using D = xsimd::batch<double, A>;
  static_assert(B::size == 4, "4 x 4 blocks: 4-lane builds only");
  int p = 0;
  for (; p + 4 <= kc; p += 4) {
    const B a = B::load_unaligned(r0 + p), b = B::load_unaligned(r0 + ld + p);
    const B c = B::load_unaligned(r0 + 2 * ld + p), d = B::load_unaligned(r0 + 3 * ld + p);
    // (a0 b0 a1 b1) (a2 b2 a3 b3) (c0 d0 c1 d1) (c2 d2 c3 d3), then pairs of pairs
    const D ab01 = xsimd::bitwise_cast<D>(xsimd::zip_lo(a, b)), ab23 = xsimd::bitwise_cast<D>(xsimd::zip_hi(a, b));
    const D cd01 = xsimd::bitwise_cast<D>(xsimd::zip_lo(c, d)), cd23 = xsimd::bitwise_cast<D>(xsimd::zip_hi(c, d));
    xsimd::bitwise_cast<B>(xsimd::zip_lo(ab01, cd01)).store_unaligned(out + (p + 0) * stride);
    xsimd::bitwise_cast<B>(xsimd::zip_hi(ab01, cd01)).store_unaligned(out + (p + 1) * stride);
    xsimd::bitwise_cast<B>(xsimd::zip_lo(ab23, cd23)).store_unaligned(out + (p + 2) * stride);
    xsimd::bitwise_cast<B>(xsimd::zip_hi(ab23, cd23)).store_unaligned(out + (p + 3) * stride);
  }
  for (; p < kc; ++p)
    for (int r = 0; r < 4; ++r) out[p * stride + r] = r0[r * ld + p];
}

// B block (kc, nc) at (pc, jc) of op(B) -> ceil(nc/NR) panels of (kc, NR).
template <class A, int NV>
void pack_b_block(const float* Bm, int64_t ldb, BLayout layout, int pc, int kc, int jc, int nc,
                  float* out) {
  using B = fbatch<A>;
  constexpr int W = B::size, NR = NV * W;
  const int64_t panel = static_cast<int64_t>(kc) * NR;
  if (layout == BLayout::KN) {
    // Row by row: B is read along its rows (prefetch-friendly); walking down a column
    // panel instead strides ldb*4 bytes, a new page (TLB miss) per row once N >= 1024.
    for (int p = 0; p < kc; ++p) {
      const float* src = Bm + static_cast<int64_t>(pc + p) * ldb + jc;
      float* dst = out + p * NR;
      int j0 = 0;
      for (; j0 + NR <= nc; j0 += NR, dst += panel)
        for (int v = 0; v < NV; ++v)
          B::load_unaligned(src + j0 + v * W).store_unaligned(dst + v * W);
      if (j0 < nc)
        for (int j = 0; j < NR; ++j) dst[j] = j0 + j < nc ? src[j0 + j] : 0.0f;
    }
    return;
  }
  for (int j0 = 0; j0 < nc; j0 += NR, out += panel) {
    const int n = std::min(NR, nc - j0);
    // NK: panel column j is row jc+j0+j of B, read along its length
    int j = 0;
    if constexpr (W == 4) {  // four rows at a time (pack_4_rows)
      for (; j + 4 <= n; j += 4)
        pack_4_rows<A>(Bm + static_cast<int64_t>(jc + j0 + j) * ldb + pc, ldb, kc, out + j, NR);
    }
    for (; j < n; ++j) {
      const float* src = Bm + static_cast<int64_t>(jc + j0 + j) * ldb + pc;
      for (int p = 0; p < kc; ++p) out[p * NR + j] = src[p];
    }
    for (int j = n; j < NR; ++j)
      for (int p = 0; p < kc; ++p) out[p * NR + j] = 0.0f;
  }
}

// A block (mc, kc) at (ic, pc) -> ceil(mc/MR) panels of (kc, MR).
template <class A, int MR>
void pack_a_block(const float* Am, int64_t lda, int ic, int mc, int pc, int kc, float* out) {
  for (int i0 = 0; i0 < mc; i0 += MR, out += static_cast<int64_t>(kc) * MR) {
    const int m = std::min(MR, mc - i0);
    if constexpr (MR == 4 && fbatch<A>::size == 4) {
      if (m == 4) {
        pack_4_rows<A>(Am + static_cast<int64_t>(ic + i0) * lda + pc, lda, kc, out, MR);
        continue;
      }
    }
    for (int i = 0; i < m; ++i) {
      const float* src = Am + static_cast<int64_t>(ic + i0 + i) * lda + pc;
      for (int p = 0; p < kc; ++p) out[p * MR + i] = src[p];
    }
    for (int i = m; i < MR; ++i)
      for (int p = 0; p < kc; ++p) out[p * MR + i] = 0.0f;
  }
}

// ---- packed driver -------------------------------------------------------------------
// prepacked: a whole packed B (layout above) or null to pack block by block into scratch.
// MR is a parameter so a pre-packed B with M < Cfg::MR runs an M-row microkernel.
template <class A, int MR>
void gemm_packed(const MatmulArgs& a, const float* prepacked) {
  using C = Cfg<A>;
  constexpr int NR = C::NR, MC = MR * 24;
  const int64_t npad = round_up(a.N, NR);
  float* bbuf = prepacked ? nullptr : scratch(0, static_cast<size_t>(C::KC) * C::NC);
  float* abuf = scratch(1, static_cast<size_t>(C::KC) * MC);
  for (int jc = 0; jc < a.N; jc += C::NC) {
    const int nc = std::min(C::NC, a.N - jc);
    for (int pc = 0; pc < a.K; pc += C::KC) {
      const int kc = std::min(C::KC, a.K - pc);
      const float* bp;
      if (prepacked) {
        bp = prepacked + pc * npad + static_cast<int64_t>(jc) * kc;
      } else if (a.B16) {  // widen the (kc, nc) block of op(B), then pack it as f32
        float* wide = scratch(3, static_cast<size_t>(C::KC) * C::NC);
        const bool kn = a.layout == BLayout::KN;
        const int rows = kn ? kc : nc, cols = kn ? nc : kc;
        for (int r = 0; r < rows; ++r)
          widen(a, a.B16 + (kn ? static_cast<int64_t>(pc + r) * a.ldb + jc : static_cast<int64_t>(jc + r) * a.ldb + pc),
                wide + static_cast<int64_t>(r) * cols, cols);
        pack_b_block<A, C::NV>(wide, cols, a.layout, 0, kc, 0, nc, bbuf);
        bp = bbuf;
      } else {
        pack_b_block<A, C::NV>(a.B, a.ldb, a.layout, pc, kc, jc, nc, bbuf);
        bp = bbuf;
      }
      const bool first = pc == 0;
      for (int ic = 0; ic < a.M; ic += MC) {
        const int mc = std::min(MC, a.M - ic);
        pack_a_block<A, MR>(a.A, a.lda, ic, mc, pc, kc, abuf);
        for (int jr = 0; jr < nc; jr += NR) {
          const int n = std::min(NR, nc - jr);
          const Epilogue e{a.alpha, first && a.bias ? a.bias + jc + jr : nullptr,
                           !first || a.accumulate};
          const float* bpanel = bp + static_cast<int64_t>(jr) * kc;
          for (int ir = 0; ir < mc; ir += MR) {
            const int m = std::min(MR, mc - ir);
            microkernel<A, MR, C::NV>(kc, abuf + static_cast<int64_t>(ir) * kc, bpanel,
                                      a.C + (ic + ir) * a.ldc + jc + jr, a.ldc, m, n, e);
          }
        }
      }
    }
  }
}

// M < MR rows on a pre-packed B: an M-row microkernel (no zero rows computed).
template <class A, int R = Cfg<A>::MR - 1>
void gemm_prepacked_small(const MatmulArgs& a, const float* panels) {
  if constexpr (R >= 1) {
    if (a.M == R) return gemm_packed<A, R>(a, panels);
    return gemm_prepacked_small<A, R - 1>(a, panels);
  }
}

// ---- small M ----------------------------------------------------------------------------
// C row = alpha*acc + bias (+ C row), n floats.
template <class A>
void write_row(float* c, const float* acc, const float* bias, int n, float alpha, bool add_c) {
  using B = fbatch<A>;
  constexpr int W = B::size;
  const B va(alpha);
  int j = 0;
  for (; j + W <= n; j += W) {
    B r = B::load_unaligned(acc + j) * va;
    if (bias) r += B::load_unaligned(bias + j);
    if (add_c) r += B::load_unaligned(c + j);
    r.store_unaligned(c + j);
  }
  for (; j < n; ++j) {
    const float r = acc[j] * alpha + (bias ? bias[j] : 0.0f);
    c[j] = add_c ? c[j] + r : r;
  }
}

// y[0:n] += sum_r a[r] * b[r][0:n], R rows of B at once (one pass over y per R rows).
template <class A, int R>
inline void axpy_rows(float* __restrict y, int n, const float* a, const float* const* b) {
  using B = fbatch<A>;
  constexpr int W = B::size;
  B av[R];
  for (int r = 0; r < R; ++r) av[r] = B(a[r]);
  int j = 0;
  for (; j + W <= n; j += W) {
    B s = B::load_unaligned(y + j);
    for (int r = 0; r < R; ++r) s = xsimd::fma(av[r], B::load_unaligned(b[r] + j), s);
    s.store_unaligned(y + j);
  }
  for (; j < n; ++j) {
    float s = y[j];
    for (int r = 0; r < R; ++r) s += a[r] * b[r][j];
    y[j] = s;
  }
}

template <class A>
void gemv_kn(const MatmulArgs& a) {
  constexpr int R = 8;     // rows of B per pass over the partial sums: 8 streams keep DRAM busy
  constexpr int JB = 512;  // column block: R B-row pieces + M partial-sum rows stay in L1
  float* acc = scratch(2, static_cast<size_t>(a.M) * a.N);
  std::memset(acc, 0, sizeof(float) * static_cast<size_t>(a.M) * a.N);
  for (int p = 0; p < a.K; p += R) {
    const int pk = std::min(R, a.K - p);
    const float* brow[R];
    for (int r = 0; r < pk; ++r) brow[r] = a.B16 ? nullptr : a.B + static_cast<int64_t>(p + r) * a.ldb;
    for (int jb = 0; jb < a.N; jb += JB) {
      const int jn = std::min(JB, a.N - jb);
      const float* bj[R];
      if (a.B16) {  // the pk row pieces, widened (R x JB floats: L1)
        float* wide = scratch(3, static_cast<size_t>(R) * JB);
        for (int r = 0; r < pk; ++r) {
          widen(a, a.B16 + static_cast<int64_t>(p + r) * a.ldb + jb, wide + r * JB, jn);
          bj[r] = wide + r * JB;
        }
      } else {
        for (int r = 0; r < pk; ++r) bj[r] = brow[r] + jb;
      }
      for (int i = 0; i < a.M; ++i) {
        const float* ai = a.A + static_cast<int64_t>(i) * a.lda + p;
        float* yi = acc + static_cast<int64_t>(i) * a.N + jb;
        if (pk == R) {
          axpy_rows<A, R>(yi, jn, ai, bj);
        } else {
          for (int r = 0; r < pk; ++r) axpy_rows<A, 1>(yi, jn, ai + r, bj + r);
        }
      }
    }
  }
  for (int i = 0; i < a.M; ++i)
    write_row<A>(a.C + i * a.ldc, acc + static_cast<int64_t>(i) * a.N, a.bias, a.N, a.alpha,
                 a.accumulate);
}

// gemv_kn for one row of A and at most 64 columns (decode attention: a head's probabilities
// times its values): the partial sums stay in registers, 8 vectors of columns at a time, and
// B is read once, row after row, per group. gemv_kn keeps them in memory and passes over
// them every 8 rows: GPT-2-small's decode step at context 128 took 4 % longer that way.
// Each y[j] is summed over k in gemv_kn's order, so the bits are gemv_kn's.
template <class A>
void gemv_kn_narrow(const MatmulArgs& a) {
  using B = fbatch<A>;
  constexpr int W = B::size, V = 8;
  alignas(64) float acc[kNarrowN];
  const auto columns = [&](int j0, auto nv) {  // nv vectors of columns from j0
    constexpr int NV = decltype(nv)::value;
    B s[NV];
    for (int v = 0; v < NV; ++v) s[v] = B(0.0f);
    for (int k = 0; k < a.K; ++k) {
      const B av(a.A[k]);
      const float* bk = a.B + static_cast<int64_t>(k) * a.ldb + j0;
      for (int v = 0; v < NV; ++v) s[v] = xsimd::fma(av, B::load_unaligned(bk + v * W), s[v]);
    }
    for (int v = 0; v < NV; ++v) s[v].store_aligned(acc + j0 + v * W);
  };
  const int nv = a.N / W * W;
  int j = 0;
  for (; j + V * W <= nv; j += V * W) columns(j, std::integral_constant<int, V>{});
  for (; j < nv; j += W) columns(j, std::integral_constant<int, 1>{});
  write_row<A>(a.C, acc, a.bias, nv, a.alpha, a.accumulate);
  if (nv < a.N) gemv_kn<A>(column_block(a, nv, a.N));  // the last N % W columns: gemv_kn's own scalar code
}

// Dot products of x with R rows y[r], K long.
template <class A, int R>
inline void dot_rows(const float* __restrict x, const float* const* y, int K, float* out) {
  using B = fbatch<A>;
  constexpr int W = B::size;
  B s[R];
  for (int r = 0; r < R; ++r) s[r] = B(0.0f);
  int k = 0;
  for (; k + W <= K; k += W) {
    const B xv = B::load_unaligned(x + k);
    for (int r = 0; r < R; ++r) s[r] = xsimd::fma(xv, B::load_unaligned(y[r] + k), s[r]);
  }
  for (int r = 0; r < R; ++r) {
    float t = xsimd::hadd(s[r]);
    for (int kk = k; kk < K; ++kk) t += x[kk] * y[r][kk];
    out[r] = t;
  }
}

// dot_rows<A, 1> on one row: the arithmetic gemv_nk uses for M > 1 (16-bit B matches it).
template <class A>
inline float dot_rows_one(const float* x, const float* y, int K) {
  float d;
  dot_rows<A, 1>(x, &y, K, &d);
  return d;
}

// One dot product x·y, K long, U vector partial sums (independent add chains).
template <class A, int U>
inline float dot_row(const float* __restrict x, const float* __restrict y, int K) {
  using B = fbatch<A>;
  constexpr int W = B::size;
  B s[U];
  for (int u = 0; u < U; ++u) s[u] = B(0.0f);
  int k = 0;
  for (; k + U * W <= K; k += U * W)
    for (int u = 0; u < U; ++u) s[u] = xsimd::fma(B::load_unaligned(x + k + u * W), B::load_unaligned(y + k + u * W), s[u]);
  for (; k + W <= K; k += W) s[0] = xsimd::fma(B::load_unaligned(x + k), B::load_unaligned(y + k), s[0]);
  for (int u = 1; u < U; ++u) s[0] += s[u];
  float t = xsimd::hadd(s[0]);
  for (; k < K; ++k) t += x[k] * y[k];
  return t;
}

template <class A>
void gemv_nk(const MatmulArgs& a) {
  if (a.M == 1 || a.B16) {  // B row by row, each row read sequentially, two streams (two_streams.h)
    float* wide = a.B16 ? scratch(3, static_cast<size_t>(a.K)) : nullptr;
    two_streams(a.N, [&](int j) {
      const float* bj = wide;
      if (wide) widen(a, a.B16 + static_cast<int64_t>(j) * a.ldb, wide, a.K);
      else bj = a.B + static_cast<int64_t>(j) * a.ldb;
      for (int i = 0; i < a.M; ++i) {
        const float* ai = a.A + static_cast<int64_t>(i) * a.lda;
        const float v = a.alpha * (a.M == 1 ? dot_row<A, 4>(ai, bj, a.K) : dot_rows_one<A>(ai, bj, a.K)) +
                        (a.bias ? a.bias[j] : 0.0f);
        float& c = a.C[static_cast<int64_t>(i) * a.ldc + j];
        c = a.accumulate ? c + v : v;
      }
    });
    return;
  }
  for (int j = 0; j < a.N; j += 4) {
    const int jn = std::min(4, a.N - j);
    const float* brow[4];
    for (int r = 0; r < jn; ++r) brow[r] = a.B + static_cast<int64_t>(j + r) * a.ldb;
    for (int i = 0; i < a.M; ++i) {
      const float* ai = a.A + static_cast<int64_t>(i) * a.lda;
      float d[4];
      if (jn == 4) {
        dot_rows<A, 4>(ai, brow, a.K, d);
      } else {
        for (int r = 0; r < jn; ++r) dot_rows<A, 1>(ai, brow + r, a.K, d + r);
      }
      float* c = a.C + i * a.ldc + j;
      for (int r = 0; r < jn; ++r) {
        const float v = a.alpha * d[r] + (a.bias ? a.bias[j + r] : 0.0f);
        c[r] = a.accumulate ? c[r] + v : v;
      }
    }
  }
}

// K = 0: the product is empty, C = bias (+ C).
void gemm_k0(const MatmulArgs& a) {
  for (int i = 0; i < a.M; ++i)
    for (int j = 0; j < a.N; ++j) {
      const float v = a.bias ? a.bias[j] : 0.0f;
      float& c = a.C[i * a.ldc + j];
      c = a.accumulate ? c + v : v;
    }
}

void check_args(const MatmulArgs& a, const char* op) {
  TFP_CHECK(a.M >= 0 && a.N >= 0 && a.K >= 0, op, ": negative size M=", a.M, " N=", a.N,
            " K=", a.K);
  if (a.M == 0 || a.N == 0) return;
  TFP_CHECK(a.C && a.ldc >= a.N, op, ": C null or ldc=", a.ldc, " < N=", a.N);
  if (a.K == 0) return;
  const int64_t brow = a.layout == BLayout::KN ? a.N : a.K;
  TFP_CHECK(a.A && a.lda >= a.K, op, ": A null or lda=", a.lda, " < K=", a.K);
  TFP_CHECK((a.B || a.B16) && a.ldb >= brow, op, ": B null or ldb=", a.ldb, " < ", brow);
}

// ---- threads (kernels/parallel.h) ------------------------------------------------------
// C in column blocks (each task reads and packs only its columns of B) or, when C is
// narrow and tall, row blocks (each task packs all of B). Block edges are multiples of NR
// columns (a multiple of W and of gemv_nk's 4) or MR rows, and every block keeps the path
// the whole call takes (a row block has >= 2 MR groups, so > kSmallM rows): each tile,
// vector body and tail is the one the 1-thread call computes, so the results are its bits.
MatmulArgs row_block(const MatmulArgs& a, int i0, int i1) {
  MatmulArgs s = a;
  s.M = i1 - i0;
  s.A = a.A + static_cast<int64_t>(i0) * a.lda;
  s.C = a.C + static_cast<int64_t>(i0) * a.ldc;
  return s;
}

// Runs `run` (the 1-thread matmul) on blocks of a over the pool; false if a stays whole.
template <class F>
bool split_for_threads(const MatmulArgs& a, F&& run) {
  using C = Cfg<Arch>;
  if (!parallel_worth(static_cast<int64_t>(a.M) * a.N * a.K)) return false;
  const int t = threads();
  if (parallel_column_blocks(a.N, static_cast<int64_t>(a.M) * a.N * a.K, C::NR,
                             [&](int j0, int j1) { run(column_block(a, j0, j1)); }))
    return true;
  const int groups = (a.M + C::MR - 1) / C::MR;
  if (a.M > kSmallM && groups >= 2 * t) {  // >= 2 MR groups a block
    const int n = std::min(groups / 2, 4 * t);
    parallel_for(n, [&](int i) {
      const int i0 = static_cast<int>(static_cast<int64_t>(groups) * i / n) * C::MR;
      const int i1 = std::min(a.M, static_cast<int>(static_cast<int64_t>(groups) * (i + 1) / n) * C::MR);
      run(row_block(a, i0, i1));
    });
    return true;
  }
  return false;
}

}  // namespace
}  // namespace simd

// ---- public entry points ------------------------------------------------------------
MatmulArgs column_block(const MatmulArgs& a, int j0, int j1) {
  MatmulArgs s = a;
  s.N = j1 - j0;
  const int64_t boff = a.layout == BLayout::KN ? j0 : static_cast<int64_t>(j0) * a.ldb;
  if (a.B) s.B = a.B + boff;
  if (a.B16) s.B16 = a.B16 + boff;
  if (a.B8) s.B8 = a.B8 + boff;
  if (a.B8_scale) s.B8_scale = a.B8_scale + j0;
  s.C = a.C + j0;
  if (a.bias) s.bias = a.bias + j0;
  return s;
}

void matmul(const MatmulArgs& a) {
  simd::check_args(a, "matmul");
  if (a.M == 0 || a.N == 0) return;
  if (a.K == 0) return simd::gemm_k0(a);
  if (simd::split_for_threads(a, [](const MatmulArgs& block) { matmul(block); })) return;
  if (a.M <= simd::kSmallM) {
    if (a.layout == BLayout::KN && a.M == 1 && a.N <= simd::kNarrowN && !a.B16)
      return simd::gemv_kn_narrow<simd::Arch>(a);
    if (a.layout == BLayout::KN) return simd::gemv_kn<simd::Arch>(a);
    return simd::gemv_nk<simd::Arch>(a);
  }
  simd::gemm_packed<simd::Arch, simd::Cfg<simd::Arch>::MR>(a, nullptr);
}

void transpose(const float* src, int64_t rows, int64_t cols, float* dst) {
  constexpr int64_t kTile = 64;  // a tile's source rows and destination rows stay in cache
  for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
    const int64_t cn = std::min(kTile, cols - c0);
    int64_t r = 0;
    if constexpr (simd::fbatch<simd::Arch>::size == 4) {  // dst[c][r..r+3] from 4 source rows at once
      for (; r + 4 <= rows; r += 4)
        simd::pack_4_rows<simd::Arch>(src + r * cols + c0, cols, static_cast<int>(cn), dst + c0 * rows + r, rows);
    }
    for (; r < rows; ++r)
      for (int64_t c = c0; c < c0 + cn; ++c) dst[c * rows + r] = src[r * cols + c];
  }
}

PackedB pack_b(const float* B, int64_t ldb, int N, int K, BLayout layout) {
  using Cfg = simd::Cfg<simd::Arch>;
  TFP_CHECK(N >= 0 && K >= 0, "pack_b: negative size N=", N, " K=", K);
  const int64_t brow = layout == BLayout::KN ? N : K;
  TFP_CHECK(N == 0 || K == 0 || (B && ldb >= brow), "pack_b: B null or ldb=", ldb, " < ", brow);
  PackedB p;
  p.N = N;
  p.K = K;
  p.nr = Cfg::NR;
  const int64_t npad = simd::round_up(N, Cfg::NR);
  p.panels.resize(static_cast<size_t>(K * npad));
  if (N == 0) return p;
  for (int pc = 0; pc < K; pc += Cfg::KC) {
    const int kc = std::min(Cfg::KC, K - pc);
    simd::pack_b_block<simd::Arch, Cfg::NV>(B, ldb, layout, pc, kc, 0, N,
                                            p.panels.data() + pc * npad);
  }
  return p;
}

void matmul_packed(const MatmulArgs& args, const PackedB& b) {
  using Cfg = simd::Cfg<simd::Arch>;
  TFP_CHECK(args.N == b.N && args.K == b.K, "matmul_packed: args N=", args.N, " K=", args.K,
            " but B was packed as N=", b.N, " K=", b.K);
  TFP_CHECK(b.nr == Cfg::NR && b.panels.size() == static_cast<size_t>(
                b.K * simd::round_up(b.N, Cfg::NR)),
            "matmul_packed: B was not packed by pack_b of this build");
  MatmulArgs a = args;  // B is not read: satisfy the stride check with a B-shaped stride
  a.B = b.panels.data();
  a.ldb = a.layout == BLayout::KN ? a.N : a.K;
  simd::check_args(a, "matmul_packed");
  if (a.M == 0 || a.N == 0) return;
  if (a.K == 0) return simd::gemm_k0(a);
  if (a.M < Cfg::MR) return simd::gemm_prepacked_small<simd::Arch>(a, b.panels.data());
  simd::gemm_packed<simd::Arch, Cfg::MR>(a, b.panels.data());
}

}  // namespace tfp::kernels
