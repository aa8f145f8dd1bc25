// matmul_b16_decode (src/kernels/simd/gemv_b16.cpp: M = 1 on 16-bit B with the conversion
// inside the GEMV, taken by 4-lane builds: WASM, native -msse4.1) keeps matmul's contract on
// 16-bit B: the bits of matmul on the widened f32 B.
// Oracle: matmul with B widened to f32 (memcmp, NaN bits included), on odd shapes around the
// 32-float / 8-row unrolls and the 512-column blocks, both layouts, strides, alpha, bias and
// accumulate, f16 (checked as read, or vouched finite by the caller) and bf16; and the cases it must hand back (returns false, C as it was):
// an f16 infinity or NaN in B (vector body and scalar tail) and |x| >= 2^16.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.h"

using namespace tfp::kernels;

namespace {

std::mt19937 rng(5);
std::normal_distribution<float> nd(0.0f, 1.0f);

// Runs matmul_b16_decode and matmul on the widened B from the same C; checks equal bits.
// Returns whether the fused path was taken.
bool check_same(int N, int K, BLayout layout, int pad, bool bf16, float alpha, bool bias, bool acc,
                const std::vector<float>& x, const std::vector<uint16_t>& b16, bool finite = false) {
  const int64_t ldb = (layout == BLayout::KN ? N : K) + pad;
  std::vector<float> wide(b16.size());
  if (bf16) bf16_to_f32(b16.data(), wide.data(), b16.size());
  else f16_to_f32(b16.data(), wide.data(), b16.size());
  std::vector<float> bias_v(static_cast<size_t>(N));
  for (float& v : bias_v) v = nd(rng);
  std::vector<float> want(static_cast<size_t>(N + pad), 1.5f), got = want;
  MatmulArgs a = dense(1, N, K, x.data(), wide.data(), want.data(), layout, bias ? bias_v.data() : nullptr);
  a.ldb = ldb;
  a.alpha = alpha;
  a.accumulate = acc;
  matmul(a);
  a.C = got.data();
  a.B = nullptr;
  a.B16 = b16.data();
  a.B16_bf16 = bf16;
  a.B16_finite = finite;
  const std::vector<float> before = got;
  const bool taken = matmul_b16_decode(a);
  if (!taken) {  // C untouched; the caller then runs matmul (its own 16-bit path)
    CHECK(std::memcmp(before.data(), got.data(), got.size() * sizeof(float)) == 0);
    matmul(a);
  }
  CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
  return taken;
}

std::vector<uint16_t> random_b(size_t n, bool bf16) {
  std::vector<uint16_t> b(n);
  for (uint16_t& h : b) h = bf16 ? f32_to_bf16_one(0.1f * nd(rng)) : f32_to_f16_one(0.1f * nd(rng));
  return b;
}

}  // namespace

TEST_CASE("kernels/b16 decode: odd shapes, both layouts, f16 (checked, vouched finite) and bf16 give matmul's bits") {
  const int shapes[][2] = {{1, 1}, {3, 7}, {13, 35}, {9, 45}, {40, 97}, {600, 33}, {1100, 300}, {5, 1}};
  int taken = 0, runs = 0;
  for (const auto& s : shapes)
    for (const BLayout layout : {BLayout::NK, BLayout::KN})
      for (const int kind : {0, 1, 2}) {  // f16 checked as read, f16 vouched finite, bf16
        const bool bf16 = kind == 2, finite = kind == 1;
        const int N = s[0], K = s[1], pad = (N + K) % 3;
        std::vector<float> x(static_cast<size_t>(K));
        for (float& v : x) v = nd(rng);
        const size_t rows = static_cast<size_t>(layout == BLayout::KN ? K : N);
        const size_t cols = static_cast<size_t>(layout == BLayout::KN ? N : K) + pad;
        const std::vector<uint16_t> b = random_b(rows * cols, bf16);
        CAPTURE(N); CAPTURE(K); CAPTURE(static_cast<int>(layout)); CAPTURE(kind);
        taken += check_same(N, K, layout, pad, bf16, 1.0f, false, false, x, b, finite);
        taken += check_same(N, K, layout, pad, bf16, -0.75f, true, true, x, b, finite);
        runs += 2;
      }
  MESSAGE("fused path taken in ", taken, " of ", runs, " runs (0 in 8-lane builds)");
}

TEST_CASE("kernels/b16 decode: infinities and NaNs in B, |x| >= 2^16 are handed back to matmul") {
  for (const BLayout layout : {BLayout::NK, BLayout::KN})
    for (const int pos : {0, 37, 70})  // body, body, scalar tail (N·K = 71)
      for (const uint16_t special : {uint16_t(0x7c00), uint16_t(0xfc00), uint16_t(0x7e00)})
        for (const bool acc : {false, true}) {
          std::vector<float> x(71);
          for (float& v : x) v = nd(rng);
          std::vector<uint16_t> b = random_b(71, false);
          b[static_cast<size_t>(pos)] = special;
          CAPTURE(pos);
          CHECK_FALSE(check_same(1, 71, layout, 0, false, 1.0f, true, acc, x, b));
        }
  for (const BLayout layout : {BLayout::NK, BLayout::KN}) {
    std::vector<float> x(45);
    for (float& v : x) v = nd(rng);
    x[3] = 70000.0f;
    std::vector<uint16_t> b = random_b(19 * 45, false);
    b[5] = 0x0001;  // a subnormal half
    CHECK_FALSE(check_same(19, 45, layout, 0, false, 1.0f, true, true, x, b));
  }
}
