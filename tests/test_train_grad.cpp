// Gradient checks of every backward pass in src/train/ against central finite
// differences, all in double precision (the ops are templates; double is the oracle's
// precision, float the training one).
//
// Oracle: for an op y = f(x, θ) and a fixed random R, the scalar L = Σ R ⊙ y has
// ∂L/∂x = backward(dy = R). Each analytic gradient entry is compared with
//   (L(x + h) − L(x − h)) / 2h,  h = 1e-5,
// whose error is ~h²·|f'''| + 1e-16·|L|/h ≈ 1e-10 here.
// Tolerance: |analytic − numeric| <= 1e-7 + 1e-6·|numeric| for every entry. A wrong term
// in a backward pass gives errors of order 1e-2 or more, far above it.
// Shapes are drawn at random (seeded) so dimensions are not all equal and odd sizes occur.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "core/error.h"
#include "train/activation_grad.h"
#include "train/attention_grad.h"
#include "train/cross_entropy.h"
#include "train/embedding_grad.h"
#include "train/layer_norm_grad.h"
#include "train/linear_grad.h"
#include "train/rng.h"
#include "grad_check.h"

using namespace tfp;
using namespace tfp::train;

namespace {

using test::Vec;
using test::dot;
using test::grad_check;
using test::uniform_vec;

}  // namespace

TEST_CASE("train grad: linear layer dX, dW, db") {
  Rng rng(1);
  for (int trial = 0; trial < 3; ++trial) {
    const int N = 1 + rng.below(6), I = 1 + rng.below(7), O = 1 + rng.below(5);
    Vec x = uniform_vec(rng, N * I), w = uniform_vec(rng, O * I), b = uniform_vec(rng, O);
    const Vec R = uniform_vec(rng, N * O);
    auto loss = [&] {
      Vec y(N * O);
      linear_forward<double>(y.data(), x.data(), w.data(), b.data(), N, I, O);
      return dot(R, y);
    };
    Vec dx(x.size(), 0), dw(w.size(), 0), db(b.size(), 0);
    linear_backward<double>(dx.data(), dw.data(), db.data(), R.data(), x.data(), w.data(), N, I, O);
    CHECK(grad_check(loss, x, dx) <= 1.0);
    CHECK(grad_check(loss, w, dw) <= 1.0);
    CHECK(grad_check(loss, b, db) <= 1.0);
  }
}

TEST_CASE("train grad: layer norm dX, dgamma, dbeta") {
  Rng rng(2);
  for (int trial = 0; trial < 3; ++trial) {
    const int N = 1 + rng.below(5), C = 2 + rng.below(9);
    Vec x = uniform_vec(rng, N * C, 3.0), g = uniform_vec(rng, C), be = uniform_vec(rng, C);
    for (auto& v : x) v += 5.0;  // a large mean: the backward must remove it exactly
    const Vec R = uniform_vec(rng, N * C);
    auto loss = [&] {
      Vec y(N * C);
      layer_norm_forward<double>(y.data(), nullptr, nullptr, x.data(), g.data(), be.data(), N, C, 1e-5);
      return dot(R, y);
    };
    Vec y(N * C), mean(N), rstd(N);
    layer_norm_forward<double>(y.data(), mean.data(), rstd.data(), x.data(), g.data(), be.data(), N, C, 1e-5);
    Vec dx(x.size(), 0), dg(C, 0), db(C, 0);
    layer_norm_backward<double>(dx.data(), dg.data(), db.data(), R.data(), x.data(), g.data(),
                                mean.data(), rstd.data(), N, C);
    CHECK(grad_check(loss, x, dx) <= 1.0);
    CHECK(grad_check(loss, g, dg) <= 1.0);
    CHECK(grad_check(loss, be, db) <= 1.0);
  }
}

TEST_CASE("train grad: activations relu, gelu (erf), gelu_new (tanh)") {
  Rng rng(3);
  for (Activation a : {Activation::Relu, Activation::GeluErf, Activation::GeluTanh}) {
    CAPTURE(activation_name(a));
    Vec x = uniform_vec(rng, 40, 4.0);
    const Vec R = uniform_vec(rng, 40);
    auto loss = [&] {
      Vec y(x.size());
      activation_forward<double>(a, y.data(), x.data(), x.size());
      return dot(R, y);
    };
    Vec dx(x.size(), 0);
    activation_backward<double>(a, dx.data(), R.data(), x.data(), x.size());
    CHECK(grad_check(loss, x, dx) <= 1.0);
  }
  // Hand values: gelu_erf(1) = ½(1 + erf(1/√2)) = 0.8413447460685429 (= Φ(1));
  // gelu_new(1) = ½(1 + tanh(√(2/π)·1.044715)) = 0.8411919906082768.
  double v[2] = {1.0, 1.0};
  activation_forward<double>(Activation::GeluErf, v, v, 1);
  activation_forward<double>(Activation::GeluTanh, v + 1, v + 1, 1);
  CHECK(v[0] == doctest::Approx(0.8413447460685429).epsilon(1e-14));
  CHECK(v[1] == doctest::Approx(0.8411919906082768).epsilon(1e-14));
}

TEST_CASE("train grad: token + position embedding scatter-add") {
  Rng rng(4);
  const int B = 2, T = 5, C = 3, V = 4, P = 7;
  Vec wte = uniform_vec(rng, V * C), wpe = uniform_vec(rng, P * C);
  std::vector<int> ids(B * T);
  for (auto& id : ids) id = rng.below(V);  // 10 draws from 4 ids: repeats guaranteed
  const Vec R = uniform_vec(rng, B * T * C);
  auto loss = [&] {
    Vec x(B * T * C);
    embedding_forward<double>(x.data(), ids.data(), wte.data(), wpe.data(), B, T, C, V, P);
    return dot(R, x);
  };
  Vec dwte(wte.size(), 0), dwpe(wpe.size(), 0);
  embedding_backward<double>(dwte.data(), dwpe.data(), R.data(), ids.data(), B, T, C);
  CHECK(grad_check(loss, wte, dwte) <= 1.0);
  CHECK(grad_check(loss, wpe, dwpe) <= 1.0);
  ids[3] = V;
  Vec x(B * T * C);
  CHECK_THROWS_WITH_AS(
      embedding_forward<double>(x.data(), ids.data(), wte.data(), wpe.data(), B, T, C, V, P),
      "embedding: token id 4 at [0, 3] is outside the vocabulary of 4", Error);
}

TEST_CASE("train grad: softmax backward") {
  Rng rng(5);
  const int rows = 3, cols = 6;
  Vec s = uniform_vec(rng, rows * cols, 3.0);
  const Vec R = uniform_vec(rng, rows * cols);
  auto loss = [&] {
    Vec p = s;
    softmax_rows_forward<double>(p.data(), rows, cols);
    return dot(R, p);
  };
  Vec p = s;
  softmax_rows_forward<double>(p.data(), rows, cols);
  Vec ds(s.size());
  softmax_rows_backward<double>(ds.data(), p.data(), R.data(), rows, cols);
  CHECK(grad_check(loss, s, ds) <= 1.0);
  // Logits of 1000 would overflow exp() without the max subtraction.
  Vec big = {1000.0, 1000.0, -1000.0};
  softmax_rows_forward<double>(big.data(), 1, 3);
  CHECK(big[0] == 0.5);
  CHECK(big[2] == 0.0);
}

namespace {

// Runs the full attention gradient check for one configuration.
void check_attention(uint64_t seed, int B, int Tq, int Tk, int C, int H, bool cross, bool causal,
                     std::vector<uint8_t> padding) {
  CAPTURE(seed);
  Rng rng(seed);
  if (!cross) Tk = Tq;
  Vec xq = uniform_vec(rng, B * Tq * C), xkv = cross ? uniform_vec(rng, B * Tk * C) : Vec{};
  Vec in_w = uniform_vec(rng, 3 * C * C, 0.5), in_b = uniform_vec(rng, 3 * C, 0.5);
  Vec out_w = uniform_vec(rng, C * C, 0.5), out_b = uniform_vec(rng, C, 0.5);
  const Vec R = uniform_vec(rng, B * Tq * C);
  AttentionDims d{B, Tq, Tk, C, H};
  AttentionMaskSpec m;
  m.causal = causal;
  m.key_padding = padding.empty() ? nullptr : padding.data();
  auto params = [&] {
    return AttentionParams<double>{in_w.data(), in_b.data(), out_w.data(), out_b.data()};
  };
  auto kv_ptr = [&] { return cross ? xkv.data() : xq.data(); };
  auto loss = [&] {
    AttentionCache<double> cache;
    Vec out(B * Tq * C);
    attention_forward<double>(out.data(), cache, xq.data(), kv_ptr(), params(), d, m);
    return dot(R, out);
  };
  AttentionCache<double> cache;
  Vec out(B * Tq * C);
  attention_forward<double>(out.data(), cache, xq.data(), kv_ptr(), params(), d, m);
  Vec dxq(xq.size(), 0), dxkv(xkv.size(), 0), din_w(in_w.size(), 0), din_b(in_b.size(), 0),
      dout_w(out_w.size(), 0), dout_b(out_b.size(), 0);
  AttentionGrads<double> g{din_w.data(), din_b.data(), dout_w.data(), dout_b.data()};
  attention_backward<double>(dxq.data(), cross ? dxkv.data() : dxq.data(), g, R.data(), cache,
                             xq.data(), kv_ptr(), params(), d);
  CHECK(grad_check(loss, xq, dxq) <= 1.0);
  if (cross) CHECK(grad_check(loss, xkv, dxkv) <= 1.0);
  CHECK(grad_check(loss, in_w, din_w) <= 1.0);
  CHECK(grad_check(loss, in_b, din_b) <= 1.0);
  CHECK(grad_check(loss, out_w, dout_w) <= 1.0);
  CHECK(grad_check(loss, out_b, dout_b) <= 1.0);
  // Masked probabilities are exactly zero.
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < Tq; ++i)
        for (int j = 0; j < Tk; ++j) {
          const bool hidden = (causal && j > i + (Tk - Tq)) || (!padding.empty() && padding[b * Tk + j]);
          if (hidden) CHECK(cache.probs[((b * H + h) * Tq + i) * Tk + j] == 0.0);
        }
}

}  // namespace

TEST_CASE("train grad: multi-head self-attention, causal") {
  check_attention(6, 2, 5, 5, 8, 2, false, true, {});
}

TEST_CASE("train grad: multi-head self-attention, key padding") {
  // Sequence 0 pads its last two keys, sequence 1 none.
  check_attention(7, 2, 4, 4, 6, 3, false, false, {0, 0, 1, 1, 0, 0, 0, 0});
}

TEST_CASE("train grad: multi-head cross-attention with padding, one memory fully padded") {
  // Sequence 1's memory is all padding: its queries attend to nothing (zero output and
  // zero gradient), which must not produce NaN.
  check_attention(8, 2, 3, 5, 8, 4, true, false, {0, 1, 0, 0, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("train grad: cross-entropy with label smoothing and ignore index") {
  Rng rng(9);
  const int N = 5, V = 7;
  Vec z = uniform_vec(rng, N * V, 3.0);
  const std::vector<int> y = {3, -100, 0, 6, -100};
  for (double eps : {0.0, 0.1}) {
    CAPTURE(eps);
    auto loss = [&] { return cross_entropy<double>(nullptr, z.data(), y.data(), N, V, eps).loss; };
    Vec dz(z.size());
    const auto r = cross_entropy<double>(dz.data(), z.data(), y.data(), N, V, eps);
    CHECK(r.valid == 3);
    CHECK(grad_check(loss, z, dz) <= 1.0);
    for (int c = 0; c < V; ++c) CHECK(dz[1 * V + c] == 0.0);  // ignored row: no gradient
  }
  // Hand value: logits (0, ln 3) → p = (1/4, 3/4). Target 0 with ε = 0.2 → q = (0.9, 0.1),
  // loss = −(0.9·ln(1/4) + 0.1·ln(3/4)) (PyTorch's label_smoothing definition).
  const double zz[2] = {0.0, std::log(3.0)};
  const int t = 0;
  const double expect = -(0.9 * std::log(0.25) + 0.1 * std::log(0.75));
  CHECK(cross_entropy<double>(nullptr, zz, &t, 1, 2, 0.2).loss == doctest::Approx(expect).epsilon(1e-14));
  const int bad = 2;
  CHECK_THROWS_WITH_AS(cross_entropy<double>(nullptr, zz, &bad, 1, 2), 
                       "cross_entropy: target 2 at row 0 is outside the vocabulary of 2", Error);
}
