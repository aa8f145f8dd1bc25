// The experiment behind tfp_learn_gradient_steps (tfp_learn_gradient_api.h), open to the
// tests: they read the seeded weights from make_gradient_setup and check run_gradient's
// norms against finite differences of a forward pass of their own.
//
// Legend: T steps, H state width, G gate blocks (3 for the GRU: r | z | n; 1 otherwise).
#pragma once
#include <cstdint>
#include <vector>

namespace tfp::api {

enum class RecurrentCell { Linear = 0, Tanh = 1, Gru = 2 };

struct GradientSetup {
  RecurrentCell cell = RecurrentCell::Tanh;
  int H = 0, T = 0;
  std::vector<double> w_ih;  // (G·H, H)
  std::vector<double> w_hh;  // (G·H, H): gain·Q per block, Q orthogonal
  std::vector<double> b_ih;  // (G·H) (zeros for the linear cell)
  std::vector<double> b_hh;  // (G·H)
  std::vector<double> x;     // (T, H) the inputs x_1 … x_T, row t-1 for x_t
  std::vector<double> u;     // (H) unit: L = u·h_T
};

// The seeded cell, inputs and u (see tfp_learn_gradient_steps for the distributions).
GradientSetup make_gradient_setup(RecurrentCell cell, int H, int T, double gain, double update_bias,
                                  uint32_t seed);

struct GradientRun {
  std::vector<double> states;  // (T, H) h_1 … h_T, row t-1 for h_t
  std::vector<double> norms;   // (T) ‖∂L/∂h_{T-k}‖, index k
  std::vector<double> gates;   // (T) mean factor at step T-k, index k
};

// The forward pass (the engine's training kernels, in double) and the gradient passed back.
GradientRun run_gradient(const GradientSetup& s);

}  // namespace tfp::api
