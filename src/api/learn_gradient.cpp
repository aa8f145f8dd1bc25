// tfp_learn_gradient_steps: the Learn chapter "Why attention" passes a gradient back
// through T recurrent steps and reports its size at every step.
//
// The maths is the engine's: the forward and backward passes are the training kernels of
// src/train/ (linear_forward / linear_backward for W·h, gru_cell_forward /
// gru_cell_backward for the GRU, in double). This file draws the weights and runs them.
//
// Why the gradient vanishes or explodes. With L = u·h_T, the gradient at the state k
// steps back is a product of k transposed Jacobians,
//   ∂L/∂h_{T-k} = J_{T-k+1}ᵀ ··· J_Tᵀ u,   J_t = ∂h_t/∂h_{t-1}.
// Linear cell: J_t = W_hh = gain·Q, so ‖∂L/∂h_{T-k}‖ = gain^k exactly (Q keeps lengths).
// Tanh cell: J_t = diag(1 - h_t²)·W_hh; each 1 - h² <= 1, so the norm is at most gain^k.
// GRU: J_t = diag(z_t) + (terms through the gates and W_hh); where z ≈ 1 the first term
// passes the gradient on unchanged whatever W_hh is (the additive path h_t ≈ h_{t-1}).
//
// Legend: T steps, H state width, G gate blocks (3 for the GRU, 1 otherwise).
#include "api/learn_gradient.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "api/api_edge.h"
#include "api/seeded.h"
#include "api/tfp_learn_gradient_api.h"
#include "train/linear_grad.h"
#include "train/seq_gru_cell.h"

namespace tfp::api {

namespace {

std::vector<double> uniform(uint32_t seed, const std::string& purpose, size_t n, double bound) {
  std::vector<float> v(n);
  SeededStream(seed, purpose).fill_uniform(v, float(bound));
  return {v.begin(), v.end()};
}

double norm(const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * v[i];
  return std::sqrt(s);
}

// A random orthogonal (H, H) matrix: the rows of a seeded uniform matrix made orthonormal
// by Gram–Schmidt, each row's projections removed twice (one pass leaves rounding-sized
// overlaps that a second pass cleans up). A uniform matrix is singular with probability 0.
std::vector<double> orthogonal(uint32_t seed, const std::string& purpose, int H) {
  std::vector<double> q = uniform(seed, purpose, size_t(H) * H, 1.0);
  for (int i = 0; i < H; ++i) {
    double* qi = q.data() + size_t(i) * H;
    for (int pass = 0; pass < 2; ++pass)
      for (int j = 0; j < i; ++j) {
        const double* qj = q.data() + size_t(j) * H;
        double d = 0;
        for (int c = 0; c < H; ++c) d += qi[c] * qj[c];
        for (int c = 0; c < H; ++c) qi[c] -= d * qj[c];
      }
    const double n = norm(qi, H);
    for (int c = 0; c < H; ++c) qi[c] /= n;
  }
  return q;
}

}  // namespace

GradientSetup make_gradient_setup(RecurrentCell cell, int H, int T, double gain, double update_bias,
                                  uint32_t seed) {
  GradientSetup s;
  s.cell = cell;
  s.H = H;
  s.T = T;
  const int G = cell == RecurrentCell::Gru ? 3 : 1;
  const size_t HH = size_t(H) * H;
  const double bound = 1.0 / std::sqrt(double(H));  // PyTorch nn.RNN / nn.GRU
  s.w_hh.resize(G * HH);
  for (int g = 0; g < G; ++g) {
    const std::vector<double> q = orthogonal(seed, "gradient.w_hh." + std::to_string(g), H);
    for (size_t i = 0; i < HH; ++i) s.w_hh[g * HH + i] = gain * q[i];
  }
  s.w_ih = uniform(seed, "gradient.w_ih", G * HH, bound);
  if (cell == RecurrentCell::Linear) {
    s.b_ih.assign(size_t(G) * H, 0.0);
    s.b_hh.assign(size_t(G) * H, 0.0);
  } else {
    s.b_ih = uniform(seed, "gradient.b_ih", size_t(G) * H, bound);
    s.b_hh = uniform(seed, "gradient.b_hh", size_t(G) * H, bound);
  }
  if (cell == RecurrentCell::Gru)
    for (int i = 0; i < H; ++i) s.b_ih[size_t(H) + i] += update_bias;  // rows r | z | n: z is block 1
  s.x = uniform(seed, "gradient.x", size_t(T) * H, std::sqrt(3.0));  // variance 1
  s.u = uniform(seed, "gradient.u", size_t(H), 1.0);
  const double n = norm(s.u.data(), H);
  for (double& v : s.u) v /= n;
  return s;
}

GradientRun run_gradient(const GradientSetup& s) {
  const int H = s.H, T = s.T;
  const size_t uH = size_t(H);
  GradientRun r;
  r.states.assign(size_t(T) * uH, 0.0);
  r.norms.assign(size_t(T), 0.0);
  r.gates.assign(size_t(T), 0.0);
  const std::vector<double> h0(uH, 0.0);
  const auto h_at = [&](int t) { return t == 0 ? h0.data() : r.states.data() + size_t(t - 1) * uH; };  // h_t
  const auto x_at = [&](int t) { return s.x.data() + size_t(t - 1) * uH; };                               // x_t
  std::vector<double> dh(s.u), dh_prev(uH);
  r.norms[0] = norm(dh.data(), H);

  if (s.cell == RecurrentCell::Gru) {
    const train::GruCellWeights<double> w{s.w_ih.data(), s.w_hh.data(), s.b_ih.data(), s.b_hh.data()};
    std::vector<train::GruCellCache<double>> caches(static_cast<size_t>(T));
    for (int t = 1; t <= T; ++t)
      train::gru_cell_forward<double>(r.states.data() + size_t(t - 1) * uH, caches[size_t(t - 1)], x_at(t), h_at(t - 1), w,
                                      1, H, H);
    for (int k = 0; k < T; ++k) {
      const auto& z = caches[size_t(T - k - 1)].z;
      double m = 0;
      for (double v : z) m += v;
      r.gates[size_t(k)] = m / H;
    }
    for (int k = 0; k + 1 < T; ++k) {  // from h_{T-k} back to h_{T-k-1}
      const int t = T - k;
      std::fill(dh_prev.begin(), dh_prev.end(), 0.0);
      train::gru_cell_backward<double>(nullptr, dh_prev.data(), train::GruCellGrads<double>{}, dh.data(), x_at(t), h_at(t - 1),
                                       caches[size_t(t - 1)], w, 1, H, H);
      dh.swap(dh_prev);
      r.norms[size_t(k + 1)] = norm(dh.data(), H);
    }
    return r;
  }

  // Linear and tanh cells: pre_t = W_ih·x_t + b_ih + W_hh·h_{t-1} + b_hh; h_t = pre_t or tanh(pre_t).
  const bool squash = s.cell == RecurrentCell::Tanh;
  std::vector<double> gi(uH), gh(uH);
  for (int t = 1; t <= T; ++t) {
    train::linear_forward<double>(gi.data(), x_at(t), s.w_ih.data(), s.b_ih.data(), 1, H, H);
    train::linear_forward<double>(gh.data(), h_at(t - 1), s.w_hh.data(), s.b_hh.data(), 1, H, H);
    double* h = r.states.data() + size_t(t - 1) * uH;
    for (int i = 0; i < H; ++i) h[i] = squash ? std::tanh(gi[i] + gh[i]) : gi[i] + gh[i];
  }
  std::vector<double> dpre(uH);
  for (int k = 0; k < T; ++k) {
    const double* h = h_at(T - k);
    double m = 0;
    for (int i = 0; i < H; ++i) m += squash ? 1.0 - h[i] * h[i] : 1.0;
    r.gates[size_t(k)] = m / H;
  }
  for (int k = 0; k + 1 < T; ++k) {
    const int t = T - k;
    const double* h = h_at(t);
    for (int i = 0; i < H; ++i) dpre[i] = squash ? dh[i] * (1.0 - h[i] * h[i]) : dh[i];  // tanh' = 1 - tanh²
    std::fill(dh_prev.begin(), dh_prev.end(), 0.0);
    train::linear_backward<double>(dh_prev.data(), nullptr, nullptr, dpre.data(), h_at(t - 1), s.w_hh.data(), 1, H, H);
    dh.swap(dh_prev);
    r.norms[size_t(k + 1)] = norm(dh.data(), H);
  }
  return r;
}

}  // namespace tfp::api

extern "C" int tfp_learn_gradient_steps(int cell, int H, int T, double gain, double update_bias, uint32_t seed,
                                        double* norms, double* gates) {
  return tfp::api::guard("tfp_learn_gradient_steps", [&] {
    TFP_API_REQUIRE(cell == TFP_CELL_LINEAR || cell == TFP_CELL_TANH || cell == TFP_CELL_GRU,
                    "tfp_learn_gradient_steps: cell must be 0 (linear), 1 (tanh) or 2 (GRU), got ", cell);
    TFP_API_REQUIRE(H >= 1 && H <= 256, "tfp_learn_gradient_steps: H must be 1..256, got ", H);
    TFP_API_REQUIRE(T >= 1 && T <= 256, "tfp_learn_gradient_steps: T must be 1..256, got ", T);
    TFP_API_REQUIRE(std::isfinite(gain) && gain >= 0.0 && gain <= 3.0, "tfp_learn_gradient_steps: gain must be 0..3, got ",
                    gain);
    TFP_API_REQUIRE(std::isfinite(update_bias) && std::fabs(update_bias) <= 20.0,
                    "tfp_learn_gradient_steps: update_bias must be -20..20, got ", update_bias);
    TFP_API_REQUIRE(cell == TFP_CELL_GRU || update_bias == 0.0,
                    "tfp_learn_gradient_steps: update_bias is the GRU's update gate; the other cells have none (got ",
                    update_bias, ")");
    TFP_API_REQUIRE(norms, "tfp_learn_gradient_steps: norms is NULL");
    const auto setup = tfp::api::make_gradient_setup(static_cast<tfp::api::RecurrentCell>(cell), H, T, gain, update_bias, seed);
    const auto run = tfp::api::run_gradient(setup);
    std::copy(run.norms.begin(), run.norms.end(), norms);
    if (gates) std::copy(run.gates.begin(), run.gates.end(), gates);
  });
}
