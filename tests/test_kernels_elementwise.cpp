// relu, gelu_tanh, gelu_erf, add_inplace, f16/bf16 -> f32 (fast xsimd and ref::)
// against double references / exhaustive bit patterns. Lengths straddle the vector width.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernels.h"

using namespace tfp::kernels;

namespace {

constexpr double kEps = std::numeric_limits<float>::epsilon();
const size_t kLens[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 35, 67, 1001};

uint32_t bits(float f) { return __builtin_bit_cast(uint32_t, f); }

// Inputs: a dense grid over [-12, 12] (both GELU tails and the knee) plus zeros.
std::vector<float> activation_inputs(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-12.0f, 12.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = u(rng);
  if (n > 2) { x[0] = 0.0f; x[1] = -0.0f; }
  return x;
}

using ActFn = void (*)(float*, size_t);

// Metric: |y - y_d| <= tol·(|x| + 1). GELU = 0.5·x·(1 + t) with t = tanh or erf in
// [-1, 1]; an error of a few eps in t (or in rounding 1 + t) is multiplied by 0.5|x|,
// so the error scales with |x|, not with |y| (for x << 0, y is tiny but 1 + t cancels).
// tol = 8·eps: xsimd's tanh/erf are within ~2 ulp; the rest is 3 roundings.
void check_act(ActFn fn, double (*oracle)(double), const char* name) {
  for (size_t n : kLens) {
    std::vector<float> x = activation_inputs(n, static_cast<uint32_t>(n) + 3);
    const std::vector<float> x0 = x;
    fn(x.data(), n);
    CAPTURE(name); CAPTURE(n);
    double worst = 0;
    for (size_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(x[i] - oracle(x0[i])) / (std::fabs(x0[i]) + 1.0));
    CHECK(worst <= 8 * kEps);
  }
}

double gelu_tanh_d(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
double gelu_erf_d(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double relu_d(double x) { return x > 0 ? x : 0.0; }

}  // namespace

TEST_CASE("kernels/activations: gelu_tanh, gelu_erf, relu against double") {
  check_act(gelu_tanh, gelu_tanh_d, "gelu_tanh");
  check_act(ref::gelu_tanh, gelu_tanh_d, "ref::gelu_tanh");
  check_act(gelu_erf, gelu_erf_d, "gelu_erf");
  check_act(ref::gelu_erf, gelu_erf_d, "ref::gelu_erf");
  check_act(relu, relu_d, "relu");
}

TEST_CASE("kernels/activations: relu is exact, NaN -> 0 as the reference, tail untouched") {
  for (size_t n : kLens) {
    std::vector<float> x = activation_inputs(n + 1, 5), y;
    if (n > 3) x[3] = std::numeric_limits<float>::quiet_NaN();
    y = x;
    relu(x.data(), n);
    ref::relu(y.data(), n);
    for (size_t i = 0; i < n; ++i) CHECK(bits(x[i]) == bits(y[i]));
    CHECK(bits(x[n]) == bits(y[n]));  // element n was not touched by either
  }
}

TEST_CASE("kernels/activations: hand-derived GELU values") {
  // gelu(0) = 0; gelu_erf(1) = 0.5·(1 + erf(1/√2)) = 0.8413447460685429 (Φ(1))
  float x[2] = {0.0f, 1.0f};
  gelu_erf(x, 2);
  CHECK(x[0] == 0.0f);
  CHECK(x[1] == doctest::Approx(0.8413447460685429).epsilon(1e-6));
  // gelu_tanh(1) = 0.5·(1 + tanh(√(2/π)·1.044715)) = 0.8411919906082768
  float z[1] = {1.0f};
  gelu_tanh(z, 1);
  CHECK(z[0] == doctest::Approx(0.8411919906082768).epsilon(1e-6));
}

TEST_CASE("kernels/add_inplace: exact float sums, tail included") {
  for (size_t n : kLens) {
    std::vector<float> y = activation_inputs(n + 1, 7), x = activation_inputs(n + 1, 8);
    const std::vector<float> y0 = y;
    add_inplace(y.data(), x.data(), n);
    for (size_t i = 0; i < n; ++i) CHECK(y[i] == y0[i] + x[i]);  // one IEEE add: exact match
    CHECK(y[n] == y0[n]);
  }
}

TEST_CASE("kernels/transpose: every element moved, odd shapes and tile edges, = ref") {
  // 4 x 4 register blocks in 4-lane builds, 64-column tiles: shapes around both edges.
  for (const std::pair<int64_t, int64_t> shape : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {1, 7}, {7, 1}, {3, 5}, {4, 4}, {5, 3}, {8, 64}, {9, 65}, {64, 130}, {130, 7}, {67, 129}}) {
    const int64_t rows = shape.first, cols = shape.second;  // clang 14: no bindings in CHECK's lambda
    std::vector<float> src(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 0.5f;  // distinct values
    std::vector<float> got(src.size(), -1.0f), want(src.size(), -1.0f);
    transpose(src.data(), rows, cols, got.data());
    ref::transpose(src.data(), rows, cols, want.data());
    CHECK_MESSAGE(got == want, rows, " x ", cols);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) REQUIRE(got[static_cast<size_t>(c * rows + r)] == src[static_cast<size_t>(r * cols + c)]);
  }
}

TEST_CASE("kernels/transpose16: every element moved, odd shapes, 8 x 8 blocks and tile edges") {
  for (const std::pair<int64_t, int64_t> shape : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {1, 9}, {9, 1}, {7, 7}, {8, 8}, {8, 9}, {9, 8}, {16, 64}, {63, 65}, {64, 130}, {130, 17}, {200, 75}}) {
    const int64_t rows = shape.first, cols = shape.second;
    std::vector<uint16_t> src(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint16_t>(i * 40503u + 7);  // distinct for < 65536
    std::vector<uint16_t> got(src.size() + 3, 0xdead);  // and nothing written past the end
    transpose16(src.data(), rows, cols, got.data());
    CAPTURE(rows); CAPTURE(cols);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) REQUIRE(got[static_cast<size_t>(c * rows + r)] == src[static_cast<size_t>(r * cols + c)]);
    for (size_t i = src.size(); i < got.size(); ++i) CHECK(got[i] == 0xdead);
  }
}

// ---- half precision ---------------------------------------------------------------
namespace {
// IEEE half in double, straight from the definition.
double half_d(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v;
  if (e == 0) v = std::ldexp(m, -24);                                   // subnormal / zero
  else if (e == 31) v = m ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
  else v = std::ldexp(1024 + m, e - 25);                                // (1 + m/1024)·2^(e-15)
  return s ? -v : v;
}
}  // namespace

TEST_CASE("kernels/f16: all 65536 patterns against the definition, ref and the writer") {
  std::vector<uint16_t> h(65536);
  for (uint32_t i = 0; i < 65536; ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> fast(65536), slow(65536);
  f16_to_f32(h.data(), fast.data(), h.size());
  ref::f16_to_f32(h.data(), slow.data(), h.size());
  int bad_def = 0, bad_ref = 0, bad_trip = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    const double want = half_d(h[i]);
    const float got = fast[i];
    if (std::isnan(want)) {
      // NaN stays NaN with sign and payload (mantissa << 13), as the reference does
      if (!std::isnan(got) || bits(got) != ((i & 0x8000u) << 16 | 0x7f800000u | (i & 0x3ffu) << 13))
        ++bad_def;
    } else {
      if (static_cast<double>(got) != want || std::signbit(got) != std::signbit(want)) ++bad_def;
      if (f32_to_f16_one(got) != h[i]) ++bad_trip;  // exact round trip (incl. ±0, ±inf, subnormals)
    }
    if (bits(got) != bits(slow[i])) ++bad_ref;
  }
  CHECK(bad_def == 0);
  CHECK(bad_ref == 0);
  CHECK(bad_trip == 0);
  // Lengths around the vector width: the tail converts the same as the body.
  for (size_t n : kLens) {
    std::vector<float> out(n + 1, -7.0f);
    f16_to_f32(h.data() + 1000, out.data(), n);  // patterns 1000.. are subnormal/normal
    for (size_t i = 0; i < n; ++i) CHECK(bits(out[i]) == bits(fast[1000 + i]));
    CHECK(out[n] == -7.0f);
  }
}

TEST_CASE("kernels/f16: writer rounding, hand-derived") {
  CHECK(f32_to_f16_one(1.0f) == 0x3c00);
  CHECK(f32_to_f16_one(1.0f + 0x1p-11f) == 0x3c00);        // halfway, ties to even (down)
  CHECK(f32_to_f16_one(1.0f + 3 * 0x1p-11f) == 0x3c02);    // halfway, ties to even (up)
  CHECK(f32_to_f16_one(65504.0f) == 0x7bff);               // largest finite half
  CHECK(f32_to_f16_one(65519.0f) == 0x7bff);               // below the halfway point 65520
  CHECK(f32_to_f16_one(65520.0f) == 0x7c00);               // rounds to inf
  CHECK(f32_to_f16_one(0x1p-24f) == 0x0001);               // smallest subnormal
  CHECK(f32_to_f16_one(0x1p-25f) == 0x0000);               // half of it: tie to even 0
  CHECK(f32_to_f16_one(1.5f * 0x1p-24f) == 0x0002);        // 1.5 ulp: tie to even 2
  CHECK(f32_to_f16_one(-INFINITY) == 0xfc00);
  CHECK((f32_to_f16_one(std::numeric_limits<float>::quiet_NaN()) & 0x7fff) > 0x7c00);
}

TEST_CASE("kernels/bf16: all 65536 patterns against ref and the writer") {
  std::vector<uint16_t> h(65536);
  for (uint32_t i = 0; i < 65536; ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> fast(65536), slow(65536);
  bf16_to_f32(h.data(), fast.data(), h.size());
  ref::bf16_to_f32(h.data(), slow.data(), h.size());
  int bad = 0, bad_trip = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    if (bits(fast[i]) != i << 16 || bits(fast[i]) != bits(slow[i])) ++bad;  // bf16 = top half
    const uint16_t back = f32_to_bf16_one(fast[i]);
    if (std::isnan(fast[i]) ? !std::isnan(__builtin_bit_cast(float, static_cast<uint32_t>(back) << 16)) : back != h[i]) ++bad_trip;
  }
  CHECK(bad == 0);
  CHECK(bad_trip == 0);
  // writer: round to nearest even on the dropped 16 bits
  CHECK(f32_to_bf16_one(__builtin_bit_cast(float, 0x3f808000u)) == 0x3f80);  // tie, even down
  CHECK(f32_to_bf16_one(__builtin_bit_cast(float, 0x3f818000u)) == 0x3f82);  // tie, even up
  CHECK(f32_to_bf16_one(__builtin_bit_cast(float, 0x3f808001u)) == 0x3f81);  // above tie
  for (size_t n : kLens) {
    std::vector<float> out(n + 1, -7.0f);
    bf16_to_f32(h.data() + 0x3f00, out.data(), n);
    for (size_t i = 0; i < n; ++i) CHECK(bits(out[i]) == (0x3f00u + i) << 16);
    CHECK(out[n] == -7.0f);
  }
}

TEST_CASE("kernels: simd_arch_name names a SIMD level") {
  const std::string name = simd_arch_name();
  CHECK(!name.empty());
  CHECK(name != "ref");
}
