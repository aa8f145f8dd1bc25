// softmax_rows and layernorm_rows (fast xsimd and ref::) against double references
// written here. Sizes straddle the vector width (4 in WASM, 8 with AVX2).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernels.h"

using namespace tfp::kernels;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kEps = std::numeric_limits<float>::epsilon();
const int kCols[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 35, 67, 100, 768, 1001};

using SoftmaxFn = void (*)(float*, int, int, int64_t);

// softmax of one row in double; all -inf -> zeros.
std::vector<double> softmax_d(const float* x, int n) {
  double mx = -INFINITY;
  for (int j = 0; j < n; ++j) mx = std::max(mx, static_cast<double>(x[j]));
  std::vector<double> y(static_cast<size_t>(n), 0.0);
  if (mx == -INFINITY) return y;
  double s = 0;
  for (int j = 0; j < n; ++j) s += (y[j] = std::exp(x[j] - mx));
  for (auto& v : y) v /= s;
  return y;
}

// Relative error per element: p_j = exp(x_j - max)/Σ. Float errors come from rounding
// x_j - max (|x_j - max|·eps/2 relative, <= 8·eps for the logits used, spread <= 16), exp
// (~2 ulp), the sum (grows like sqrt(n)·eps) and the division: tolerance
// |p - p_d| <= (16 + 2·sqrt(n))·eps·p_d + 1e-30.
void check_softmax(SoftmaxFn fn, const char* name, float offset, float spread, double mask_p,
                   uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-spread, spread);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (int n : kCols) {
    const int rows = 3;
    const int64_t ld = n + 3;
    std::vector<float> x(static_cast<size_t>(rows * ld), 777.0f);  // 777 marks padding
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < n; ++j) x[r * ld + j] = coin(rng) < mask_p ? -kInf : offset + u(rng);
    const std::vector<float> x0 = x;
    fn(x.data(), rows, n, ld);
    CAPTURE(name); CAPTURE(n); CAPTURE(offset);
    for (int r = 0; r < rows; ++r) {
      const std::vector<double> want = softmax_d(&x0[r * ld], n);
      const double tol = (16 + 2 * std::sqrt(static_cast<double>(n))) * kEps;
      bool any = false;
      double sum = 0, worst = 0;
      for (int j = 0; j < n; ++j) {
        const float got = x[r * ld + j];
        REQUIRE(std::isfinite(got));
        if (x0[r * ld + j] == -kInf) CHECK(got == 0.0f);  // masked -> exactly 0
        else any = true;
        worst = std::max(worst, std::fabs(got - want[j]) / (want[j] + 1e-30));
        sum += got;
      }
      CHECK(worst <= tol);
      if (any) CHECK(std::fabs(sum - 1.0) <= tol);  // a distribution
      else for (int j = 0; j < n; ++j) CHECK(x[r * ld + j] == 0.0f);
      for (int64_t j = n; j < ld; ++j) CHECK(x[r * ld + j] == 777.0f);
    }
  }
}

}  // namespace

TEST_CASE("kernels/softmax: against double, fast and ref") {
  for (auto [fn, name] : {std::pair<SoftmaxFn, const char*>{softmax_rows, "fast"},
                          std::pair<SoftmaxFn, const char*>{ref::softmax_rows, "ref"}}) {
    check_softmax(fn, name, 0.0f, 8.0f, 0.0, 1);
    check_softmax(fn, name, 1000.0f, 8.0f, 0.0, 2);   // exp(1000) would overflow without max
    check_softmax(fn, name, -1000.0f, 8.0f, 0.0, 3);  // exp(-1000) would underflow to 0/0
    check_softmax(fn, name, 0.0f, 8.0f, 0.3, 4);      // masked entries
    check_softmax(fn, name, 0.0f, 8.0f, 1.0, 5);      // every row fully masked
  }
}

TEST_CASE("kernels/softmax: hand-derived values") {
  // [0, ln 3, -inf] -> exp = [1, 3, 0], sum 4 -> [0.25, 0.75, 0]
  float x[3] = {0.0f, std::log(3.0f), -kInf};
  softmax_rows(x, 1, 3, 3);
  CHECK(x[0] == doctest::Approx(0.25).epsilon(1e-6));
  CHECK(x[1] == doctest::Approx(0.75).epsilon(1e-6));
  CHECK(x[2] == 0.0f);
  // logits of 1000 and 1000 + ln 3: same answer, no overflow
  float y[2] = {1000.0f, 1000.0f + 1.0986123f};
  softmax_rows(y, 1, 2, 2);
  CHECK(y[0] == doctest::Approx(0.25).epsilon(1e-4));  // 1000 + ln 3 is rounded to 6e-5
  CHECK(y[1] == doctest::Approx(0.75).epsilon(1e-4));
}

// ---- layernorm ---------------------------------------------------------------------
using LayerNormFn = void (*)(const float*, const float*, const float*, float*, int, int, float);

// Oracle in double: mean, biased variance, (x - mean)/sqrt(var + eps)·gamma + beta.
// Tolerance |y - y_d| <= (32 + 4·sqrt(n))·eps·(|x̂_d|·|gamma| + |beta| + 1): the
// statistics carry sqrt(n)·eps relative error, x̂ inherits it, gamma/beta add a rounding.
// Rows have |mean| = 50·std, where one-pass E[x²] - E[x]² in float would lose ~12 bits.
void check_layernorm(LayerNormFn fn, const char* name, bool affine, bool in_place, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (int n : kCols) {
    if (n == 0) continue;
    const int rows = 2;
    std::vector<float> x(static_cast<size_t>(rows * n)), gam(n), bet(n);
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < n; ++j) x[r * n + j] = (r == 0 ? 50.0f : -3.0f) + g(rng);
    for (int j = 0; j < n; ++j) { gam[j] = 1.0f + 0.5f * g(rng); bet[j] = g(rng); }
    const float eps = 1e-5f;
    std::vector<float> y(x.size());
    float* out = in_place ? x.data() : y.data();
    const std::vector<float> x0 = x;
    fn(x.data(), affine ? gam.data() : nullptr, affine ? bet.data() : nullptr, out, rows, n, eps);
    CAPTURE(name); CAPTURE(n); CAPTURE(affine); CAPTURE(in_place);
    double worst = 0;
    for (int r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int j = 0; j < n; ++j) mean += x0[r * n + j];
      mean /= n;
      for (int j = 0; j < n; ++j) var += (x0[r * n + j] - mean) * (x0[r * n + j] - mean);
      var /= n;
      for (int j = 0; j < n; ++j) {
        const double xh = (x0[r * n + j] - mean) / std::sqrt(var + eps);
        const double ga = affine ? gam[j] : 1.0, be = affine ? bet[j] : 0.0;
        const double want = xh * ga + be;
        const double scale = std::fabs(xh * ga) + std::fabs(be) + 1.0;
        worst = std::max(worst, std::fabs(out[r * n + j] - want) / scale);
      }
    }
    CHECK(worst <= (32 + 4 * std::sqrt(static_cast<double>(n))) * kEps);
  }
}

TEST_CASE("kernels/layernorm: against double, fast and ref, affine or not, in place") {
  for (auto [fn, name] : {std::pair<LayerNormFn, const char*>{layernorm_rows, "fast"},
                          std::pair<LayerNormFn, const char*>{ref::layernorm_rows, "ref"}})
    for (bool affine : {false, true})
      for (bool in_place : {false, true}) check_layernorm(fn, name, affine, in_place, 11);
}

TEST_CASE("kernels/layernorm: constant row gives beta (variance 0, eps keeps it finite)") {
  // x = [3,3,3,3]: mean 3, var 0 -> x̂ = 0/sqrt(eps) = 0 -> y = beta.
  const float x[4] = {3, 3, 3, 3}, beta[4] = {1, -2, 0.5f, 0};
  float y[4];
  layernorm_rows(x, nullptr, beta, y, 1, 4, 1e-5f);
  for (int j = 0; j < 4; ++j) CHECK(y[j] == beta[j]);
}
