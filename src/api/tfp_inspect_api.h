/* The inspector's part of the flat C API: maths on attention maps the caller already
 * has (from tfp_model_forward's "*.attn.probs" tensors). Stateless; the conventions of
 * tfp_api.h hold (int status, tfp_last_error, ownership stated, float32 row-major).
 * Exported from the WASM module like tfp_api.h (cmake/wasm_module.cmake reads both).
 * Shapes: L layers, H heads, T tokens, Tq queries, Tk keys. */
#ifndef TFP_INSPECT_API_H
#define TFP_INSPECT_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Attention rollout (inspect/rollout.h): probs (L, H, T, T) borrowed — layer l's
 * self-attention maps in forward order; residual α in [0, 1] (0.5 as Abnar & Zuidema);
 * fusion 0 = mean over heads, 1 = max, 2 = min. Writes (L, T, T) to out (caller-owned):
 * slice l is the rollout after layer l, every row summing to 1. */
int tfp_attention_rollout(const float* probs, int L, int H, int T, float residual, int fusion,
                          float* out);

/* Per-head statistics (inspect/rollout.h attention_head_stats) of one layer's probs
 * (H, Tq, Tk) borrowed. Writes (H, 4) to out (caller-owned): entropy (nats), mean
 * attention distance (tokens), share on the first key, share on the previous token. */
int tfp_attention_head_stats(const float* probs, int H, int Tq, int Tk, float* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_INSPECT_API_H */
