// tfp_learn_gradient_steps (the Learn chapter "Why attention"): the size of a gradient
// passed back through T recurrent steps.
// Oracles:
//   - the linear cell, by hand: W_hh = g·Q with Q orthogonal, so ∂L/∂h_{T-k} = (gQᵀ)^k u
//     has norm g^k exactly (Q keeps lengths); relative 1e-12 (double rounding over
//     k <= 63 products of a 16-wide matrix);
//   - the tanh RNN and the GRU, by central finite differences of a forward pass written
//     here from PyTorch's nn.RNN / nn.GRU formulas (not the engine's kernels), on the
//     weights make_gradient_setup drew: L(h_t) = u·h_T run from a nudged h_t. Step 1e-5
//     in double: truncation O(h²) ≈ 1e-10, rounding ≈ 1e-16/1e-5 = 1e-11 on L ≈ 1; the
//     norms compared are >= 1e-3, so relative 1e-6 leaves room;
//   - the tanh bound ‖∂L/∂h_{T-k}‖ <= g^k (|tanh'| <= 1, ‖W_hh‖ = g);
//   - the GRU's forward states against nn::gru_sequence (float, the code numbers-gru runs)
//     on the same weights rounded to float: 1e-5.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api/learn_gradient.h"
#include "api/tfp_learn_gradient_api.h"
#include "nn/gru.h"

namespace {

using tfp::api::GradientSetup;
using tfp::api::RecurrentCell;
using Vec = std::vector<double>;

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// One step h_{t-1} → h_t of the cell, written from PyTorch's documentation.
Vec step(const GradientSetup& s, const Vec& h, int t) {
  const int H = s.H;
  const double* x = s.x.data() + size_t(t - 1) * H;
  // row o of W·v + b
  auto lin = [&](const Vec& W, const Vec& b, const double* v, int o) {
    double a = b[o];
    for (int i = 0; i < H; ++i) a += W[size_t(o) * H + i] * v[i];
    return a;
  };
  Vec out(H);
  for (int o = 0; o < H; ++o) {
    if (s.cell != RecurrentCell::Gru) {
      const double pre = lin(s.w_ih, s.b_ih, x, o) + lin(s.w_hh, s.b_hh, h.data(), o);
      out[o] = s.cell == RecurrentCell::Tanh ? std::tanh(pre) : pre;
      continue;
    }
    const double r = sigmoid(lin(s.w_ih, s.b_ih, x, o) + lin(s.w_hh, s.b_hh, h.data(), o));
    const double z = sigmoid(lin(s.w_ih, s.b_ih, x, H + o) + lin(s.w_hh, s.b_hh, h.data(), H + o));
    const double n = std::tanh(lin(s.w_ih, s.b_ih, x, 2 * H + o) + r * lin(s.w_hh, s.b_hh, h.data(), 2 * H + o));
    out[o] = (1.0 - z) * n + z * h[o];
  }
  return out;
}

// L = u·h_T, starting from the state h_t given.
double loss_from(const GradientSetup& s, Vec h, int t) {
  for (int tt = t + 1; tt <= s.T; ++tt) h = step(s, h, tt);
  double L = 0;
  for (int i = 0; i < s.H; ++i) L += s.u[i] * h[i];
  return L;
}

// ‖∂L/∂h_t‖ by central differences, from the states h_1 … h_T.
double fd_norm(const GradientSetup& s, const Vec& states, int t) {
  Vec h(states.begin() + size_t(t - 1) * s.H, states.begin() + size_t(t) * s.H);
  const double eps = 1e-5;
  double sq = 0;
  for (int i = 0; i < s.H; ++i) {
    const double keep = h[i];
    h[i] = keep + eps;
    const double lp = loss_from(s, h, t);
    h[i] = keep - eps;
    const double lm = loss_from(s, h, t);
    h[i] = keep;
    const double g = (lp - lm) / (2 * eps);
    sq += g * g;
  }
  return std::sqrt(sq);
}

Vec own_states(const GradientSetup& s) {
  Vec h(s.H, 0.0), all;
  for (int t = 1; t <= s.T; ++t) {
    h = step(s, h, t);
    all.insert(all.end(), h.begin(), h.end());
  }
  return all;
}

}  // namespace

TEST_CASE("learn gradient: the linear cell's gradient has norm gain^k exactly") {
  const int H = 16, T = 64;
  for (double gain : {0.9, 1.0, 1.15}) {
    CAPTURE(gain);
    Vec norms(T), gates(T);
    REQUIRE_MESSAGE(tfp_learn_gradient_steps(TFP_CELL_LINEAR, H, T, gain, 0.0, 3, norms.data(), gates.data()) == TFP_OK,
                    tfp_last_error());
    for (int k = 0; k < T; ++k) {
      CAPTURE(k);
      CHECK(std::fabs(norms[k] / std::pow(gain, k) - 1.0) < 1e-12);
      CHECK(gates[k] == 1.0);
    }
  }
  // Hand check: 0.9^60 = 0.0017970 (to 5 figures): 556× smaller than at k = 0.
  Vec norms(61);
  REQUIRE(tfp_learn_gradient_steps(TFP_CELL_LINEAR, 8, 61, 0.9, 0.0, 1, norms.data(), nullptr) == TFP_OK);
  CHECK(norms[60] == doctest::Approx(0.0017970).epsilon(1e-4));
}

TEST_CASE("learn gradient: tanh RNN and GRU norms equal finite differences of their forward") {
  const int H = 12, T = 30;
  struct Case { RecurrentCell cell; double gain, bias; };
  for (const Case c : {Case{RecurrentCell::Tanh, 1.0, 0.0}, Case{RecurrentCell::Tanh, 1.8, 0.0},
                       Case{RecurrentCell::Gru, 1.0, 0.0}, Case{RecurrentCell::Gru, 1.0, 3.0}}) {
    CAPTURE(int(c.cell));
    CAPTURE(c.gain);
    CAPTURE(c.bias);
    const GradientSetup s = tfp::api::make_gradient_setup(c.cell, H, T, c.gain, c.bias, 5);
    const auto run = tfp::api::run_gradient(s);
    // The engine's forward equals the one written here.
    const Vec mine = own_states(s);
    REQUIRE(mine.size() == run.states.size());
    for (size_t i = 0; i < mine.size(); ++i) CHECK(std::fabs(mine[i] - run.states[i]) < 1e-12);
    // The C API returns what run_gradient computed.
    Vec norms(T), gates(T);
    REQUIRE(tfp_learn_gradient_steps(int(c.cell), H, T, c.gain, c.bias, 5, norms.data(), gates.data()) == TFP_OK);
    CHECK(norms == run.norms);
    CHECK(gates == run.gates);
    CHECK(norms[0] == doctest::Approx(1.0).epsilon(1e-15));
    for (int k : {1, 2, 5, 10}) {
      CAPTURE(k);
      REQUIRE(norms[k] > 1e-3);  // large enough for the differences' precision
      const double fd = fd_norm(s, run.states, T - k);
      CHECK(std::fabs(norms[k] - fd) <= 1e-6 * fd);
    }
    for (int k = 0; k < T; ++k) {
      CAPTURE(k);
      if (c.cell == RecurrentCell::Tanh) {
        CHECK(norms[k] <= std::pow(c.gain, k) * (1 + 1e-12));  // |tanh'| <= 1
        CHECK(gates[k] > 0.0);
        CHECK(gates[k] <= 1.0);
      } else {
        CHECK(gates[k] > 0.0);
        CHECK(gates[k] < 1.0);
      }
    }
  }
}

TEST_CASE("learn gradient: the update gate's bias keeps the GRU's gradient alive") {
  // A large update-gate bias makes z ≈ 1 (σ(4) = 0.982): h_t ≈ h_{t-1}, and the gradient
  // passes back almost unchanged; without it the same GRU's gradient shrinks far faster.
  const int H = 32, T = 100;
  Vec plain(T), kept(T), zp(T), zk(T);
  REQUIRE(tfp_learn_gradient_steps(TFP_CELL_GRU, H, T, 1.0, 0.0, 1, plain.data(), zp.data()) == TFP_OK);
  REQUIRE(tfp_learn_gradient_steps(TFP_CELL_GRU, H, T, 1.0, 4.0, 1, kept.data(), zk.data()) == TFP_OK);
  double mp = 0, mk = 0;
  for (int k = 0; k < T; ++k) mp += zp[k] / T, mk += zk[k] / T;
  CAPTURE(mp);
  CAPTURE(mk);
  CHECK(mk > 0.9);
  CHECK(mp < 0.7);
  CAPTURE(plain[60]);
  CAPTURE(kept[60]);
  CHECK(kept[60] > 0.1);
  CHECK(kept[60] > 100 * plain[60]);
}

TEST_CASE("learn gradient: the GRU's forward is nn::gru_sequence's") {
  const int H = 8, T = 20;
  const GradientSetup s = tfp::api::make_gradient_setup(RecurrentCell::Gru, H, T, 1.2, 1.0, 9);
  const auto run = tfp::api::run_gradient(s);
  const auto f = [](const Vec& v) { return std::vector<float>(v.begin(), v.end()); };
  const std::vector<float> w_ih = f(s.w_ih), w_hh = f(s.w_hh), b_ih = f(s.b_ih), b_hh = f(s.b_hh), x = f(s.x);
  tfp::nn::GruWeights w;
  w.ih.weight = tfp::TensorView(w_ih.data(), {3 * H, H});
  w.ih.bias = tfp::TensorView(b_ih.data(), {3 * H});
  w.hh.weight = tfp::TensorView(w_hh.data(), {3 * H, H});
  w.hh.bias = tfp::TensorView(b_hh.data(), {3 * H});
  const tfp::Tensor h = tfp::nn::gru_sequence(tfp::TensorView(x.data(), {T, H}), w);
  REQUIRE(h.numel() == int64_t(T) * H);
  for (size_t i = 0; i < size_t(T) * H; ++i) CHECK(std::fabs(h.data[i] - run.states[i]) < 1e-5);
}

TEST_CASE("learn gradient: refusals") {
  Vec out(10);
  CHECK(tfp_learn_gradient_steps(3, 8, 10, 1.0, 0.0, 1, out.data(), nullptr) != TFP_OK);
  CHECK(tfp_learn_gradient_steps(TFP_CELL_TANH, 0, 10, 1.0, 0.0, 1, out.data(), nullptr) != TFP_OK);
  CHECK(tfp_learn_gradient_steps(TFP_CELL_TANH, 8, 0, 1.0, 0.0, 1, out.data(), nullptr) != TFP_OK);
  CHECK(tfp_learn_gradient_steps(TFP_CELL_TANH, 8, 257, 1.0, 0.0, 1, out.data(), nullptr) != TFP_OK);
  CHECK(tfp_learn_gradient_steps(TFP_CELL_TANH, 8, 10, 3.5, 0.0, 1, out.data(), nullptr) != TFP_OK);
  CHECK(tfp_learn_gradient_steps(TFP_CELL_TANH, 8, 10, NAN, 0.0, 1, out.data(), nullptr) != TFP_OK);
  CHECK(tfp_learn_gradient_steps(TFP_CELL_TANH, 8, 10, 1.0, 2.0, 1, out.data(), nullptr) != TFP_OK);
  CHECK(tfp_learn_gradient_steps(TFP_CELL_TANH, 8, 10, 1.0, 0.0, 1, nullptr, nullptr) != TFP_OK);
  CHECK(std::string(tfp_last_error()).find("norms is NULL") != std::string::npos);
}
