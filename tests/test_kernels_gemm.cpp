// matmul (fast xsimd, pre-packed B, and ref::) against a double-precision reference written here.
//
// Oracle: C_ij = alpha·Σ_p A_ip·op(B)_pj + bias_j (+ C0_ij), summed in double.
// Metric: normalised error  e_ij = |C_ij - Cd_ij| / s_ij,
//         s_ij = |alpha|·Σ_p |A_ip·op(B)_pj| + |bias_j| + |C0_ij| + tiny
//   (the scale a float dot product's rounding error is proportional to).
// Tolerance: e <= eps_f32·(4·sqrt(K) + 8). Rounding errors of a length-K sum grow like
//   sqrt(K)·eps for the random-sign inputs used here (the worst case is K·eps, never seen
//   with blocked summation); +8 covers the alpha, bias and C0 roundings. A missing,
//   doubled or misplaced term gives e ~ 1/K or more, far above the tolerance.
// Shapes cross every blocking edge of the fast kernel: vector width (4 / 8), tile sizes
// (MR 4 or 6, NR 8 or 16), the small-M path (M <= 4), KC = 256, MC = 96/144, NC = 1024.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/error.h"
#include "kernels/kernels.h"

using namespace tfp::kernels;

namespace {

struct Case {
  int M, N, K;
};

struct Problem {
  int M, N, K;
  BLayout layout;
  int64_t lda, ldb, ldc;
  float alpha = 1.0f;
  bool bias = false, accumulate = false;
  std::vector<float> A, B, bias_v, C0;  // C0: C before the call (padded by ldc)
};

constexpr float kSentinel = 12345.0f;  // fills the ldc padding; must survive the call

Problem make_problem(const Case& c, BLayout layout, bool strided, float alpha, bool bias,
                     bool accumulate, uint32_t seed) {
  Problem p;
  p.M = c.M; p.N = c.N; p.K = c.K; p.layout = layout;
  p.lda = c.K; p.ldb = layout == BLayout::KN ? c.N : c.K; p.ldc = c.N;
  if (strided) { p.lda += 3; p.ldb += 5; p.ldc += 2; }
  p.alpha = alpha; p.bias = bias; p.accumulate = accumulate;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int64_t brows = layout == BLayout::KN ? c.K : c.N;
  p.A.resize(static_cast<size_t>(std::max<int64_t>(c.M * p.lda, 1)));
  p.B.resize(static_cast<size_t>(std::max<int64_t>(brows * p.ldb, 1)));
  for (auto& v : p.A) v = u(rng);
  for (auto& v : p.B) v = u(rng);
  p.bias_v.resize(static_cast<size_t>(std::max(c.N, 1)));
  for (auto& v : p.bias_v) v = u(rng);
  p.C0.assign(static_cast<size_t>(std::max<int64_t>(c.M * p.ldc, 1)), kSentinel);
  if (accumulate)
    for (int i = 0; i < c.M; ++i)
      for (int j = 0; j < c.N; ++j) p.C0[i * p.ldc + j] = u(rng);
  else  // C's old content must be ignored, even NaN
    for (int i = 0; i < c.M; ++i)
      for (int j = 0; j < c.N; ++j) p.C0[i * p.ldc + j] = std::numeric_limits<float>::quiet_NaN();
  return p;
}

MatmulArgs args_of(const Problem& p, float* C) {
  MatmulArgs a;
  a.M = p.M; a.N = p.N; a.K = p.K;
  a.A = p.A.data(); a.lda = p.lda;
  a.B = p.B.data(); a.ldb = p.ldb;
  a.C = C; a.ldc = p.ldc;
  a.layout = p.layout;
  a.bias = p.bias ? p.bias_v.data() : nullptr;
  a.alpha = p.alpha;
  a.accumulate = p.accumulate;
  return a;
}

double b_at(const Problem& p, int k, int j) {
  return p.layout == BLayout::KN ? p.B[k * p.ldb + j] : p.B[j * p.ldb + k];
}

// Max normalised error of C against the double oracle; also checks the ldc padding.
double max_err(const Problem& p, const std::vector<float>& C) {
  double worst = 0;
  for (int i = 0; i < p.M; ++i) {
    for (int j = 0; j < p.N; ++j) {
      double s = 0, mag = 0;
      for (int k = 0; k < p.K; ++k) {
        const double t = static_cast<double>(p.A[i * p.lda + k]) * b_at(p, k, j);
        s += t;
        mag += std::fabs(t);
      }
      double want = p.alpha * s, scale = std::fabs(p.alpha) * mag + 1e-30;
      if (p.bias) { want += p.bias_v[j]; scale += std::fabs(p.bias_v[j]); }
      if (p.accumulate) { want += p.C0[i * p.ldc + j]; scale += std::fabs(p.C0[i * p.ldc + j]); }
      const double got = C[i * p.ldc + j];
      const double e = std::isfinite(got) ? std::fabs(got - want) / scale : 1e30;
      worst = std::max(worst, e);
    }
    for (int64_t j = p.N; j < p.ldc; ++j)
      if (C[i * p.ldc + j] != kSentinel) return 1e30;  // wrote outside the row
  }
  return worst;
}

double tolerance(int K) {
  return std::numeric_limits<float>::epsilon() * (4.0 * std::sqrt(static_cast<double>(K)) + 8.0);
}

const Case kCases[] = {
    {1, 1, 1},   {1, 7, 3},    {2, 3, 1},    {3, 5, 4},     {4, 17, 9},   {5, 17, 9},
    {6, 16, 8},  {7, 15, 33},  {8, 8, 8},    {12, 32, 16},  {13, 31, 257}, {1, 1030, 20},
    {5, 1030, 20}, {150, 20, 10}, {1, 768, 64}, {4, 33, 300}, {64, 64, 64}, {9, 24, 513},
    {17, 9, 1},  {1, 1, 600},  {25, 1, 7},   {3, 100, 1},
    {1, 13, 35}, {1, 9, 45},   {1, 40, 97},  {2, 13, 35},  // M = 1 paths: K past the 8-row / 32-float unrolls
};

// B stored as f16 / bf16 (MatmulArgs::B16) gives, bit for bit, what matmul gives on the
// same values widened to f32: every path widens the piece it reads and runs unchanged.
void check_16bit_b(const Problem& p) {
  for (const bool bf16 : {false, true}) {
    CAPTURE(bf16);
    std::vector<uint16_t> b16(p.B.size());
    std::vector<float> widened(p.B.size());
    for (size_t i = 0; i < p.B.size(); ++i) b16[i] = bf16 ? f32_to_bf16_one(p.B[i]) : f32_to_f16_one(p.B[i]);
    if (bf16) bf16_to_f32(b16.data(), widened.data(), b16.size());
    else f16_to_f32(b16.data(), widened.data(), b16.size());
    std::vector<float> want = p.C0, got = p.C0;
    MatmulArgs a = args_of(p, want.data());
    a.B = widened.data();
    matmul(a);
    a.C = got.data();
    a.B = nullptr;
    a.B16 = b16.data();
    a.B16_bf16 = bf16;
    matmul(a);
    CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
  }
}

void run_case(const Case& c, BLayout layout, bool strided, float alpha, bool bias, bool acc,
              uint32_t seed) {
  const Problem p = make_problem(c, layout, strided, alpha, bias, acc, seed);
  CAPTURE(c.M); CAPTURE(c.N); CAPTURE(c.K);
  CAPTURE(static_cast<int>(layout)); CAPTURE(strided); CAPTURE(alpha); CAPTURE(bias); CAPTURE(acc);
  std::vector<float> fast = p.C0, slow = p.C0, packed = p.C0;
  matmul(args_of(p, fast.data()));
  ref::matmul(args_of(p, slow.data()));
  const PackedB pb = pack_b(p.B.data(), p.ldb, c.N, c.K, layout);
  matmul_packed(args_of(p, packed.data()), pb);
  const double tol = tolerance(c.K);
  CHECK(max_err(p, fast) <= tol);
  CHECK(max_err(p, slow) <= tol);
  CHECK(max_err(p, packed) <= tol);
  // fast vs ref: both within tol of the oracle, so within 2·tol of each other
  double d = 0;
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j)
      d = std::max(d, static_cast<double>(std::fabs(fast[i * p.ldc + j] - slow[i * p.ldc + j])));
  CHECK(d <= 2 * tol * (c.K + 2));  // elements are at most K+2 in magnitude here
  check_16bit_b(p);
}

}  // namespace

TEST_CASE("kernels/gemm: contiguous, both layouts, against double") {
  uint32_t seed = 1;
  for (const Case& c : kCases)
    for (BLayout l : {BLayout::KN, BLayout::NK}) run_case(c, l, false, 1.0f, false, false, seed++);
}

TEST_CASE("kernels/gemm: strided lda/ldb/ldc, alpha, bias, accumulate") {
  uint32_t seed = 100;
  for (const Case& c : kCases)
    for (BLayout l : {BLayout::KN, BLayout::NK}) {
      run_case(c, l, true, 0.5f, true, false, seed++);
      run_case(c, l, true, -1.25f, false, true, seed++);
      run_case(c, l, true, 1.0f, true, true, seed++);
    }
}

TEST_CASE("kernels/gemm: GPT-2 sized shapes (one of each path)") {
  // M=1 (decode step, small-M path) and M=40 (packed path) at C=768, 4C=3072.
  run_case({1, 3072, 768}, BLayout::KN, false, 1.0f, true, false, 7);
  run_case({1, 768, 768}, BLayout::NK, false, 1.0f, true, false, 8);
  run_case({40, 3072, 96}, BLayout::KN, false, 1.0f, true, false, 9);
  run_case({40, 96, 768}, BLayout::NK, false, 1.0f, true, true, 10);
  // Several K and N blocks (KC 256, NC 1024): the 16-bit path widens each block at its offset.
  run_case({9, 1100, 300}, BLayout::KN, true, 1.0f, true, false, 11);
  run_case({9, 1100, 300}, BLayout::NK, true, 1.0f, true, true, 12);
}

TEST_CASE("kernels/gemm: K = 0 gives bias (+C); M or N = 0 touches nothing") {
  // Empty inner product: C = alpha·0 + bias (+ C0). Derived by hand: bias = {1, 2}.
  const float bias[2] = {1.0f, 2.0f};
  float C[4] = {10, 20, 30, 40};
  MatmulArgs a = dense(2, 2, 0, nullptr, nullptr, C, BLayout::KN, bias);
  a.accumulate = true;
  matmul(a);
  CHECK(C[0] == 11.0f); CHECK(C[1] == 22.0f); CHECK(C[2] == 31.0f); CHECK(C[3] == 42.0f);
  a.accumulate = false;
  a.bias = nullptr;
  matmul(a);
  for (float v : C) CHECK(v == 0.0f);
  float D[1] = {5.0f};
  matmul(dense(0, 1, 3, nullptr, nullptr, D));
  matmul(dense(1, 0, 3, nullptr, nullptr, D));
  CHECK(D[0] == 5.0f);
}

TEST_CASE("kernels/gemm: bad strides are errors, not out-of-bounds reads") {
  float A[4] = {}, B[4] = {}, C[4] = {};
  MatmulArgs a = dense(2, 2, 2, A, B, C);
  a.ldc = 1;
  CHECK_THROWS_AS(matmul(a), tfp::Error);
  a = dense(2, 2, 2, A, B, C);
  a.lda = 1;
  CHECK_THROWS_AS(matmul(a), tfp::Error);
  a = dense(2, 2, 2, A, B, C, BLayout::NK);
  a.ldb = 1;
  CHECK_THROWS_AS(matmul(a), tfp::Error);
  a = dense(-1, 2, 2, A, B, C);
  CHECK_THROWS_AS(matmul(a), tfp::Error);
}

TEST_CASE("kernels/gemm: pre-packed B must match the call's shape") {
  float A[6] = {}, B[6] = {}, C[4] = {};
  const PackedB pb = pack_b(B, 3, 2, 3, BLayout::NK);  // B (N=2, K=3)
  CHECK_THROWS_AS(matmul_packed(dense(2, 2, 2, A, B, C), pb), tfp::Error);  // K differs
  CHECK_NOTHROW(matmul_packed(dense(2, 2, 3, A, B, C), pb));
  CHECK_THROWS_AS(pack_b(B, 1, 2, 3, BLayout::NK), tfp::Error);  // ldb < K
}

TEST_CASE("kernels/gemm: one row against at most 64 KN columns gives the general path's bits") {
  // M = 1, N <= 64, KN (decode attention's probabilities times values) keeps its partial sums
  // in registers; each column must be summed as the general M <= 4 path sums it. That path
  // computes each row of A alone, so row 0 of an M = 2 call is the reference, bit for bit
  // (odd N: whole vector groups, single vectors, scalar columns; K across its 8-row passes).
  std::mt19937 rng(21);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (const int K : {1, 7, 8, 9, 128, 300})
    for (const int N : {1, 3, 4, 5, 31, 32, 37, 63, 64}) {
      const int ldb = N + 3, ldc = N + 2;
      std::vector<float> A(static_cast<size_t>(2) * K), B(static_cast<size_t>(K) * ldb), bias(N);
      for (float& x : B) x = nd(rng);
      for (float& x : bias) x = nd(rng);
      for (int k = 0; k < K; ++k) A[static_cast<size_t>(k)] = A[static_cast<size_t>(K + k)] = nd(rng);
      for (const bool acc : {false, true}) {
        std::vector<float> two(static_cast<size_t>(2) * ldc, 0.5f), one(static_cast<size_t>(ldc), 0.5f);
        MatmulArgs a = dense(2, N, K, A.data(), B.data(), two.data(), BLayout::KN);
        a.ldb = ldb;
        a.ldc = ldc;
        a.alpha = -0.75f;
        a.bias = bias.data();
        a.accumulate = acc;
        matmul(a);
        a.M = 1;
        a.C = one.data();
        matmul(a);
        for (int j = 0; j < N; ++j) {
          INFO("K=", K, " N=", N, " j=", j);
          CHECK(std::memcmp(&one[j], &two[j], sizeof(float)) == 0);
        }
        for (int j = N; j < ldc; ++j) CHECK(one[j] == 0.5f);
      }
    }
}
