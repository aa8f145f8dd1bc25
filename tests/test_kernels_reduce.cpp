// The kernels' own exp (simd::exp_fast, used by softmax, SiLU and GELU) against std::exp
// in double, and the logit scans (first_nan, argmax) against the scalar loops they replace.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/simd/simd.h"

using namespace tfp::kernels;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// exp_fast on each x, a batch at a time (every lane a different x).
std::vector<float> exp_fast_all(const std::vector<float>& x) {
  using B = simd::fbatch<simd::Arch>;
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); i += B::size) {
    alignas(64) float in[B::size], out[B::size];
    for (size_t l = 0; l < B::size; ++l) in[l] = i + l < x.size() ? x[i + l] : 0.0f;
    simd::exp_fast<simd::Arch>(B::load_aligned(in)).store_aligned(out);
    for (size_t l = 0; l < B::size && i + l < x.size(); ++l) y[i + l] = out[l];
  }
  return y;
}

int64_t first_nan_scalar(const std::vector<float>& x) {
  for (size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i])) return static_cast<int64_t>(i);
  return -1;
}

int64_t argmax_scalar(const std::vector<float>& x) {
  size_t best = 0;
  for (size_t i = 1; i < x.size(); ++i)
    if (x[i] > x[best]) best = i;
  return static_cast<int64_t>(best);
}

}  // namespace

TEST_CASE("kernels/exp_fast: within 2 ulp of exp over its range, edges named") {
  std::vector<float> x;
  for (float v = -87.3f; v <= 88.29f; v += 0.0137f) x.push_back(v);
  for (float v = -1.0f; v <= 1.0f; v += 1.0f / 1024) x.push_back(v);  // r near 0 and ±ln2/2
  for (int n = -125; n <= 127; ++n) x.push_back(n * 0.6931471805599453f);  // exact powers of two
  const std::vector<float> y = exp_fast_all(x);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    worst = std::max(worst, std::fabs(y[i] - want) / want);
  }
  CHECK(worst <= 2 * std::numeric_limits<float>::epsilon());

  const std::vector<float> edge = {0.0f, -0.0f, -kInf, kInf, kNaN, -88.0f, -1000.0f, 88.5f, 1000.0f};
  const std::vector<float> e = exp_fast_all(edge);
  CHECK(e[0] == 1.0f);
  CHECK(e[1] == 1.0f);
  CHECK(e[2] == 0.0f);  // a masked score: exactly nothing
  CHECK(e[3] == kInf);
  CHECK(std::isnan(e[4]));
  CHECK(e[5] == 0.0f);  // below -87.34 (the result would be denormal): flushed to 0
  CHECK(e[6] == 0.0f);
  CHECK(e[7] == kInf);  // above 88.3: +inf (documented early overflow)
  CHECK(e[8] == kInf);
}

TEST_CASE("kernels/first_nan and argmax: the scalar loops' answers, every position") {
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 100, 50257}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = nd(rng);
    CHECK(first_nan(x.data(), n) == -1);
    CHECK(argmax(x.data(), n) == argmax_scalar(x));
    for (int at : {0, n / 2, n - 1}) {  // the max and a tie after it, anywhere
      std::vector<float> t = x;
      t[static_cast<size_t>(at)] = 100.0f;
      CHECK(argmax(t.data(), n) == at);
      if (at + 1 < n) t[static_cast<size_t>(n - 1)] = 100.0f;
      CHECK(argmax(t.data(), n) == at);  // ties go to the lower index
      t[static_cast<size_t>(at)] = kNaN;
      CHECK(first_nan(t.data(), n) == first_nan_scalar(t));
      CHECK(first_nan(t.data(), n) == at);
    }
  }
  const std::vector<float> all_masked(13, -kInf);
  CHECK(argmax(all_masked.data(), 13) == 0);
  const std::vector<float> late_inf = {1, 2, kInf, 3, kInf};
  CHECK(argmax(late_inf.data(), 5) == 2);
  CHECK(argmax(nullptr, 0) == -1);
  CHECK(first_nan(nullptr, 0) == -1);
}

TEST_CASE("kernels/sum_exp: the softmax's sum, every length, -inf terms add nothing") {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.0f, 4.0f);
  for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 31, 1000, 50257}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = nd(rng);
    if (n > 1) x[0] = -kInf;  // a masked term
    const float shift = x[static_cast<size_t>(argmax(x.data(), n))];
    double want = 0;
    for (float v : x) want += std::exp(static_cast<double>(v) - shift);
    CAPTURE(n);
    CHECK(std::fabs(sum_exp(x.data(), n, shift) - want) <= 1e-6 * (4 + std::sqrt(static_cast<double>(n))) * want);
    // softmax_rows' p_j = its term / the sum (one row through the kernel, compared per element)
    std::vector<float> p = x;
    softmax_rows(p.data(), 1, n, n);
    const float sum = sum_exp(x.data(), n, shift);
    for (int j : {0, n / 2, n - 1})
      CHECK(std::fabs(sum_exp(x.data() + j, 1, shift) * (1.0f / sum) - p[static_cast<size_t>(j)]) <=
            1e-5f * p[static_cast<size_t>(j)] + 1e-30f);
  }
  CHECK(sum_exp(nullptr, 0, 0.0f) == 0.0f);
}
