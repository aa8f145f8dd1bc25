/* Learn chapter 5, "Why divide by √d_k": the random q·k experiment. The conventions of
 * tfp_api.h hold (int status, tfp_last_error, caller-owned outputs, float32 row-major).
 * Exported from the WASM module like tfp_api.h (cmake/wasm_module.cmake reads it).
 *
 * The experiment. For one d_k, a sample is a query q (d_k) and n keys K (n, d_k) whose
 * components are independent, mean 0, variance 1: uniform on [-√3, √3] from the engine's
 * seeded generator (api/seeded.h), drawn in the order q, then K row by row, from the
 * stream keyed by (seed, d_k) — so the same seed gives the same numbers, and sample s at
 * d_k is the same whatever else is asked for. Its scores s = K·q (n) come from the matmul
 * kernel; each of three scalings c gives probabilities p = softmax(c·s) (the engine's
 * softmax) and the softmax's Jacobian J = diag(p) - p pᵀ (n, n) (the engine's softmax
 * backward applied to each unit vector):
 *   scaling 0  c = 1          (no scaling)       Var(q·k) = d_k
 *   scaling 1  c = 1/√d_k     (the Transformer)  Var = 1
 *   scaling 2  c = 1/d_k      (a common mistake) Var = 1/d_k
 * Statistics over all samples (mean and variance over every score of every sample;
 * the others are means over samples) are accumulated in double. */
#ifndef TFP_LEARN_SCALING_API_H
#define TFP_LEARN_SCALING_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The statistics, for each d_k in dks (n_dk values, borrowed; each 1..65536), with n_keys
 * keys per sample (2..1024) and `samples` samples (2..1000000) per d_k, seed any value.
 * The work, samples * ((n_keys + 1) * sum(dks) + 3 * n_dk * n_keys²) values drawn or
 * computed, must stay <= 2^28 (the default page call, 1000 samples of 8 keys at d_k =
 * 4..1024, is ~2·10^7).
 * Writes (n_dk, 3, 4) to out (caller-owned): for d_k i and scaling c (0, 1, 2 above),
 *   [0] mean of the scaled scores c·q·k            (theory 0)
 *   [1] their sample variance (divided by N - 1)   (theory c²·d_k)
 *   [2] mean over samples of the largest probability max_j p_j   (1/n .. 1)
 *   [3] mean over samples of the Jacobian's Frobenius norm ||diag(p) - p pᵀ||_F
 *       (√(n-1)/n for uniform p, 0 for one-hot p: the gradient vanishes). */
int tfp_learn_scaling_stats(const int32_t* dks, int n_dk, int n_keys, int samples, uint32_t seed,
                            float* out);

/* Sample number `sample` (0-based, < 1000000) of the experiment at d_k with n_keys keys:
 * writes scores (3, n_keys) — row c the scores c·q·k_j of scaling c — and probs
 * (3, n_keys), their softmax; both caller-owned. Sample s here is sample s of
 * tfp_learn_scaling_stats for the same d_k, n_keys and seed. */
int tfp_learn_scaling_row(int d_k, int n_keys, int sample, uint32_t seed, float* scores,
                          float* probs);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_SCALING_API_H */
