// Scaled dot-product and multi-head attention against a double-precision reference
// (tests/test_attention_ref.h: the same maths written plainly in double).
// Tolerance: 1e-5 absolute on probabilities and outputs (inputs in [-1, 1], D <= 16,
// f32 accumulation) unless a test says otherwise. Masked probabilities must be exactly 0.
#include <doctest/doctest.h>

#include <cmath>

#include "nn/attention.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;
using testref::Rng;

namespace {

// Runs SDPA in f32 and in double on the same random q, k, v; returns max abs errors.
struct SdpaCase {
  int H, Tq, Tk, D, Dv;
  AttentionMask mask;
  uint64_t seed = 1;
};

// The mask rules written independently of attention.cpp, for the oracle.
bool allowed_by(const AttentionMask& m, int Tq, int Tk, int i, int j) {
  const int qi = i + (Tk - Tq);
  if (m.causal && j > qi) return false;
  if (m.window > 0 && std::abs(qi - j) > m.window) return false;
  if (!m.key_padding.empty() && m.key_padding[j]) return false;
  return true;
}

void check_sdpa(const SdpaCase& c) {
  Rng rng(c.seed);
  Tensor q = rng.tensor({c.H, c.Tq, c.D}, 2.0f), k = rng.tensor({c.H, c.Tk, c.D}, 2.0f),
         v = rng.tensor({c.H, c.Tk, c.Dv});
  const double scale = 1.0 / std::sqrt(static_cast<double>(c.D));
  AttentionResult r = scaled_dot_product_attention(q, k, v, c.mask, static_cast<float>(scale), true);
  REQUIRE(r.out.shape == Shape{c.H, c.Tq, c.Dv});
  REQUIRE(r.probs.shape == Shape{c.H, c.Tq, c.Tk});

  const AttentionMask& m = c.mask;
  auto allowed = [&](int, int i, int j) { return allowed_by(m, c.Tq, c.Tk, i, j); };
  auto bias = [&](int h, int i, int j) -> double {
    if (m.additive.empty()) return 0.0;
    const int64_t base = m.additive.rank() == 3 ? static_cast<int64_t>(h) * c.Tq * c.Tk : 0;
    return m.additive.data[base + static_cast<int64_t>(i) * c.Tk + j];
  };
  std::vector<double> out, probs;
  testref::sdpa(testref::to_double(q.ptr(), q.data.size()), testref::to_double(k.ptr(), k.data.size()),
                testref::to_double(v.ptr(), v.data.size()), c.H, c.Tq, c.Tk, c.D, c.Dv, scale,
                allowed, bias, out, probs);
  CHECK(testref::max_abs_diff(r.out.ptr(), out) < 1e-5);
  CHECK(testref::max_abs_diff(r.probs.ptr(), probs) < 1e-5);

  // Rows sum to 1 (or are all 0 when nothing is visible); masked entries are exactly 0.
  for (int h = 0; h < c.H; ++h)
    for (int i = 0; i < c.Tq; ++i) {
      double sum = 0;
      bool any = false;
      for (int j = 0; j < c.Tk; ++j) {
        const float p = r.probs.data[(static_cast<size_t>(h) * c.Tq + i) * c.Tk + j];
        REQUIRE(std::isfinite(p));
        sum += p;
        if (!allowed_by(m, c.Tq, c.Tk, i, j)) CHECK(p == 0.0f);
        else any = true;
      }
      if (any) CHECK(std::fabs(sum - 1.0) < 1e-5);
      else CHECK(sum == 0.0);
    }
  // Also the no-probs path must give the same output.
  AttentionResult r2 = scaled_dot_product_attention(q, k, v, c.mask, static_cast<float>(scale), false);
  CHECK(r2.probs.empty());
  CHECK(r2.out.data == r.out.data);
}

}  // namespace

TEST_CASE("attention/sdpa: unmasked, odd sizes, T=1, Dv != D") {
  check_sdpa({1, 1, 1, 1, 1, {}, 1});
  check_sdpa({2, 3, 3, 4, 4, {}, 2});
  check_sdpa({3, 7, 5, 5, 3, {}, 3});   // cross-shaped: Tq != Tk
  check_sdpa({1, 1, 9, 16, 16, {}, 4});  // one query, many keys (a generation step)
}

TEST_CASE("attention/sdpa: causal, including the KV-cache offset Tk > Tq") {
  AttentionMask m;
  m.causal = true;
  check_sdpa({2, 6, 6, 4, 4, m, 5});
  check_sdpa({2, 2, 7, 4, 4, m, 6});   // queries are the last 2 of 7 positions
  check_sdpa({1, 1, 1, 3, 3, m, 7});
}

TEST_CASE("attention/sdpa: key padding, additive (Tq,Tk) and (H,Tq,Tk), window") {
  Rng rng(11);
  AttentionMask pad;
  pad.key_padding = {0, 1, 0, 0, 1};
  check_sdpa({2, 4, 5, 4, 4, pad, 8});

  AttentionMask add2;
  add2.additive = rng.tensor({4, 5}, 3.0f);
  check_sdpa({2, 4, 5, 4, 4, add2, 9});

  AttentionMask add3;
  add3.additive = rng.tensor({3, 4, 5}, 3.0f);
  add3.additive.data[7] = -INFINITY;  // PyTorch float masks may contain -inf
  check_sdpa({3, 4, 5, 4, 4, add3, 10});

  AttentionMask win;
  win.window = 1;
  check_sdpa({2, 7, 7, 4, 4, win, 12});
  win.causal = true;  // window combined with causal: i-1 <= j <= i
  check_sdpa({2, 7, 7, 4, 4, win, 13});
  check_sdpa({2, 2, 9, 4, 4, win, 16});  // local attention with a KV cache: queries at 7, 8

  // The band by hand: window 1, causal, T = 4 → query i sees keys i-1 and i only.
  {
    Rng r2(17);
    Tensor q = r2.tensor({1, 4, 2}), k = r2.tensor({1, 4, 2}), v = r2.tensor({1, 4, 2});
    AttentionResult r = scaled_dot_product_attention(q, k, v, win, 1.0f, true);
    const int expect_nonzero[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 1}};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) CHECK((r.probs.data[i * 4 + j] != 0.0f) == (expect_nonzero[i][j] == 1));
  }

  AttentionMask all;
  all.causal = true;
  all.window = 2;
  all.key_padding = {1, 0, 0, 0, 0, 1, 0};
  all.additive = rng.tensor({7, 7});
  check_sdpa({2, 7, 7, 3, 3, all, 14});
}

TEST_CASE("attention/sdpa: fully masked rows give zero probabilities and zero output") {
  // Padding the first key and causal masking leave query 0 with no visible key.
  AttentionMask m;
  m.causal = true;
  m.key_padding = {1, 0, 0};
  check_sdpa({2, 3, 3, 4, 4, m, 15});  // the oracle expects zeros for row 0

  Rng rng(3);
  Tensor q = rng.tensor({1, 3, 4}), k = rng.tensor({1, 3, 4}), v = rng.tensor({1, 3, 2});
  AttentionResult r = scaled_dot_product_attention(q, k, v, m, 0.5f, true);
  for (int j = 0; j < 3; ++j) CHECK(r.probs.data[j] == 0.0f);
  CHECK(r.out.data[0] == 0.0f);
  CHECK(r.out.data[1] == 0.0f);

  // Every key padded: everything is zero, nothing is NaN.
  AttentionMask none;
  none.key_padding = {1, 1, 1};
  r = scaled_dot_product_attention(q, k, v, none, 0.5f, true);
  for (float p : r.probs.data) CHECK(p == 0.0f);
  for (float o : r.out.data) CHECK(o == 0.0f);
}

TEST_CASE("attention/sdpa: large logits stay finite (max subtraction)") {
  // Scores of ~1e4 would overflow exp() without subtracting the row max.
  Tensor q({1, 2, 1}, {100.0f, -100.0f}), k({1, 3, 1}, {100.0f, 99.0f, -100.0f});
  Tensor v({1, 3, 1}, {1.0f, 2.0f, 3.0f});
  AttentionResult r = scaled_dot_product_attention(q, k, v, {}, 1.0f, true);
  // Row 0: scores 1e4, 9900, -1e4 → probability 1 on key 0 (e^-100 underflows).
  CHECK(r.probs.data[0] == doctest::Approx(1.0));
  CHECK(r.out.data[0] == doctest::Approx(1.0));
  // Row 1: scores -1e4, -9900, 1e4 → all weight on key 2.
  CHECK(r.out.data[1] == doctest::Approx(3.0));
}

TEST_CASE("attention/sdpa: errors name the op and shapes") {
  Tensor q({2, 3, 4}), k({2, 5, 4}), v({2, 5, 4});
  CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, Tensor({2, 5, 3}), v, {}, 1.0f, false),
                       "scaled_dot_product_attention: shapes disagree: q [2, 3, 4] (H, Tq, D), k [2, 5, 3] "
                       "(H, Tk, D), v [2, 5, 4] (H, Tk, Dv)",
                       Error);
  CHECK_THROWS_AS(scaled_dot_product_attention(Tensor({2, 0, 4}), k, v, {}, 1.0f, false), Error);
  AttentionMask bad;
  bad.key_padding = {0, 0};
  CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, k, v, bad, 1.0f, false),
                       "scaled_dot_product_attention: key_padding has 2 entries, expected Tk = 5", Error);
  AttentionMask badadd;
  badadd.additive = Tensor({5, 3});
  CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, k, v, badadd, 1.0f, false),
                       "scaled_dot_product_attention: additive mask has shape [5, 3], expected [3, 5] "
                       "or [2, 3, 5] (H, Tq, Tk)",
                       Error);
  AttentionMask badwin;
  badwin.window = -1;
  CHECK_THROWS_AS(scaled_dot_product_attention(q, k, v, badwin, 1.0f, false), Error);
}
