// matmul_int8 (fast) and ref::matmul_int8 against a double-precision sum on the
// dequantised weights, written here.
//
// Oracle: C_in = alpha·Σ_k A_ik·(q_nk·s_n) + bias_n (+ C0_in), summed in double.
// Tolerance: the fast kernel's M <= 4 path quantises each row of A to int16
//   (sa = max|A_i·| / 32767, rounding error <= sa/2 per element), so
//     |C - oracle| <= |alpha|·(max|A_i·| / 65534)·Σ_k |q_nk·s_n| + f32 rounding;
//   f32 rounding is bounded as in test_kernels_gemm.cpp: eps·(4·sqrt(K) + 8)·scale,
//   scale = |alpha|·Σ_k |A_ik·q_nk·s_n| + |bias_n| + |C0_in|.
// A dropped or doubled term is ~1/K of the scale: far above both bounds.
// Shapes: odd N and K around the 16-wide integer body, the 4-column groups, the 2048-k
// int32 flush, M = 1..4 (integer path) and M > 4 (dequantised f32 path), strides.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernels.h"
#include "nn/quantize_int8.h"

using namespace tfp::kernels;

namespace {

struct Int8Problem {
  int M, N, K;
  int64_t lda, ldb, ldc;
  float alpha = 1.0f;
  bool bias = false, accumulate = false;
  std::vector<float> A, bias_v, C0;
  tfp::nn::Int8Channels q;  // (N, K) quantised, stored with row stride ldb below
  std::vector<int8_t> B8;   // (N, ldb)
};

Int8Problem make(int M, int N, int K, bool strided, float alpha, bool bias, bool acc, uint32_t seed) {
  Int8Problem p;
  p.M = M; p.N = N; p.K = K;
  p.lda = K + (strided ? 3 : 0); p.ldb = K + (strided ? 7 : 0); p.ldc = N + (strided ? 2 : 0);
  p.alpha = alpha; p.bias = bias; p.accumulate = acc;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  p.A.resize(static_cast<size_t>(M) * p.lda);
  for (float& x : p.A) x = nd(rng);
  if (M > 0 && K > 2) p.A[1] = 40.0f;  // an outlier: the int16 scale follows max|a|
  std::vector<float> W(static_cast<size_t>(N) * K);
  for (float& x : W) x = 0.05f * nd(rng);
  if (N > 1) for (int k = 0; k < K; ++k) W[static_cast<size_t>(1) * K + k] = 0.0f;  // an all-zero channel
  p.q = tfp::nn::quantize_int8_channels(W.data(), N, K, K, 1);
  p.B8.assign(static_cast<size_t>(N) * p.ldb, int8_t(99));  // padding must not be read
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) p.B8[static_cast<size_t>(n) * p.ldb + k] = p.q.q[static_cast<size_t>(n) * K + k];
  p.bias_v.resize(static_cast<size_t>(N));
  for (float& x : p.bias_v) x = nd(rng);
  p.C0.resize(static_cast<size_t>(M) * p.ldc);
  for (float& x : p.C0) x = nd(rng);
  return p;
}

MatmulArgs args_of(const Int8Problem& p, std::vector<float>& C) {
  C = p.C0;
  MatmulArgs a;
  a.M = p.M; a.N = p.N; a.K = p.K;
  a.A = p.A.data(); a.lda = p.lda;
  a.B8 = p.B8.data(); a.B8_scale = p.q.scale.data(); a.ldb = p.ldb;
  a.layout = BLayout::NK;
  a.C = C.data(); a.ldc = p.ldc;
  a.alpha = p.alpha;
  a.bias = p.bias ? p.bias_v.data() : nullptr;
  a.accumulate = p.accumulate;
  return a;
}

void check(const Int8Problem& p, bool fast) {
  std::vector<float> C;
  const MatmulArgs a = args_of(p, C);
  if (fast) matmul_int8(a);
  else ref::matmul_int8(a);
  const double eps = std::numeric_limits<float>::epsilon();
  int bad = 0;
  for (int i = 0; i < p.M; ++i) {
    double amax = 0;
    for (int k = 0; k < p.K; ++k) amax = std::max(amax, std::fabs(double(p.A[i * p.lda + k])));
    for (int n = 0; n < p.N; ++n) {
      double sum = 0, scale = 0, wsum = 0;
      for (int k = 0; k < p.K; ++k) {
        const double w = double(p.q.q[static_cast<size_t>(n) * p.K + k]) * double(p.q.scale[n]);
        sum += double(p.A[i * p.lda + k]) * w;
        scale += std::fabs(double(p.A[i * p.lda + k]) * w);
        wsum += std::fabs(w);
      }
      const double c0 = p.C0[i * p.ldc + n];
      const double b = p.bias ? p.bias_v[n] : 0.0;
      const double want = p.alpha * sum + b + (p.accumulate ? c0 : 0.0);
      scale = std::fabs(p.alpha) * scale + std::fabs(b) + (p.accumulate ? std::fabs(c0) : 0.0) + 1e-30;
      const double quant = fast && p.M <= 4 ? std::fabs(p.alpha) * amax / 65534.0 * wsum : 0.0;
      const double tol = quant * 1.001 + eps * (4 * std::sqrt(double(p.K)) + 8) * scale;
      const double got = C[i * p.ldc + n];
      if (!(std::fabs(got - want) <= tol) && bad++ < 5)
        FAIL_CHECK("M=", p.M, " N=", p.N, " K=", p.K, (fast ? " fast" : " ref"), " C[", i, ",", n, "] = ", got,
                   ", want ", want, " (tol ", tol, ")");
    }
    for (int64_t n = p.N; n < p.ldc; ++n) CHECK(C[i * p.ldc + n] == p.C0[i * p.ldc + n]);  // padding untouched
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("kernels/int8: odd shapes, M = 1..4 (integer path) and M > 4 (dequantised), against double") {
  const int shapes[][3] = {{1, 1, 1},  {1, 5, 15},  {1, 7, 16},   {1, 9, 17},   {1, 33, 100},
                           {2, 3, 31}, {3, 4, 33},  {4, 13, 47},  {5, 6, 18},   {7, 65, 70},
                           {1, 3, 2049}, {2, 5, 4111}, {9, 70, 257}};
  uint32_t seed = 1;
  for (const auto& s : shapes)
    for (const bool fast : {true, false}) {
      check(make(s[0], s[1], s[2], false, 1.0f, false, false, seed), fast);
      check(make(s[0], s[1], s[2], true, 0.5f, true, true, seed + 100), fast);
      ++seed;
    }
}

TEST_CASE("kernels/int8: GPT-2 sized decode rows (768 -> 2304, 3072 -> 768)") {
  check(make(1, 2304, 768, false, 1.0f, true, false, 7), true);
  check(make(1, 768, 3072, false, 1.0f, true, true, 8), true);
}

TEST_CASE("kernels/int8: K = 0 gives bias (+C); a NaN in A propagates; a zero row gives bias") {
  Int8Problem p = make(2, 5, 0, false, 1.0f, true, true, 3);
  std::vector<float> C;
  matmul_int8(args_of(p, C));
  for (int i = 0; i < 2; ++i)
    for (int n = 0; n < 5; ++n) CHECK(C[i * p.ldc + n] == p.C0[i * p.ldc + n] + p.bias_v[n]);

  Int8Problem q = make(2, 6, 20, false, 1.0f, true, false, 4);
  for (int k = 0; k < 20; ++k) q.A[k] = 0.0f;  // row 0: zeros
  q.A[20 + 3] = std::nanf("");                // row 1: a NaN
  matmul_int8(args_of(q, C));
  for (int n = 0; n < 6; ++n) {
    CHECK(C[n] == q.bias_v[n]);
    CHECK(std::isnan(C[q.ldc + n]));
  }
}

TEST_CASE("kernels/int8: int8 B must be NK; null pointers are errors") {
  Int8Problem p = make(1, 4, 8, false, 1.0f, false, false, 5);
  std::vector<float> C;
  MatmulArgs a = args_of(p, C);
  a.layout = BLayout::KN;
  CHECK_THROWS(matmul_int8(a));
  a = args_of(p, C);
  a.B8_scale = nullptr;
  CHECK_THROWS(matmul_int8(a));
}

TEST_CASE("kernels/int8: every activation and weight at full scale: no int32 overflow (K = 516 .. 4111)") {
  // Constant rows quantise to |qa| = 32767 and |q| = 127 everywhere: the integer total
  // K · 32767 · 127 passes 2^31 from K = 516 on. Signs alternate in A and B alike, so
  // every term is positive.
  for (const int K : {515, 516, 768, 3072, 4111})
    for (const int M : {1, 3}) {
      Int8Problem p = make(M, 6, K, false, 1.0f, true, false, 11);
      std::vector<float> W(static_cast<size_t>(6) * K);
      for (int n = 0; n < 6; ++n)
        for (int k = 0; k < K; ++k) W[static_cast<size_t>(n) * K + k] = (k % 2 ? -0.25f : 0.25f) * float(n + 1);
      p.q = tfp::nn::quantize_int8_channels(W.data(), 6, K, K, 1);
      for (size_t x = 0; x < W.size(); ++x) p.B8[x] = p.q.q[x];
      for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) p.A[static_cast<size_t>(i) * p.lda + k] = k % 2 ? -1.5f : 1.5f;
      check(p, true);
      std::vector<float> C;
      matmul_int8(args_of(p, C));
      CHECK(C[5] == doctest::Approx(p.bias_v[5] + 1.5 * 0.25 * 6 * K).epsilon(1e-5));
    }
}
