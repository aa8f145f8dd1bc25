// The fused 16-bit decode GEMV (src/kernels/simd/gemv_b16.cpp, taken by 4-lane builds: WASM,
// native -msse4.1) must keep matmul's contract on 16-bit B: the bits of matmul on the widened
// f32 B. test_kernels_gemm.cpp checks that on ordinary values; here the cases the fused
// path cannot take itself and hands back: an f16 infinity or NaN in B (in the vector body
// and in a scalar tail), and activations with |x| >= 2^16 (x·2^112 would overflow).
// Oracle: matmul with B widened to f32 (memcmp, NaN bits included).
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.h"

using namespace tfp::kernels;

namespace {

void check_same(int N, int K, BLayout layout, std::vector<float> x, std::vector<uint16_t> b16, bool accumulate) {
  std::vector<float> wide(b16.size());
  f16_to_f32(b16.data(), wide.data(), b16.size());
  std::vector<float> bias(static_cast<size_t>(N), 0.25f), want(static_cast<size_t>(N), 1.5f), got = want;
  MatmulArgs a = dense(1, N, K, x.data(), wide.data(), want.data(), layout, bias.data());
  a.accumulate = accumulate;
  matmul(a);
  a.C = got.data();
  a.B = nullptr;
  a.B16 = b16.data();
  matmul(a);
  CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("kernels/gemm 16-bit M = 1: infinities and NaNs in B, |x| >= 2^16, give the widened result") {
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (const BLayout layout : {BLayout::NK, BLayout::KN})
    for (const int pos : {0, 37, 70})  // body, body, scalar tail (N·K = 71)
      for (const uint16_t special : {uint16_t(0x7c00), uint16_t(0xfc00), uint16_t(0x7e00)})
        for (const bool acc : {false, true}) {
          const int N = 1, K = 71;
          std::vector<float> x(K);
          for (float& v : x) v = nd(rng);
          std::vector<uint16_t> b(static_cast<size_t>(N) * K);
          for (uint16_t& h : b) h = f32_to_f16_one(0.1f * nd(rng));
          b[static_cast<size_t>(pos)] = special;
          CAPTURE(pos);
          check_same(N, K, layout, x, b, acc);
        }
  for (const BLayout layout : {BLayout::NK, BLayout::KN}) {
    const int N = 19, K = 45;
    std::vector<float> x(K);
    for (float& v : x) v = nd(rng);
    x[3] = 70000.0f;
    std::vector<uint16_t> b(static_cast<size_t>(N) * K);
    for (uint16_t& h : b) h = f32_to_f16_one(0.1f * nd(rng));
    b[5] = 0x0001;  // a subnormal half
    check_same(N, K, layout, x, b, true);
    x[3] = 1.0f;  // now the fused path runs (in 4-lane builds)
    check_same(N, K, layout, x, b, false);
  }
}
