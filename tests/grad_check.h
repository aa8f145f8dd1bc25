// Finite-difference gradient checking in double precision, shared by the backward-pass
// tests. Oracle: central differences (f(x+h) − f(x−h)) / 2h with h = 1e-5; their error is
// O(h²) ≈ 1e-10 plus rounding ≈ 1e-16/h ≈ 1e-11, far under the bound used below.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "train/rng.h"

namespace tfp::test {

using Vec = std::vector<double>;

// n values uniform in [−scale, scale).
inline Vec uniform_vec(train::Rng& rng, size_t n, double scale = 1.0) {
  Vec v(n);
  for (double& x : v) x = scale * (2.0 * rng.uniform() - 1.0);
  return v;
}

inline double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Compares `analytic` (size of x) with central differences of loss() in x.
// Returns the worst violation ratio |a − n| / (1e-7 + 1e-6|n|) (must be <= 1).
inline double grad_check(const std::function<double()>& loss, Vec& x, const Vec& analytic) {
  REQUIRE(analytic.size() == x.size());
  const double h = 1e-5;
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double lp = loss();
    x[i] = keep - h;
    const double lm = loss();
    x[i] = keep;
    const double num = (lp - lm) / (2 * h);
    worst = std::max(worst, std::abs(analytic[i] - num) / (1e-7 + 1e-6 * std::abs(num)));
  }
  return worst;
}

}  // namespace tfp::test
