/* The Learn chapter "Softmax": one row of scores through the engine's softmax, with
 * its intermediates, and through the naive formula that the engine does NOT use (a
 * counter-example: without subtracting the max, float32 exp overflows).
 * Conventions of tfp_api.h: int status TFP_OK or an error with tfp_last_error(),
 * every output caller-owned, float32. Exported from the WASM module like tfp_api.h.
 *
 * Inputs shared by both functions (borrowed, read during the call only):
 *   scores  (n) floats, n >= 1: one query's scores over n keys; NaN is refused
 *   masked  (n) uint8, or NULL for none: 1 = key j is masked. A masked key's logit is
 *           set to -inf exactly as attention masks a padded key (nn::apply_attention_mask
 *           with key_padding), so exp gives exactly 0 for it.
 *   temperature τ: finite, > 0. The softmax's input is z_j = scores_j / τ in float32
 *           (τ -> 0: all weight on the largest score; τ -> ∞: uniform over unmasked keys).
 */
#ifndef TFP_LEARN_SOFTMAX_API_H
#define TFP_LEARN_SOFTMAX_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One softmax row to show (tfp_api.h "parameter structs"). Defaults
 * (tfp_learn_softmax_params_init): scores NULL, n 0, temperature 1, masked NULL, variant 0. */
typedef struct tfp_learn_softmax_params {
  const float* scores;   /* (n) */
  int32_t n;             /* >= 1 */
  float temperature;     /* τ, finite, > 0 */
  const uint8_t* masked; /* (n) or NULL: 1 = masked key */
  int32_t variant;       /* 0 stable, 1 naive (below) */
} tfp_learn_softmax_params;
void tfp_learn_softmax_params_init(tfp_learn_softmax_params* p);

/* One row (p), step by step. variant:
 *   0  stable: probs from kernels::softmax_rows, the softmax every model in the engine
 *      uses (the row max is subtracted first, so exp never overflows);
 *   1  naive:  probs = exp(z) / Σ exp(z) with no subtraction (kernels::ref::softmax_rows_naive),
 *      +inf / NaN once some z_j > ln(FLT_MAX) ≈ 88.72. No model uses it.
 * Writes, n floats each: logits z_j (-inf where masked); exps exp(z_j - shift), the
 * terms of the sum (kernels::ref::softmax_row_steps); probs. And stats (5 floats):
 *   [0] shift: max_j z_j (stable) or 0 (naive); -inf when every key is masked
 *   [1] Σ exps as float32 sums it (+inf when the naive sum overflows)
 *   [2] Σ probs as float32 sums it, left to right (1 up to rounding; 0 for a fully
 *       masked row; NaN when the naive probs are NaN)
 *   [3] the largest prob (NaN ones skipped; 0 when none is positive)
 *   [4] its index (the first one), or -1 when no prob is positive and not NaN
 * A fully masked row (every masked[j] = 1, or every score -inf) gives, in the stable
 * variant, probs all 0 and stats[2] = 0: the engine writes zeros instead of 0/0 = NaN,
 * so attention to no key at all outputs the zero vector. The naive variant gives NaN. */
int tfp_learn_softmax_row(const tfp_learn_softmax_params* p, float* logits, float* exps, float* probs, float* stats);

/* The stable softmax of the same row at m temperatures (each finite, > 0): row i of
 * probs (m, n), caller-owned, is softmax(scores / temperatures[i]) from kernels::softmax_rows. */
int tfp_learn_softmax_temperatures(const float* scores, int n, const uint8_t* masked,
                                   const float* temperatures, int m, float* probs);

#ifdef __cplusplus
}
#endif

#endif
