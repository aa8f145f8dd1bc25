/* The Learn chapter "Why attention": what happens to a gradient passed back through many
 * recurrent steps. The conventions of tfp_api.h hold (int status, tfp_last_error,
 * ownership stated). Exported from the WASM module like tfp_api.h
 * (cmake/wasm_module.cmake).
 *
 * Legend: T steps (sequence length), H state width, k steps back (0 = the last state). */
#ifndef TFP_LEARN_GRADIENT_API_H
#define TFP_LEARN_GRADIENT_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The recurrent cells tfp_learn_gradient_steps can run. */
enum tfp_learn_recurrent_cell {
  TFP_CELL_LINEAR = 0, /* h_t = W_hh·h_{t-1} + W_ih·x_t                       (no squashing) */
  TFP_CELL_TANH = 1,   /* h_t = tanh(W_hh·h_{t-1} + b_hh + W_ih·x_t + b_ih)  (PyTorch nn.RNN) */
  TFP_CELL_GRU = 2     /* PyTorch nn.GRU's cell (src/train/seq_gru_cell.h, nn/gru.h) */
};

/* Runs one recurrent cell of width H over T seeded input vectors x_1 … x_T (each H wide,
 * uniform with variance 1) from h_0 = 0, takes the loss L = u·h_T for a seeded unit
 * vector u, and passes its gradient back step by step with the engine's backward pass
 * (src/train/: linear_backward for W_hh, gru_cell_backward for the GRU), in double.
 *
 * Weights (seeded): W_hh = gain·Q with Q a random orthogonal matrix (every eigenvalue
 * and every singular value of W_hh has size exactly `gain`); for the GRU each of its
 * three (H, H) blocks W_hr, W_hz, W_hn is gain times its own orthogonal Q. W_ih and the
 * biases are PyTorch's default, uniform(±1/sqrt(H)) (the linear cell has no biases);
 * `update_bias` is added to the GRU's update-gate bias b_iz (0 = PyTorch's start; a large
 * one makes z ≈ 1: h_t ≈ h_{t-1}) and must be 0 for the other cells.
 *
 * Writes, for k = 0 … T-1 (caller-owned, T doubles each):
 *   norms[k] = ‖∂L/∂h_{T-k}‖ (Euclidean): norms[0] = ‖u‖ = 1;
 *   gates[k] (may be NULL) = the mean over the H units, at step T-k, of the factor the
 *     gradient meets there: tanh'(pre) = 1 - h² for the tanh cell, the update gate z
 *     for the GRU, 1 for the linear cell.
 * For the linear cell norms[k] = gain^k exactly (an orthogonal Q keeps lengths); for
 * the tanh cell norms[k] <= gain^k (|tanh'| <= 1).
 * cell a tfp_learn_recurrent_cell, H 1..256, T 1..256, gain 0..3. */
int tfp_learn_gradient_steps(int cell, int H, int T, double gain, double update_bias, uint32_t seed,
                             double* norms, double* gates);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_GRADIENT_API_H */
