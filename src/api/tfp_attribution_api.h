/* Direct logit attribution (inspect/logit_attribution.h; TransformerLens's conventions) and
 * gradient attribution (inspect/gradient_attribution.h; Captum's) of a loaded model. The conventions of tfp_api.h hold (int status, tfp_last_error, ownership
 * stated, float32 row-major). Exported from the WASM module like tfp_api.h.
 * Shapes: L decoder layers, H heads. */
#ifndef TFP_ATTRIBUTION_API_H
#define TFP_ATTRIBUTION_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The metric logit(answer) - logit(foil) at the last position of ids (n >= 1), split into
 * the parts of the residual stream there, each through the final norm with its scale
 * frozen at this run's value and through the LM head without its bias. *out
 * (caller-owned; NULL on failure) receives:
 *   "metric" (3)       the forward pass's logit difference, the sum of every term below,
 *                      and their difference (sum - metric: float rounding)
 *   "embed" (1)        the token embedding
 *   "pos_embed" (1)    the learned position embedding; absent where the model has none
 *                      (rotary, ALiBi) or normalises its embeddings (then "embed" is all)
 *   "heads" (L, H)     each head's output at the last position
 *   "attn_bias" (L)    each attention output projection's bias
 *   "mlp" (L)          each MLP's output
 *   "norm_bias" (1)    the final norm's bias and the LM head's bias
 *   "accumulated" (L+1) the residual stream before block l (row L: after the last), the
 *                      same frozen norm, plus norm_bias: the last entry is the metric
 * Runs under the head mask. An encoder-only or encoder-decoder model, one without an LM
 * head, post-norm blocks, sandwich norms (Gemma 2/3), final logit soft-capping, an id
 * outside the vocabulary or n < 1 are TFP_ERR_INVALID_ARGUMENT, each named. One forward
 * pass. */
int tfp_model_logit_attribution(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer, int32_t foil,
                                tfp_tensors** out);

/* Gradient attribution on the token embeddings (inspect/gradient_attribution.h): the rows
 * of the token table for ids (n >= 1), positions and token types as they are. The metric at
 * `position` (-1 = the last): metric 0 = logit(answer) - logit(foil), 1 = log p(answer); a
 * decoder-only model's next-token logits there, or BERT's masked-LM logits there. *out
 * (caller-owned; NULL on failure) receives:
 *   "metric" (2)        the metric at the input, and with every token row 0 (the baseline)
 *   "grad_x_input" (T)  sum over the width of gradient x input, per position
 *   "grad_norm" (T)     the gradient's L2 norm per position
 *   "integrated" (T)    integrated gradients from the zero baseline, midpoint rule over
 *                       `steps` (1..4096); absent when steps is 0
 *   "completeness" (2)  the integrated gradients' sum and its gap to the metric's change
 *                       (sum - (metric - baseline)); absent when steps is 0
 * Runs under the head mask. An encoder-decoder, a model without an LM head, an id, answer
 * or foil outside the vocabulary, a position outside the input, steps outside 0..4096 are
 * TFP_ERR_INVALID_ARGUMENT, each named. 1 + steps + 1 forward and backward passes. */
int tfp_model_gradient_attribution(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer, int32_t foil,
                                   int32_t metric, int32_t steps, int32_t position, tfp_tensors** out);

/* Integrated gradients in ranges of steps, so that a long run reports progress and can stop
 * between calls: of tfp_model_gradient_attribution's `steps` midpoints (1..4096), steps
 * first .. first + count - 1 (0 <= first, 1 <= count, first + count <= steps). *out
 * (caller-owned; NULL on failure) receives:
 *   "integrated" (T)  those steps' share of "integrated": the ranges of 0..steps-1 add up
 *                     to it (the midpoint rule is a sum over steps)
 *   "baseline" (1)    the metric with every token row 0; only in the range that ends at
 *                     steps (first + count == steps)
 * Arguments as tfp_model_gradient_attribution's; a range outside 0..steps-1 is
 * TFP_ERR_INVALID_ARGUMENT, named. count forward and backward passes (one more for the
 * baseline). */
int tfp_model_integrated_gradients(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer, int32_t foil,
                                   int32_t metric, int32_t steps, int32_t first, int32_t count, int32_t position,
                                   tfp_tensors** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_ATTRIBUTION_API_H */
